package checks_test

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("fields that depend on the negotiated protocol version", func() {
	mqtt := func(version int) *contract.Contract {
		GinkgoHelper()
		c, err := contract.Parse("c.json", []byte(fmt.Sprintf(`{"contractVersion":2,"protocol":{"version":%d,"minCompatible":4},
		  "channels":[{"name":"mqtt","paths":["/mqtt"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty",
		      "variants":[{"since":5,"payload":"binary","fields":{"reasonCode":{"offset":0,"encoding":"u8","required":true}}}]}]}]}`, version)))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep bye\nclient x\n"))
	Expect(err).NotTo(HaveOccurred())
	// An empty DISCONNECT (e0 00), as an MQTT 3.1.1 broker sends it.
	mismatches := func(host, client int) []results.Finding {
		t := &transcript.Transcript{Kind: "cli", Host: transcript.Build{Label: "h"}, Client: transcript.Build{Label: "c"},
			Conns:  []transcript.ConnEvent{{Conn: 1, Path: "/mqtt", Event: "open"}},
			Frames: []transcript.Frame{{Index: 1, Conn: 1, Path: "/mqtt", Dir: "H>C", Binary: true, Data: []byte{0xe0, 0x00}, Step: "bye"}}}
		return checks.FieldMismatch(&checks.Input{Transcript: t, Journey: j, Host: mqtt(host), Client: mqtt(client)})
	}

	It("reads a frame at the version the builds speak with each other", func() {
		Expect(mismatches(5, 4)).To(BeEmpty(), "a protocol 5 host speaks 4 to a 4 client: no reason code")
		Expect(mismatches(4, 5)).To(BeEmpty())
		fs := mismatches(5, 5)
		Expect(fs).To(HaveLen(1), "between protocol 5 builds the reason code is required")
		Expect(fs[0].Message).To(ContainSubstring("/reasonCode is missing"))
	})
})

var _ = Describe("which fields a frame has at the negotiated protocol version, the same for every reader", func() {
	// CONNACK's second byte is a 3.1.1 return code up to protocol 4 and an MQTT 5 reason code
	// from 5 on: one byte, two fields, each of its own versions.
	mqtt := func(version int) *contract.Contract {
		GinkgoHelper()
		protocol := fmt.Sprintf(`"protocol":{"version":%d,"minCompatible":4},`, version)
		if version == 0 {
			protocol = "" // the negative control: a contract that says no version
		}
		c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,`+protocol+`
		  "channels":[{"name":"mqtt","paths":["/mqtt"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[{"opcode":2,"name":"CONNACK","direction":"H>C","payload":"binary","fields":{
		      "sessionPresent":{"offset":0,"encoding":"u8","required":true},
		      "returnCode":{"offset":1,"encoding":"u8","required":true,"until":4},
		      "reasonCode":{"offset":1,"encoding":"u8","required":true,"since":5,"enum":[0,135]}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep connect\nclient x\n"))
	Expect(err).NotTo(HaveOccurred())
	// A CONNACK whose second byte is 5: 3.1.1's "not authorized", no reason code MQTT 5 knows.
	input := func(host, client int) *checks.Input {
		t := &transcript.Transcript{Kind: "cli", Host: transcript.Build{Label: "h"}, Client: transcript.Build{Label: "c"},
			Conns:  []transcript.ConnEvent{{Conn: 1, Path: "/mqtt", Event: "open"}},
			Frames: []transcript.Frame{{Index: 1, Conn: 1, Path: "/mqtt", Dir: "H>C", Binary: true, Data: []byte{0x20, 0x02, 0x00, 0x05}, Step: "connect"}}}
		return &checks.Input{Transcript: t, Journey: j, Host: mqtt(host), Client: mqtt(client)}
	}
	// fields is what each reader finds of returnCode and reasonCode: the decoded value, the
	// where clause, and the field check's verdict on reasonCode's enum.
	type view struct {
		Decoded          []string
		WhereReturn      bool
		WhereReason      bool
		ReasonEnumBroken bool
	}
	read := func(host, client int) view {
		GinkgoHelper()
		in := input(host, client)
		ns := checks.NameFrames(in)
		Expect(ns).To(HaveLen(1))
		n := ns[0]
		var v view
		for k := range n.Decoded.Value.(map[string]any) {
			v.Decoded = append(v.Decoded, k)
		}
		slices.Sort(v.Decoded)
		v.WhereReturn = n.Carries([]checks.Where{{Key: "returnCode", Value: "5"}})
		v.WhereReason = n.Carries([]checks.Where{{Key: "reasonCode", Value: "5"}})
		for _, f := range checks.FieldMismatch(in) {
			if strings.Contains(f.Message, "/reasonCode") {
				v.ReasonEnumBroken = true
			}
		}
		return v
	}

	It("reads returnCode, not reasonCode, between protocol 4 builds; reasonCode, not returnCode, under 5", func() {
		Expect(input(5, 5).Protocol()).To(Equal(5))
		Expect(read(5, 5)).To(Equal(view{Decoded: []string{"reasonCode", "sessionPresent"}, WhereReason: true, ReasonEnumBroken: true}))
		for _, pair := range [][2]int{{4, 4}, {5, 4}, {4, 5}} {
			v := read(pair[0], pair[1])
			Expect(v).To(Equal(view{Decoded: []string{"returnCode", "sessionPresent"}, WhereReturn: true}), "host %d, client %d", pair[0], pair[1])
		}
	})

	It("reads every field without a negotiated version (the negative control)", func() {
		Expect(input(0, 0).Protocol()).To(Equal(0))
		v := read(0, 0)
		Expect(v).To(Equal(view{Decoded: []string{"reasonCode", "returnCode", "sessionPresent"}, WhereReturn: true, WhereReason: true, ReasonEnumBroken: true}))
	})
})

var _ = Describe("the negotiated protocol version of a pairing", func() {
	build := func(version int, kinds ...string) *contract.Contract {
		GinkgoHelper()
		declared := ""
		if len(kinds) > 0 {
			declared = `,"kinds":{` + strings.Join(kinds, ",") + `}`
		}
		c, err := contract.Parse("c.json", []byte(fmt.Sprintf(`{"contractVersion":2,"protocol":{"version":%d,"minCompatible":4`+declared+`},
		  "channels":[{"name":"mqtt","paths":["/mqtt"],"clientKinds":["v311","v5"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[{"opcode":2,"name":"CONNACK","direction":"H>C","payload":"binary","fields":{
		      "returnCode":{"offset":1,"encoding":"u8","until":4},"reasonCode":{"offset":1,"encoding":"u8","since":5}}}]}]}`, version)))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	worktree, release := build(5), build(4)
	// in is a pairing of kind whose transcript saw what frames says.
	in := func(host, client *contract.Contract, kind string, frames ...[]byte) *checks.Input {
		t := &transcript.Transcript{Kind: kind, Conns: []transcript.ConnEvent{{Conn: 1, Path: "/mqtt", Event: "open"}}}
		for i, f := range frames {
			t.Frames = append(t.Frames, transcript.Frame{Index: i + 1, Conn: 1, Path: "/mqtt", Dir: "H>C", Binary: true, Data: f})
		}
		return &checks.Input{Transcript: t, Host: host, Client: client}
	}
	connack := []byte{0x20, 0x02, 0x00, 0x00}

	It("is the builds' own, from their contracts: neither the client kind nor the traffic moves it", func() {
		for _, kind := range []string{"v311", "v5"} {
			Expect(in(worktree, release, kind).Protocol()).To(Equal(4), "a release client speaking 4, of kind %s", kind)
			Expect(in(worktree, worktree, kind).Protocol()).To(Equal(5), "the working tree's own client, of kind %s", kind)
			Expect(in(worktree, release, kind, connack, connack).Protocol()).To(Equal(4), "what the pairing sent decides nothing")
		}
		n := checks.NameFrames(in(worktree, release, "v311", connack))
		Expect(n[0].Version).To(Equal(4))
		Expect(n[0].Decoded.Value).To(HaveKey("returnCode"), "read as the release client speaks it")
	})

	It("is a client kind's own where its build's contract says so: a 3.1.1 client beside an MQTT 5 one", func() {
		both := build(5, `"v311":4`)
		Expect(in(both, both, "v311").Protocol()).To(Equal(4), "the working tree's 3.1.1 client against its own host")
		Expect(in(both, both, "v5").Protocol()).To(Equal(5), "another kind of the same build speaks 5")
		Expect(in(both, release, "v5").Protocol()).To(Equal(4))
		n := checks.NameFrames(in(both, both, "v311", connack))
		Expect(n[0].Decoded.Value).To(HaveKey("returnCode"))
		Expect(checks.InWindow(in(build(5), build(5, `"v311":4`), "v311"))).To(BeTrue())
		Expect(checks.InWindow(in(build(6, `"old":4`), build(6, `"old":4`), "old"))).To(BeTrue(), "minCompatible 4")

		_, err := contract.Parse("c.json", []byte(`{"contractVersion":2,"protocol":{"version":5,"kinds":{"v311":6}},"channels":[]}`))
		Expect(err).To(MatchError(ContainSubstring("/protocol/kinds/v311: kinds v311: 6 is not a protocol version from 1 to this build's 5")))
	})

	It("reads the same frame otherwise between builds that both speak 5 (the negative control)", func() {
		n := checks.NameFrames(in(worktree, worktree, "v311", connack))
		Expect(n[0].Version).To(Equal(5))
		Expect(n[0].Decoded.Value).NotTo(HaveKey("returnCode"))
		Expect(n[0].Decoded.Value).To(HaveKey("reasonCode"))
	})
})
