package session_test

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

// The template's session channel is written by hand; these specs hold it to the package's
// vocabulary and registry, so the contract cannot drift from what the code speaks.
var _ = Describe("the session channel of contract.template.json", func() {
	type field struct {
		Type     string   `json:"type"`
		Required bool     `json:"required"`
		Enum     []string `json:"enum"`
		Feature  string   `json:"feature"`
	}
	type frame struct {
		Type      string           `json:"type"`
		Name      string           `json:"name"`
		Direction string           `json:"direction"`
		Payload   string           `json:"payload"`
		Fields    map[string]field `json:"fields"`
		Feature   string           `json:"feature"`
	}
	type channel struct {
		Name  string   `json:"name"`
		Paths []string `json:"paths"`
		Text  struct {
			JSON map[string]string `json:"json"`
		} `json:"text"`
		Features []struct {
			Name    string   `json:"name"`
			Frames  []string `json:"frames"`
			Feature string   `json:"feature"`
		} `json:"features"`
		Commands []struct {
			ID       string `json:"id"`
			Versions []int  `json:"versions"`
			Feature  string `json:"feature"`
		} `json:"commands"`
		Frames []frame `json:"frames"`
	}
	var ch channel

	BeforeEach(func() {
		b, err := os.ReadFile("../contract.template.json")
		if errors.Is(err, fs.ErrNotExist) {
			Skip("no contract.template.json yet")
		}
		Expect(err).NotTo(HaveOccurred())
		var doc struct {
			Channels []json.RawMessage `json:"channels"`
		}
		Expect(json.Unmarshal(b, &doc)).To(Succeed())
		found := false
		for _, raw := range doc.Channels {
			var named struct {
				Name string `json:"name"`
			}
			Expect(json.Unmarshal(raw, &named)).To(Succeed())
			if named.Name != "session" {
				continue // other channels' features may be lists
			}
			Expect(json.Unmarshal(raw, &ch)).To(Succeed())
			found = true
		}
		if !found {
			Skip("contract.template.json has no session channel yet")
		}
	})

	It("serves /session with JSON frames discriminated by type", func() {
		Expect(ch.Paths).To(Equal([]string{"/session"}))
		Expect(ch.Text.JSON).To(Equal(map[string]string{"discriminator": "type"}))
	})

	It("lists every frame of the vocabulary, in order, with its direction, fields and feature", func() {
		vocab := session.Vocabulary()
		Expect(ch.Frames).To(HaveLen(len(vocab)))
		for i, spec := range vocab {
			f := ch.Frames[i]
			Expect(f.Type).To(Equal(string(spec.Type)))
			Expect(f.Name).To(Equal(string(spec.Type)))
			Expect(f.Direction).To(Equal(string(spec.Direction)), f.Name)
			Expect(f.Payload).To(Equal("json"), f.Name)
			// A feature-gated frame is kept only in releases with that feature; the release
			// key and the serverInfo.features key are the same word.
			Expect(f.Feature).To(Equal(spec.Feature), f.Name)
			Expect(f.Fields).To(HaveLen(len(spec.Fields)), f.Name)
			for key, want := range spec.Fields {
				got, ok := f.Fields[key]
				Expect(ok).To(BeTrue(), "%s.%s", f.Name, key)
				Expect(got.Type).To(Equal(string(want.Type)), "%s.%s", f.Name, key)
				Expect(got.Required).To(Equal(want.Required), "%s.%s", f.Name, key)
				Expect(got.Enum).To(Equal(want.Enum), "%s.%s", f.Name, key)
				if got.Feature != "" {
					Expect(want.Required).To(BeFalse(), "a field some releases lack is optional: %s.%s", f.Name, key)
				}
			}
		}
	})

	It("names the frames each feature gates", func() {
		gated := map[string][]string{}
		for _, spec := range session.Vocabulary() {
			if spec.Feature != "" {
				gated[spec.Feature] = append(gated[spec.Feature], string(spec.Type))
			}
		}
		listed := map[string]bool{}
		for _, f := range ch.Features {
			listed[f.Name] = true
			// A feature may gate no frame (reviewLabels only says what the daemon does).
			Expect(f.Frames).To(ConsistOf(gated[f.Name]), f.Name)
			Expect(f.Feature).To(Equal(f.Name), "a feature is in a release's contract iff the release has it")
		}
		for name := range gated {
			Expect(listed).To(HaveKey(name))
		}
	})

	It("lists exactly the command versions of the registry", func() {
		union := map[string][]int{}
		for _, c := range ch.Commands {
			for _, v := range c.Versions {
				_, ok := session.Commands().Lookup(c.ID, v)
				Expect(ok).To(BeTrue(), "%s v%d is not in the registry", c.ID, v)
				if !slices.Contains(union[c.ID], v) {
					union[c.ID] = append(union[c.ID], v)
				}
			}
		}
		for id, c := range session.Commands() {
			Expect(union).To(HaveKey(id))
			Expect(union[id]).To(HaveLen(len(c.Versions)), id)
		}
	})
})
