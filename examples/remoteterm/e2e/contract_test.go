package e2e_test

import (
	"bytes"
	"encoding/json"
	"os"
	"slices"
	"sort"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/examples/remoteterm/desktop"
	"github.com/skewtest/skewtest/examples/remoteterm/host"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// The specs below hold contract.template.json to the code: for every release in
// history.yaml, the contract the history generator derives must list exactly the opcodes,
// capabilities, gates and optional fields that release's code speaks.

type historyFile struct {
	Releases []struct {
		Tag string         `yaml:"tag"`
		Set map[string]any `yaml:"set"`
	} `yaml:"releases"`
	Worktree struct {
		Set map[string]any `yaml:"set"`
	} `yaml:"worktree"`
}

type releaseCase struct {
	features release.Features
	raw      map[string]any
}

// releases replays history.yaml the way the history generator does.
func releases() []releaseCase {
	GinkgoHelper()
	b, err := os.ReadFile("../history.yaml")
	Expect(err).NotTo(HaveOccurred())
	var h historyFile
	Expect(yaml.Unmarshal(b, &h)).To(Succeed())
	acc := map[string]any{}
	var out []releaseCase
	add := func(tag string, set map[string]any) {
		for k, v := range set {
			acc[k] = v
		}
		raw := map[string]any{}
		for k, v := range acc {
			raw[k] = v
		}
		raw["version"] = tag
		j, err := json.Marshal(raw)
		Expect(err).NotTo(HaveOccurred())
		f, err := release.Parse(j)
		Expect(err).NotTo(HaveOccurred(), tag)
		out = append(out, releaseCase{features: f, raw: raw})
	}
	for _, r := range h.Releases {
		add(r.Tag, r.Set)
	}
	add("worktree", h.Worktree.Set)
	return out
}

// derive applies the template's "feature" keys as the history generator does: an object
// with "feature": "k" is kept iff k is truthy ("!k": falsy), without the key.
func derive(v any, features map[string]any) (any, bool) {
	switch v := v.(type) {
	case map[string]any:
		var names []any
		switch f := v["feature"].(type) {
		case string:
			names = []any{f}
		case []any:
			names = f // every one must hold
		}
		for _, n := range names {
			f, _ := n.(string)
			want := !strings.HasPrefix(f, "!")
			if truthy(features[strings.TrimPrefix(f, "!")]) != want {
				return nil, false
			}
		}
		out := map[string]any{}
		for k, e := range v {
			if k == "feature" {
				continue
			}
			if d, keep := derive(e, features); keep {
				out[k] = d
			}
		}
		return out, true
	case []any:
		out := []any{}
		for _, e := range v {
			if d, keep := derive(e, features); keep {
				out = append(out, d)
			}
		}
		return out, true
	}
	return v, true
}

func truthy(v any) bool {
	switch v := v.(type) {
	case nil:
		return false
	case bool:
		return v
	case string:
		return v != ""
	}
	return true
}

type contractDoc struct {
	ContractVersion int          `json:"contractVersion"`
	Channels        []channelDoc `json:"channels"`
}

type channelDoc struct {
	Name         string `json:"name"`
	Capabilities []struct {
		Name       string   `json:"name"`
		DeclaredBy []string `json:"declaredBy"`
		Echoed     bool     `json:"echoed"`
	} `json:"capabilities"`
	Frames []frameDoc `json:"frames"`
}

type frameDoc struct {
	Opcode    int                        `json:"opcode"`
	Type      string                     `json:"type"`
	Name      string                     `json:"name"`
	Direction string                     `json:"direction"`
	Kinds     []string                   `json:"kinds"`
	Gates     map[string]string          `json:"gates"`
	Fields    map[string]json.RawMessage `json:"fields"`
}

// gate is the capability gating f on path, as skewtest reads it.
func (f frameDoc) gate(path string) string {
	if g, ok := f.Gates[path]; ok {
		return g
	}
	return f.Gates["*"]
}

func contractFor(rc releaseCase) contractDoc {
	GinkgoHelper()
	b, err := os.ReadFile("../contract.template.json")
	Expect(err).NotTo(HaveOccurred())
	var doc any
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	Expect(dec.Decode(&doc)).To(Succeed())
	derived, keep := derive(doc, rc.raw)
	Expect(keep).To(BeTrue())
	j, err := json.Marshal(derived)
	Expect(err).NotTo(HaveOccurred())
	var c contractDoc
	Expect(json.Unmarshal(j, &c)).To(Succeed())
	Expect(c.ContractVersion).To(Equal(2))
	return c
}

// terminal is the contract's terminal channel (the session channel sits beside it).
func (c contractDoc) terminal() channelDoc {
	GinkgoHelper()
	for _, ch := range c.Channels {
		if ch.Name == "terminal" {
			return ch
		}
	}
	Fail("no terminal channel")
	return channelDoc{}
}

// mobileKnows is the mobile app's vendored table: it decodes 1–6 and 12 and sends 7–11.
func mobileKnows(op int) bool { return op >= 1 && op <= 12 }

var _ = Describe("contract.template.json", func() {
	It("describes, for every release, the terminal stream its code speaks", func() {
		cases := releases()
		Expect(len(cases)).To(BeNumerically(">=", 10))
		for _, rc := range cases {
			f := rc.features
			By(f.Version)
			ch := contractFor(rc).terminal()

			first := map[int]frameDoc{}
			var ops []wire.Opcode
			for _, fr := range ch.Frames {
				if fr.Opcode == 0 {
					continue
				}
				if _, dup := first[fr.Opcode]; dup {
					continue // an earlier alternative wins, as in skewtest's lookup
				}
				first[fr.Opcode] = fr
				ops = append(ops, wire.Opcode(fr.Opcode))
				op := wire.Opcode(fr.Opcode)
				Expect(fr.Name).To(Equal(op.String()), f.Version)
				Expect(fr.Direction).To(Equal(string(op.Direction())), f.Version)
				if mobileKnows(fr.Opcode) {
					Expect(fr.Kinds).To(BeEmpty(), "%s %v", f.Version, op)
				} else {
					Expect(fr.Kinds).To(Equal([]string{"desktop"}), "%s %v", f.Version, op)
				}
			}
			sort.Slice(ops, func(i, j int) bool { return ops[i] < ops[j] })
			Expect(ops).To(Equal(wire.Opcodes(f).List()), f.Version)

			// Capabilities: what the desktop declares, echoed as the host echoes it to a
			// desktop of the same release.
			echo := host.Negotiate(f, wire.PathMultiplex, desktop.Capabilities(f)).Echo
			var declared []string
			for _, c := range ch.Capabilities {
				Expect(c.Echoed).To(Equal(echo.Has(c.Name)), "%s %s", f.Version, c.Name)
				if len(c.DeclaredBy) == 0 {
					continue // no client declares it: the host infers it (impliedBy)
				}
				Expect(c.DeclaredBy).To(Equal([]string{"desktop"}))
				declared = append(declared, c.Name)
			}
			var want []string
			for k := range desktop.Capabilities(f) {
				want = append(want, k)
			}
			Expect(declared).To(ConsistOf(want), f.Version)

			// OutputSpan: where the contract gates it, the host sends spans exactly when it
			// echoes the gate; where it does not, the host always sends spans.
			if span, ok := first[int(wire.OpOutputSpan)]; ok {
				probes := []wire.Capabilities{{},
					{wire.CapAckOutput: 1, wire.CapAckOutputSourceRanges: 1},
					{wire.CapOutputSpan: 1}}
				for _, path := range []string{wire.PathMultiplex, wire.PathSubscribe} {
					for _, probe := range probes {
						t := host.Negotiate(f, path, probe)
						spans := t.Spans == host.SpanAlways
						if g := span.gate(path); g != "" {
							Expect(g).To(Equal(wire.CapOutputSpan))
							Expect(spans).To(Equal(t.Echo.Has(g)), "%s %s %v", f.Version, path, probe)
						} else {
							Expect(spans).To(BeTrue(), "%s %s %v", f.Version, path, probe)
						}
					}
				}
			}
			if p, ok := first[int(wire.OpSetOutputPaused)]; ok {
				Expect(p.Gates).To(Equal(map[string]string{"*": wire.CapOutputPause}))
			}
			if p, ok := first[int(wire.OpWriteUnavailable)]; ok {
				Expect(p.Gates).To(Equal(map[string]string{"*": wire.CapWriteUnavailable}))
			}

			start := first[int(wire.OpSnapshotStart)]
			Expect(start.Fields).To(HaveKey("cwd"))
			Expect(slices.Contains(keys(start.Fields), "alternateScreen")).To(Equal(f.SnapshotOwnerFields), f.Version)
			Expect(slices.Contains(keys(start.Fields), "terminalOwner")).To(Equal(f.SnapshotOwnerFields), f.Version)

			var types []string
			for _, fr := range ch.Frames {
				if fr.Type != "" {
					types = append(types, fr.Type)
					Expect(fr.Direction).To(Equal("H>C"))
				}
				if fr.Type == wire.EventSubscribed {
					Expect(slices.Contains(keys(fr.Fields), "streamGeneration")).To(Equal(f.HostLedger), f.Version)
				}
			}
			Expect(types).To(ConsistOf(wire.EventReady, wire.EventSubscribed, wire.EventError, wire.EventEnd))
		}
	})
})

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	return out
}
