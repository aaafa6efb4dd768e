package harness_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/harness"
	"github.com/skewtest/skewtest/journeys"
)

var _ = Describe("Validate", func() {
	It("accepts the reference subject's journeys", func() {
		set, err := journeys.LoadSet("../examples/remoteterm", []string{"journeys/*.txtar"})
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
		Entry("tap", "tap cut", "j.txtar:4: tap takes one of drop, block or unblock (tap drop | tap block | tap unblock)"),
		Entry("idle without a duration", "idle", "j.txtar:4: idle needs for=DURATION and nothing else"),
		Entry("idle with a bad duration", "idle for=soon", "j.txtar:4: idle for=soon is not a positive duration such as 2s"),
		Entry("expect without none", "expect client output for=1s", "j.txtar:4: expect asserts an absence: it ends with none and a for=DURATION"),
		Entry("expect without for", "expect frame H>C Output none", "j.txtar:4: expect needs for=DURATION"),
		Entry("end", "end now", "j.txtar:4: end knows only expected-refusal (end expected-refusal)"),
		Entry("condition", "[capability:x] tap drop", "j.txtar:4: unknown condition [capability:x] (want cap:NAME, client-frame:NAME, command:NAME@V, frame:NAME, host-command:NAME@V, kind:K, window)"),
		Entry("condition without its argument", "[cap] tap drop", "j.txtar:4: condition [cap] needs an argument: [cap:NAME]"),
		Entry("condition with an argument it does not take", "[window:2] tap drop", "j.txtar:4: condition [window:2] takes no argument: [window]"),
		Entry("command condition without a version", "[command:review.start] tap drop",
			`j.txtar:4: condition [command:review.start]: want NAME@V (a command id and a version), not "review.start": [command:NAME@V]`),
		Entry("command condition with a version that is not a number", "[!host-command:review.start@two] tap drop",
			`j.txtar:4: condition [!host-command:review.start@two]: version "two" of review.start is not a positive number: [host-command:NAME@V]`),
	)
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
