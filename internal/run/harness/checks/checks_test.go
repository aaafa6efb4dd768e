package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/onsi/gomega/types"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

func kinds(fs []results.Finding) []results.Kind {
	var out []results.Kind
	for _, f := range fs {
		out = append(out, f.Kind)
	}
	return out
}

var _ = Describe("checks", func() {
	newer := contractJSON("v2", true, false)
	older := contractJSON("v1", false, false)

	Context("on compatible pairings", func() {
		It("finds nothing when both builds frame transformed runs as OutputSpan", func() {
			Expect(checks.Run(input(compatible(true), newer, newer))).To(BeEmpty())
		})
		It("finds nothing when neither knows OutputSpan and the run goes as Output", func() {
			Expect(checks.Run(input(compatible(false), older, older))).To(BeEmpty())
		})
		It("expects Output from a host whose contract predates OutputSpan", func() {
			Expect(checks.Run(input(compatible(false), older, newer))).To(BeEmpty())
		})
	})

	Describe("DecoderRefusal", func() {
		It("reports a frame outside the receiver's contract, naming opcode, direction and step", func() {
			fs := checks.DecoderRefusal(input(compatible(true), newer, older))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Kind).To(Equal(results.DecoderRefusal))
			Expect(fs[0].Direction).To(Equal("H>C"))
			Expect(fs[0].Step).To(Equal("output"))
			Expect(fs[0].Frame).To(Equal(&results.Frame{Opcode: 15, Name: "OutputSpan"}))
			Expect(fs[0].Message).To(ContainSubstring("OutputSpan (opcode 15) is not in the contract of desktop client v1.0.1"))
		})
		It("merges what the receiving driver reported with what the tap saw", func() {
			b := compatible(true)
			b.step = "output"
			b.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "reason": "unknown opcode 15"})
			fs := checks.DecoderRefusal(input(b, newer, older))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(ContainSubstring("desktop client v1.0.1 refused H>C OutputSpan (opcode 15): unknown opcode 15"))
		})
		It("says so when the receiver drops a frame silently", func() {
			b := compatible(false)
			b.step = "output"
			b.observe(transcript.Client, "refused", map[string]any{"direction": "H>C", "opcode": 15, "silent": true})
			fs := checks.DecoderRefusal(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(ContainSubstring("silently dropped"))
		})
		It("reports a frame without the channel's header", func() {
			b := compatible(true)
			b.frame("H>C", []byte{0x74, 1, 1})
			fs := checks.DecoderRefusal(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(ContainSubstring("shorter than the 16-byte header"))
		})
	})

	Describe("SequenceDrift", func() {
		It("shows an unexpected frame as a diff at the step it appeared", func() {
			b := compatible(true)
			b.frame("C>H", bin(11, 0, `{}`))
			fs := checks.SequenceDrift(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Step).To(Equal("output"))
			Expect(fs[0].Detail).To(ContainSubstring("+ C>H SnapshotRequest  [output]"))
			Expect(fs[0].Detail).To(ContainSubstring("C>H frames:\n  C>H Subscribe  [subscribe]\n  C>H Input  [input]\n+ C>H SnapshotRequest  [output]"))
		})
		It("leaves out a frame the receiver's contract marks periodic (a keepalive on a timer), wherever its timer fired", func() {
			b := compatible(true)
			b.frame("C>H", bin(11, 0, `{}`)) // SnapshotRequest, here a timer's
			periodic := contractJSON("v2", true, false)
			for i := range periodic.Channels[0].Frames {
				if f := &periodic.Channels[0].Frames[i]; f.Name == "SnapshotRequest" {
					f.Periodic = true
				}
			}
			Expect(checks.SequenceDrift(input(b, periodic, newer))).To(BeEmpty(), "the host receives it")
			Expect(checks.SequenceDrift(input(b, newer, newer))).To(HaveLen(1), "negative control: unmarked, it is drift")
		})
		It("shows a missing frame", func() {
			b := compatible(true)
			b.t.Frames = b.t.Frames[:len(b.t.Frames)-1]
			fs := checks.SequenceDrift(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Detail).To(ContainSubstring("- H>C OutputSpan"))
		})
		It("expects Output where the client's contract lacks OutputSpan, and flags the span", func() {
			fs := checks.SequenceDrift(input(compatible(true), newer, older))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Detail).To(ContainSubstring("- H>C Output+"))
			Expect(fs[0].Detail).To(ContainSubstring("+ H>C OutputSpan"))
		})
		It("pins frames to their steps when the frames section names steps", func() {
			stepped := `kind desktop
-- script --
step subscribe
step input
step output
-- frames --
ignore C>H Ack
step subscribe
H>C ready
C>H Subscribe
H>C subscribed
H>C SnapshotStart
H>C SnapshotChunk+
H>C SnapshotEnd
step input
C>H Input
step output
[frame:OutputSpan] H>C OutputSpan
[!frame:OutputSpan] H>C Output+
`
			j, err := journeys.Parse("s.txtar", []byte(stepped))
			Expect(err).NotTo(HaveOccurred())
			in := input(compatible(true), newer, newer)
			in.Journey = j
			Expect(checks.SequenceDrift(in)).To(BeEmpty())

			// A frame that arrived after its step settled is counted in the next step: it still
			// matches its line.
			b := compatible(true)
			b.t.Frames[6].Step = "output" // the Input frame, seen a step late
			in = input(b, newer, newer)
			in.Journey = j
			Expect(checks.SequenceDrift(in)).To(BeEmpty())

			// A frame in a step before its own is sent too early: drift.
			b = compatible(true)
			b.t.Frames[6].Step = "subscribe"
			in = input(b, newer, newer)
			in.Journey = j
			fs := checks.SequenceDrift(in)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Detail).To(ContainSubstring("+ C>H Input  [subscribe]"))
			Expect(fs[0].Detail).To(ContainSubstring("- C>H Input  [input]"))
		})
		It("tolerates the two directions interleaving differently (a race between processes)", func() {
			b := compatible(true)
			b.t.Frames[0], b.t.Frames[1] = b.t.Frames[1], b.t.Frames[0] // Subscribe before ready
			Expect(checks.SequenceDrift(input(b, newer, newer))).To(BeEmpty())
		})
		It("leaves ignored frames out", func() {
			b := compatible(true)
			b.frame("C>H", bin(13, 0, `{}`))
			Expect(checks.SequenceDrift(input(b, newer, newer))).To(BeEmpty())
		})
		It("compares a stalled journey's frames as a prefix", func() {
			b := compatible(true)
			b.t.Frames = b.t.Frames[:5]
			b.t.Steps = b.t.Steps[:2]
			b.t.Steps[1].Done = false
			b.t.Stall = &transcript.Stall{Step: "input", Barrier: "await host input"}
			Expect(checks.SequenceDrift(input(b, newer, newer))).To(BeEmpty())
		})
	})

	DescribeTable("Match",
		func(want []string, got []string, prefix, ok bool) {
			var lines []journeys.FrameLine
			for _, w := range want {
				fl := journeys.FrameLine{Dir: w[:3], Name: w[4:]}
				if q := w[len(w)-1:]; q == "+" || q == "*" || q == "?" {
					fl.Name, fl.Quant = fl.Name[:len(fl.Name)-1], q
				}
				lines = append(lines, fl)
			}
			Expect(checks.Match(lines, got, prefix)).To(Equal(ok))
		},
		Entry("exact", []string{"C>H A", "H>C B"}, []string{"C>H A", "H>C B"}, false, true),
		Entry("missing", []string{"C>H A", "H>C B"}, []string{"C>H A"}, false, false),
		Entry("missing, as prefix", []string{"C>H A", "H>C B"}, []string{"C>H A"}, true, true),
		Entry("plus takes many", []string{"H>C B+"}, []string{"H>C B", "H>C B"}, false, true),
		Entry("plus needs one", []string{"H>C B+", "C>H A"}, []string{"C>H A"}, false, false),
		Entry("star takes none", []string{"H>C B*", "C>H A"}, []string{"C>H A"}, false, true),
		Entry("optional", []string{"C>H A", "H>C B?"}, []string{"C>H A"}, false, true),
		Entry("extra", []string{"C>H A"}, []string{"C>H A", "C>H A"}, false, false),
	)

	Describe("CapabilityMismatch", func() {
		It("reports a gated frame sent without its capability echoed", func() {
			b := compatible(true)
			b.frame("C>H", bin(16, 0, `{"paused":true}`))
			fs := checks.CapabilityMismatch(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Direction).To(Equal("C>H"))
			Expect(fs[0].Frame.Name).To(Equal("SetOutputPaused"))
		})
		It("accepts it once the host echoed the capability", func() {
			b := compatible(true)
			b.observe(transcript.Client, "subscribed", map[string]any{"capabilities": map[string]any{"outputPause": 1}})
			b.frame("C>H", bin(16, 0, `{"paused":true}`))
			Expect(checks.CapabilityMismatch(input(b, newer, newer))).To(BeEmpty())
		})
		It("compares the echo with what the contracts expect", func() {
			withCaps := func(c *contract.Contract, caps ...contract.Capability) *contract.Contract {
				cp := *c
				cp.Channels = append([]contract.Channel(nil), c.Channels...)
				cp.Channels[0].Capabilities = caps
				return &cp
			}
			pause := contract.Capability{Name: "outputPause", DeclaredBy: []string{"desktop"}, Echoed: true}
			h, c := withCaps(newer, pause), withCaps(newer, pause)
			fs := checks.CapabilityMismatch(input(compatible(true), h, c))
			Expect(fs).To(HaveLen(1), "the host skipped the echo")
			Expect(fs[0].Message).To(Equal("subscribed #1 echoed nothing; the contracts expect {outputPause}"))

			b := compatible(true)
			b.t.Observations[1].Data = raw(map[string]any{"capabilities": map[string]any{"outputPause": 1}})
			Expect(checks.CapabilityMismatch(input(b, h, c))).To(BeEmpty())

			inferred := contract.Capability{Name: "outputSpan", DeclaredBy: []string{}, Echoed: true, ImpliedBy: []string{"ackOutput"}}
			acks := contract.Capability{Name: "ackOutput", DeclaredBy: []string{"desktop"}}
			want, ok := checks.ExpectedEcho(input(b, withCaps(newer, inferred), withCaps(newer, acks)))
			Expect(ok).To(BeTrue())
			Expect(want).To(Equal(map[string]bool{"outputSpan": true}), "inferred from a later capability")
			want, _ = checks.ExpectedEcho(input(b, withCaps(newer, inferred), withCaps(newer, inferred)))
			Expect(want).To(BeEmpty(), "a capability no client declares is not expected by itself")

			mobile := contract.Capability{Name: "outputPause", DeclaredBy: []string{"mobile"}, Echoed: true}
			fs = checks.CapabilityMismatch(input(b, h, withCaps(newer, mobile)))
			Expect(fs).To(HaveLen(1), "echoed a capability a desktop client never declares")
			Expect(fs[0].Detail).To(ContainSubstring("echoed but not expected: [outputPause]"))
		})
		It("treats a multiplex gate as the frame condition too", func() {
			gated := contractJSON("v3", true, true)
			fs := checks.CapabilityMismatch(input(compatible(true), gated, gated))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Frame.Name).To(Equal("OutputSpan"))
			in := input(compatible(true), gated, gated)
			Expect(checks.Conditions(in)(0, "frame:OutputSpan")).To(BeFalse())
		})
	})

	Describe("PublishedFieldRemoved", func() {
		withStart := func(start map[string]any) *builder {
			b := compatible(true)
			b.t.Frames[3].Data = bin(2, 0, string(raw(start)))
			return b
		}
		reference := func(start map[string]any) *transcript.Transcript {
			r := withStart(start).t
			r.Host = r.Client
			return r
		}
		old := map[string]any{"kind": "scrollback", "cwd": "/home", "cols": 120}
		It("reports a field the client's own host published and this host does not", func() {
			in := input(withStart(map[string]any{"kind": "scrollback", "cols": 120}), newer, newer)
			in.Reference, in.ClientOlder = reference(old), true
			fs := checks.PublishedFieldRemoved(in)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Frame.Name).To(Equal("SnapshotStart"))
			Expect(fs[0].Step).To(Equal("subscribe"))
			Expect(fs[0].Message).To(Equal("H>C SnapshotStart #1 of step subscribe no longer carries /cwd (string), which v1.0.1's own host published there"))
		})
		It("reports a field whose value class changed", func() {
			in := input(withStart(map[string]any{"kind": "scrollback", "cwd": 7, "cols": 120}), newer, newer)
			in.Reference, in.ClientOlder = reference(old), true
			fs := checks.PublishedFieldRemoved(in)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(ContainSubstring("/cwd is now number"))
		})
		It("compares nested fields by pointer", func() {
			nested := map[string]any{"kind": "scrollback", "cwd": "/home", "cols": 120, "owner": map[string]any{"name": "shell", "pid": 7}}
			in := input(withStart(map[string]any{"kind": "scrollback", "cwd": "/home", "cols": 120, "owner": map[string]any{"pid": 7}}), newer, newer)
			in.Reference, in.ClientOlder = reference(nested), true
			fs := checks.PublishedFieldRemoved(in)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(ContainSubstring("no longer carries /owner/name (string)"))
		})
		It("accepts added fields", func() {
			in := input(withStart(map[string]any{"kind": "scrollback", "cwd": "/x", "cols": 80, "terminalOwner": "shell"}), newer, newer)
			in.Reference, in.ClientOlder = reference(old), true
			Expect(checks.PublishedFieldRemoved(in)).To(BeEmpty())
		})
		It("leaves an older host's missing fields to the newer client's decoder", func() {
			b := withStart(map[string]any{"kind": "scrollback", "cols": 120})
			b.t.Host, b.t.Client = b.t.Client, b.t.Host
			in := input(b, newer, newer)
			in.Reference, in.ClientOlder = reference(old), false
			Expect(checks.PublishedFieldRemoved(in)).To(BeEmpty())
		})
		It("needs the reference", func() {
			Expect(checks.PublishedFieldRemoved(input(withStart(map[string]any{}), newer, newer))).To(BeEmpty())
		})
		It("gives the same verdict when the frame crossed into the next step, in either transcript", func() {
			for _, crossed := range []string{"", "pairing", "reference"} {
				for _, start := range []map[string]any{old, {"kind": "scrollback", "cols": 120}} {
					b := withStart(start)
					r := reference(old)
					switch crossed {
					case "pairing":
						b.t.Frames[3].Step = "input"
					case "reference":
						r.Frames[3].Step = "input"
					}
					in := input(b, newer, newer)
					in.Reference, in.ClientOlder = r, true
					if _, has := start["cwd"]; has {
						Expect(checks.PublishedFieldRemoved(in)).To(BeEmpty(), "crossed in the %s", crossed)
					} else {
						Expect(checks.PublishedFieldRemoved(in)).To(ConsistOf(HaveField("Message", ContainSubstring("no longer carries /cwd"))), "crossed in the %s", crossed)
					}
				}
			}
		})
	})

	DescribeTable("WindowViolation",
		func(hostMin, clientVersion int, refused []transcript.Role, want []string) {
			h, c := *newer, *newer
			h.Protocol = contract.Protocol{Version: 2, MinCompatible: hostMin}
			c.Protocol = contract.Protocol{Version: clientVersion, MinCompatible: 1}
			b := compatible(true)
			b.observe(transcript.Client, "session", map[string]any{"event": "server-info"})
			for _, r := range refused {
				b.observe(r, "session", map[string]any{"event": "refused-peer", "code": "incompatible_protocol"})
			}
			in := input(b, &h, &c)
			// The journey meets the window on purpose (a [window] condition).
			in.Journey.Steps[0].Commands[0].Conds = []journeys.Cond{{Name: "window"}}
			var got []string
			for _, f := range checks.WindowViolation(in) {
				got = append(got, f.Message)
			}
			Expect(got).To(HaveLen(len(want)))
			for i, w := range want {
				Expect(got[i]).To(HavePrefix(w))
			}
		},
		Entry("inside, nobody refuses", 1, 1, nil, nil),
		Entry("inside, the host refuses", 1, 1, []transcript.Role{transcript.Host}, []string{"the host refused a peer inside its protocol window"}),
		Entry("outside, both refuse", 2, 1, []transcript.Role{transcript.Host, transcript.Client}, nil),
		Entry("outside, only the client refuses", 2, 1, []transcript.Role{transcript.Client}, []string{"the host did not refuse a peer outside its protocol window"}),
		Entry("outside, nobody refuses", 2, 1, nil, []string{"the host did not refuse", "the client did not refuse"}),
	)

	DescribeTable("WindowViolation of a client that declares no protocol version, taken as the host's default",
		func(omitted, hostMin int, refused []transcript.Role, want string) {
			h, c := *newer, *newer
			h.Protocol = contract.Protocol{Version: 2, MinCompatible: hostMin, Omitted: omitted}
			c.Protocol = contract.Protocol{}
			b := compatible(true)
			for _, r := range refused {
				b.observe(r, "session", map[string]any{"event": "refused-peer", "code": "incompatible_protocol"})
			}
			in := input(b, &h, &c)
			in.Journey.Steps[0].Commands[0].Conds = []journeys.Cond{{Name: "window"}}
			Expect(checks.InWindow(in)).To(Equal(omitted >= hostMin))
			fs := checks.WindowViolation(in)
			if want == "" {
				Expect(fs).To(BeEmpty())
				return
			}
			Expect(fs).NotTo(BeEmpty())
			Expect(fs[0].Message).To(Equal(want))
		},
		Entry("inside: a default of 1, the host accepting 1", 1, 1, nil, ""),
		Entry("inside, and the host refuses", 1, 1, []transcript.Role{transcript.Host},
			"the host refused a peer inside its protocol window (host speaks protocol 2, accepting 1 and up, client speaks no protocol version, taken as 1 (the host's default for a peer that omits it), accepting 0 and up)"),
		Entry("outside: a default of 1, the host accepting 2", 1, 2, []transcript.Role{transcript.Host, transcript.Client}, ""),
		Entry("without a default the peer is outside", 0, 1, []transcript.Role{transcript.Host, transcript.Client}, ""),
	)

	It("judges the window only where the journey meets it on purpose or a side reported a refusal", func() {
		h := *newer
		h.Protocol = contract.Protocol{Version: 2, MinCompatible: 2}
		Expect(checks.WindowViolation(input(compatible(true), &h, newer))).To(BeEmpty(), "a journey that never reaches a handshake")
		b := compatible(true)
		b.observe(transcript.Client, "session", map[string]any{"event": "refused-peer"})
		fs := checks.WindowViolation(input(b, newer, newer))
		Expect(fs).To(HaveLen(1), "a refusal inside the window is judged wherever it happens")
		Expect(fs[0].Message).To(HavePrefix("the client refused a peer inside its protocol window"))
	})

	Describe("DataLoss", func() {
		It("reports input that did not reach the process byte-exact", func() {
			b := compatible(true)
			b.t.Observations = filter(b.t.Observations, func(o transcript.Observation) bool { return !(o.Role == transcript.Host && o.What == "input") })
			b.observe(transcript.Host, "input", map[string]any{"bytes": []byte("h\r")})
			fs := checks.DataLoss(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Direction).To(Equal("C>H"))
			Expect(fs[0].Message).To(Equal("stream input: what was delivered differs from what was sent (3 bytes sent, 2 delivered)"))
			Expect(fs[0].Detail).To(ContainSubstring(`sent:      "hi\r"`))
		})
		It("reports a screen that lost output", func() {
			b := compatible(true)
			b.step = "output"
			b.observe(transcript.Host, "pty-output", map[string]any{"bytes": []byte("more")})
			fs := checks.DataLoss(input(b, newer, newer))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Direction).To(Equal("H>C"))
			Expect(fs[0].Message).To(Equal("stream screen: the last delivered value differs from everything sent (13 bytes sent, 9 delivered)"))
		})
		It("reports a snapshot that changed on the way", func() {
			b := compatible(true)
			b.observe(transcript.Host, "snapshot-sent", map[string]any{"bytes": []byte("A")})
			b.observe(transcript.Client, "rendered-snapshot", map[string]any{"bytes": []byte("B"), "screen": []byte("init\r\nout")})
			fs := checks.DataLoss(input(b, newer, newer))
			Expect(kinds(fs)).To(Equal([]results.Kind{results.DataLoss}))
			Expect(fs[0].Message).To(Equal("stream snapshots: value 2 delivered differs from the one sent"))
		})
	})

	Describe("Stall and Incomplete", func() {
		It("names the stalled step, its barrier and the last frames", func() {
			b := compatible(true)
			b.t.Steps[2].Done = false
			b.t.Stall = &transcript.Stall{Step: "output", Barrier: `await client screen text="out"`}
			in := input(b, newer, newer)
			fs := checks.Stall(in)
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Step).To(Equal("output"))
			Expect(fs[0].Message).To(HavePrefix(`await client screen text="out" not reached`))
			Expect(fs[0].Detail).To(ContainSubstring("H>C OutputSpan (step output)"))
			// A frame of the teardown is named as the transcript and the timeline name it.
			b.t.Frames[len(b.t.Frames)-1].Teardown = true
			Expect(checks.Stall(input(b, newer, newer))[0].Detail).To(ContainSubstring("H>C OutputSpan (" + transcript.TeardownStep + ")"))
			inc := checks.Incomplete(in)
			Expect(inc).To(HaveLen(1))
			Expect(inc[0].Message).To(Equal("completed 2 of 3 steps; stopped at output"))
		})
		It("never passes a journey that did not run every step", func() {
			b := compatible(true)
			b.t.Steps = b.t.Steps[:1]
			Expect(kinds(checks.Run(input(b, newer, newer)))).To(ContainElement(results.IncompleteJourney))
		})
	})

	It("reports driver problems", func() {
		b := compatible(true)
		b.t.Problems = append(b.t.Problems, transcript.Problem{Role: transcript.Client, Step: "input", Message: "wrote a line that is not a driver protocol message", Detail: "oops"})
		fs := checks.DriverErrors(input(b, newer, newer))
		Expect(fs).To(ConsistOf(HaveField("Kind", results.DriverError)))
		Expect(fs[0].Message).To(HavePrefix("client driver: "))
	})

	DescribeTable("Conditions",
		func(host, client string, cond string, match types.GomegaMatcher) {
			cs := map[string]bool{"newer": true, "older": false}
			h, c := contractJSON(host, cs[host], false), contractJSON(client, cs[client], false)
			Expect(checks.Conditions(input(compatible(true), h, c))(0, cond)).To(match)
		},
		Entry("both know the frame", "newer", "newer", "frame:OutputSpan", BeTrue()),
		Entry("the client does not", "newer", "older", "frame:OutputSpan", BeFalse()),
		Entry("the host does not", "older", "newer", "frame:OutputSpan", BeFalse()),
		Entry("kind", "newer", "newer", "kind:desktop", BeTrue()),
		Entry("other kind", "newer", "newer", "kind:mobile", BeFalse()),
		Entry("capability not echoed", "newer", "newer", "cap:outputPause", BeFalse()),
	)
})

func filter(obs []transcript.Observation, keep func(transcript.Observation) bool) []transcript.Observation {
	var out []transcript.Observation
	for _, o := range obs {
		if keep(o) {
			out = append(out, o)
		}
	}
	return out
}
