package harness_test

import (
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
)

var _ = Describe("Validate", func() {
	It("accepts the reference subject's journeys", func() {
		set, err := journeys.LoadSet("../../../examples/remoteterm", []string{"journeys/*.txtar"})
		Expect(err).NotTo(HaveOccurred())
		for _, j := range set.All() {
			Expect(harness.Validate(j)).To(Succeed(), j.Name)
		}
	})

	DescribeTable("refuses what the vocabulary does not know, with file:line",
		func(script, want string) {
			j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep a\n"+script+"\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(j)).To(MatchError(HavePrefix(want)))
		},
		Entry("unknown verb", "wait client x", `j.txtar:4: unknown verb "wait" (want await, client, end, expect, host, idle, tap)`),
		Entry("action without a name", "client", "j.txtar:4: client needs an action name (client ACTION [key=value …])"),
		Entry("await without what", "await client", "j.txtar:4: await needs a role and what to wait for (await ROLE WHAT"),
		Entry("await frame without a direction", "await frame Unsubscribe x", "j.txtar:4: await frame needs a direction and a name"),
		Entry("await an unknown role", "await server ready", "j.txtar:4: await server: want host, client or frame"),
		Entry("await a bad count", "await frame C>H Input count=0", "j.txtar:4: count=0 is not a positive number"),
		Entry("await text and count", "await client screen text=x count=2", "j.txtar:4: text= and count= do not go together"),
		Entry("tap", "tap cut", "j.txtar:4: tap takes one of drop, block, unblock, hold DIR, release DIR, delay DIR D [jitter=J], fragment DIR N [writes=B], redeliver DIR N [after=K] or close code=N [reason=TEXT] (tap drop | tap block | tap unblock | tap hold DIR | tap release DIR | tap delay DIR D [jitter=J] | tap fragment DIR N [writes=B] | tap redeliver DIR N [after=K] | tap close code=N [reason=TEXT])"),
		Entry("tap redeliver without a count", "tap redeliver H>C", "j.txtar:4: tap redeliver takes a direction and how many messages: tap redeliver H>C 2 [after=1]"),
		Entry("tap redeliver nothing", "tap redeliver H>C 0", "j.txtar:4: tap redeliver 0 is not a count of messages (1 or more)"),
		Entry("tap redeliver after a bad count", "tap redeliver H>C 2 after=x", "j.txtar:4: tap redeliver after=x is not a count of messages (0 or more)"),
		Entry("tap fragment without a size", "tap fragment C>H", "j.txtar:4: tap fragment takes a direction and a frame size in bytes: tap fragment H>C 7 [writes=3] (0 ends it)"),
		Entry("tap fragment with a bad size", "tap fragment C>H -1", "j.txtar:4: tap fragment -1 is not a size in bytes (0 or more)"),
		Entry("tap fragment with another key", "tap fragment C>H 7 for=1", "j.txtar:4: tap fragment takes writes=B, not for"),
		Entry("tap delay without a duration", "tap delay H>C", "j.txtar:4: tap delay takes a direction and a duration: tap delay H>C 50ms [jitter=20ms] (0 ends it)"),
		Entry("tap delay too long", "tap delay C>H 11s", "j.txtar:4: tap delay 11s is not a duration from 0 to 10s, such as 50ms"),
		Entry("tap delay with a bad jitter", "tap delay C>H 5ms jitter=-1s", "j.txtar:4: tap delay -1s is not a duration from 0 to 10s, such as 50ms"),
		Entry("tap delay with another key", "tap delay C>H 5ms for=1s", "j.txtar:4: tap delay takes jitter=D, not for"),
		Entry("tap hold without a direction", "tap hold", "j.txtar:4: tap hold takes a direction and nothing else: tap hold C>H or tap hold H>C"),
		Entry("tap release with a bad direction", "tap release both", "j.txtar:4: tap release takes a direction and nothing else: tap release C>H or tap release H>C"),
		Entry("tap hold with a key", "tap hold H>C for=1s", "j.txtar:4: tap hold takes a direction and nothing else"),
		Entry("tap close without a code", "tap close reason=bye", "j.txtar:4: tap close needs code=N: the close code both peers get, such as 1012 or 4000"),
		Entry("tap close with a code no peer may send", "tap close code=1006", "j.txtar:4: tap close code=1006 is not one a peer may send: 1000 to 1003, 1007 to 1014, or 3000 to 4999"),
		Entry("tap close with a code that is not a number", "tap close code=soon", "j.txtar:4: tap close code=soon is not a number"),
		Entry("tap close with another key", "tap close code=4000 after=1s", "j.txtar:4: tap close takes code=N and reason=TEXT, not after"),
		Entry("tap close with a reason too long for a close frame", "tap close code=4000 reason="+strings.Repeat("x", 124),
			"j.txtar:4: tap close reason is 124 bytes: a close frame carries at most 123"),
		Entry("tap drop with a key", "tap drop code=4000", "j.txtar:4: tap takes one of drop, block, unblock, hold DIR, release DIR, delay DIR D [jitter=J], fragment DIR N [writes=B], redeliver DIR N [after=K] or close code=N [reason=TEXT]"),
		Entry("idle without a duration", "idle", "j.txtar:4: idle needs for=DURATION and nothing else"),
		Entry("idle with a bad duration", "idle for=soon", "j.txtar:4: idle for=soon is not a positive duration such as 2s"),
		Entry("expect without none", "expect client output for=1s", "j.txtar:4: expect asserts an absence: it ends with none and a for=DURATION"),
		Entry("expect without for", "expect frame H>C Output none", "j.txtar:4: expect needs for=DURATION"),
		Entry("end", "end now", "j.txtar:4: end knows only expected-refusal (end expected-refusal)"),
		Entry("condition", "[capability:x] tap drop", "j.txtar:4: unknown condition [capability:x] (want cap:NAME, client-frame:NAME, command:NAME@V, frame:NAME [where K=V …], host-command:NAME@V, kind:K, window)"),
		Entry("condition without its argument", "[cap] tap drop", "j.txtar:4: condition [cap] needs an argument: [cap:NAME]"),
		Entry("condition with an argument it does not take", "[window:2] tap drop", "j.txtar:4: condition [window:2] takes no argument: [window]"),
		Entry("a key await frame does not know (was ignored)", "await frame C>H PUBACK flags=0",
			"j.txtar:4: await frame C>H PUBACK does not know the key flags (it knows count=); to match what the frame carries, write await frame C>H PUBACK where flags=0"),
		Entry("a key expect frame does not know", "expect frame H>C Output seq=3 none for=1s",
			"j.txtar:4: expect frame H>C Output none does not know the key seq (it knows for=); to match what the frame carries, write expect frame H>C Output where seq=3"),
		Entry("a key end does not know", "end expected-refusal now=1", "j.txtar:4: end expected-refusal does not know the key now (it knows no key=value words)"),
		Entry("where with nothing after it", "await frame C>H PUBACK where", "j.txtar:4: where needs KEY=VALUE words after it"),
		Entry("where with a pointer that is not one", "await frame H>C result where /a~2=1", `j.txtar:4: /a~2 is not a JSON pointer: JSON pointer "/a~2": ~ must be followed by 0 or 1`),
		Entry("count= meant as a field", "await client session count=many",
			"j.txtar:4: count=many is not a positive number (count= is how many to wait for; to match a field named count, write where count=many)"),
		Entry("a frame condition's where without K=V", "[frame:PUBACK where qos] tap drop",
			`j.txtar:4: condition [frame:PUBACK where qos]: "qos" is not KEY=VALUE`),
		Entry("a frame condition with words but no where", "[frame:PUBACK qos=1] tap drop",
			`j.txtar:4: condition [frame:PUBACK qos=1]: after the frame name, want where and KEY=VALUE words, not "qos=1"`),
		Entry("command condition without a version", "[command:review.start] tap drop",
			`j.txtar:4: condition [command:review.start]: want NAME@V (a command id and a version), not "review.start": [command:NAME@V]`),
		Entry("command condition with a version that is not a number", "[!host-command:review.start@two] tap drop",
			`j.txtar:4: condition [!host-command:review.start@two]: version "two" of review.start is not a positive number: [host-command:NAME@V]`),
	)
})

var _ = Describe("CheckWhere", func() {
	mqtt, err := contract.Parse("mqtt", []byte(`{"contractVersion":2,"channels":[{"name":"mqtt","paths":["/mqtt"],
	  "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},
	    {"name":"qos","offset":0,"encoding":"u8","mask":6,"shift":1},{"name":"dup","offset":0,"encoding":"u8","mask":8,"shift":3},
	    {"name":"length","encoding":"varint"}]},"stream":true},
	  "frames":[{"opcode":3,"name":"PUBLISH","direction":"both","payload":"binary","fields":{"topic":{"offset":0,"encoding":"string-u16be"}}},
	    {"opcode":4,"name":"PUBACK","direction":"both","payload":"binary","fields":{"packetId":{"offset":0,"encoding":"u16be"}}}]}]}`))
	Expect(err).NotTo(HaveOccurred())
	b := &harness.Build{Label: "v1", Contract: mqtt}
	check := func(body string) error {
		j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep a\n"+body+"\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(j)).To(Succeed())
		return harness.CheckWhere(j, harness.WhereKeys(b), "the builds v1")
	}

	It("takes header fields, bit fields included, binary payload fields and any pointer (the control)", func() {
		Expect(check("await frame C>H PUBLISH where qos=1 dup=0 topic=a/b\nexpect frame C>H PUBACK where packetId=7 none for=1s\n[frame:PUBLISH where type=3] tap drop\nawait frame C>H PUBLISH where /anything=1")).To(Succeed())
	})

	It("refuses a bare key no contract gives the frame, at its line, naming the ones it has", func() {
		Expect(check("client x\nawait frame C>H PUBLISH where qso=1")).To(MatchError(
			`j.txtar:5: where qso=1: frame PUBLISH has no field qso in the contracts of the builds v1: did you mean qos=1? (they give it the fields dup, qos, topic, type; a JSON or protobuf payload field is named by its pointer, where /qso=1)`))
		Expect(check("[frame:PUBACK where retain=1] tap drop")).To(MatchError(ContainSubstring(`j.txtar:4: where retain=1: frame PUBACK has no field retain`)))
	})
})

var _ = Describe("CheckCommands", func() {
	known := []string{"ping", "review.start"}
	parse := func(body string) *journeys.Journey {
		j, err := journeys.Parse("j.txtar", []byte("kind session\n-- script --\nstep a\n"+body+"\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(j)).To(Succeed())
		return j
	}

	It("accepts command ids the contracts declare, in script and frames lines (the control)", func() {
		j := parse("[command:review.start@2] client call\n[!host-command:ping@1] await client session\n-- frames --\n[command:ping@1] C>H request")
		Expect(harness.CheckCommands(j, known, "the builds a, b")).To(Succeed())
	})

	DescribeTable("refuses a command id no contract declares, at its line",
		func(body, want string) {
			Expect(harness.CheckCommands(parse(body), known, "the builds a, b")).To(MatchError(want))
		},
		Entry("in a command condition", "[command:review.strat@2] client call",
			`j.txtar:4: command "review.strat" is in no contract of the builds a, b: did you mean "review.start"? (they declare ping, review.start)`),
		Entry("in a negated host-command condition", "client call\n[!host-command:board.read@1] await client session",
			`j.txtar:5: command "board.read" is in no contract of the builds a, b (they declare ping, review.start)`),
		Entry("in the frames section", "client call\n-- frames --\n[command:pnig@1] C>H request",
			`j.txtar:6: command "pnig" is in no contract of the builds a, b: did you mean "ping"? (they declare ping, review.start)`),
	)

	It("names none when no contract declares a command", func() {
		Expect(harness.CheckCommands(parse("[command:ping@1] client call"), nil, "the builds a")).To(MatchError(
			`j.txtar:4: command "ping" is in no contract of the builds a (they declare none)`))
	})
})

var _ = Describe("PartialNames", func() {
	parse := func(body string) *journeys.Journey {
		j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep a\n"+body+"\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(j)).To(Succeed())
		return j
	}
	builds := []*harness.Build{{Label: "v1", Contract: fakeContract(false)}, {Label: "v2", Contract: fakeContract(false)},
		{Label: "worktree", Contract: fakeContract(true)}, {Label: "nocontract"}}

	It("warns of a frame a journey waits for that only some builds declare, naming them and both fixes", func() {
		ws := harness.PartialNames(parse("client go\nawait frame H>C OutputSpan"), builds)
		Expect(ws).To(ConsistOf("j.txtar:5: await frame H>C OutputSpan: OutputSpan is declared only by the contracts of worktree; v1, v2 do not declare it, " +
			"so their pairings wait until the barrier times out (a stall) on every run. Put the line under [frame:OutputSpan] (it then runs only where the " +
			"pairing's contracts declare the frame), or, if those builds do send it, give them a contract that declares it with a versions: row in skewtest.yaml (docs/subject.md)"))
		ws = harness.PartialNames(parse("client go\n-- frames --\nH>C OutputSpan+"), builds)
		Expect(ws).To(ConsistOf(And(HavePrefix("j.txtar:6: frames section: OutputSpan"), ContainSubstring("lack it in the sequence (sequence-drift)"))))
	})

	DescribeTable("says nothing where the line cannot fail for want of the frame (negative controls)",
		func(body string) {
			Expect(harness.PartialNames(parse(body), builds)).To(BeEmpty())
		},
		Entry("under a frame condition", "client go\n[frame:OutputSpan] await frame H>C OutputSpan"),
		Entry("under a client-frame condition", "client go\n[client-frame:OutputSpan] await frame H>C OutputSpan"),
		Entry("an absence", "client go\nexpect frame H>C OutputSpan none for=1s"),
		Entry("an optional line of the frames section", "client go\n-- frames --\nH>C OutputSpan*"),
		Entry("a frame every contract declares", "client go\nawait frame H>C Output\n-- frames --\nH>C Output"),
	)
})

var _ = Describe("CheckNames and CheckActions", func() {
	known := []string{"Input", "Output", "Subscribe", "hello"}
	parse := func(body string) *journeys.Journey {
		j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep a\n"+body+"\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(j)).To(Succeed())
		return j
	}

	It("accepts frame names the contracts know, wherever a journey names a frame (the control)", func() {
		j := parse("[frame:Output] client go\n[!client-frame:Input] await frame C>H Input\nexpect frame H>C Output none for=1s\n" +
			"-- frames --\nignore H>C hello\nC>H Subscribe\n[frame:Output] H>C Output+")
		Expect(harness.CheckNames(j, known, "the builds a, b")).To(Succeed())
	})

	DescribeTable("refuses a frame name no contract knows, at its line, with the nearest name",
		func(body, want string) {
			Expect(harness.CheckNames(parse(body), known, "the builds a, b")).To(MatchError(HavePrefix(want)))
		},
		Entry("in a condition", "[frame:Outptu] client go", `j.txtar:4: frame "Outptu" is in no contract of the builds a, b: did you mean "Output"?`),
		Entry("in a client-frame condition", "[client-frame:Inptu] client go", `j.txtar:4: frame "Inptu" is in no contract of the builds a, b: did you mean "Input"?`),
		Entry("in await frame", "await frame C>H Subscrbe", `j.txtar:4: frame "Subscrbe" is in no contract of the builds a, b: did you mean "Subscribe"?`),
		Entry("in expect frame", "expect frame H>C Ouptut none for=1s", `j.txtar:4: frame "Ouptut"`),
		Entry("in the frames section", "client go\n-- frames --\nC>H Subscribe\nH>C Outputt", `j.txtar:7: frame "Outputt"`),
		Entry("in an ignore line", "client go\n-- frames --\nignore H>C helo", `j.txtar:6: frame "helo"`),
		Entry("far from every name: no guess", "await frame C>H Resized", `j.txtar:4: frame "Resized" is in no contract of the builds a, b (they know Input, Output, Subscribe, hello)`),
	)

	It("checks the actions a journey sends a role against what that role's driver announced", func() {
		j := parse("client subscribe\nhost emit-output\nclient inptu")
		Expect(harness.CheckActions(j, "client", "desktop client worktree", []string{"subscribe", "input"})).To(MatchError(
			`j.txtar:6: client action "inptu": the desktop client worktree driver does not announce it in its hello (it announces subscribe, input)`))
		Expect(harness.CheckActions(j, "host", "host worktree", []string{"emit-output"})).To(Succeed(), "control: the host's actions are the host's")
		Expect(harness.CheckActions(j, "client", "desktop client worktree", nil)).To(Succeed(), "a driver that announces nothing is not checked")
	})

	It("leaves a line with conditions to the pairings where they hold", func() {
		j := parse("client subscribe\n[cap:pausing] client pause")
		Expect(harness.CheckActions(j, "client", "mobile client worktree", []string{"subscribe"})).To(Succeed())
		j = parse("client subscribe\nclient pause")
		Expect(harness.CheckActions(j, "client", "mobile client worktree", []string{"subscribe"})).To(MatchError(ContainSubstring(`client action "pause"`)), "control: unconditioned, it is checked")
	})
})
