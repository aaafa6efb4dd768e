package checks_test

import (
	"errors"
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// channelsContract is a contract of two channels: "a" (path /a: frames ping, and gated,
// gated on the capability fast, which the host echoes and desktop clients declare as
// declaredBy says) and "b" (path /b: frame pong). With one set, it has channel "a" only.
func channelsContract(version, declaredBy string, one bool) *contract.Contract {
	b := `,{"name":"b","paths":["/b"],"text":{"json":{"discriminator":"type"}},
	    "frames":[{"type":"pong","name":"pong","direction":"H>C","payload":"json"}]}`
	if one {
		b = ""
	}
	doc := fmt.Sprintf(`{"contractVersion":2,"product":"t","version":%q,"protocol":{"version":1,"minCompatible":1},
	  "channels":[{"name":"a","paths":["/a"],"text":{"json":{"discriminator":"type"}},
	    "capabilities":[{"name":"fast","echoed":true,"declaredBy":[%s]}],
	    "negotiation":[{"observation":"subscribed","pointer":"/capabilities"}],
	    "frames":[{"type":"ping","name":"ping","direction":"H>C","payload":"json"},
	      {"type":"gated","name":"gated","direction":"H>C","payload":"json","gates":{"*":"fast"}}]}%s]}`, version, declaredBy, b)
	c, err := contract.Parse(version, []byte(doc))
	if err != nil {
		panic(err)
	}
	return c
}

// condJourney parses a journey whose script's line 4 (the first after "step s") is line;
// header goes before the script.
func condJourney(header, line string) *journeys.Journey {
	j, err := journeys.Parse("j.txtar", []byte("kind desktop\n"+header+"-- script --\nstep s\n"+line+"\n"))
	Expect(err).NotTo(HaveOccurred())
	return j
}

var _ = Describe("a condition's channel", func() {
	var two, one *contract.Contract
	BeforeEach(func() {
		two, one = channelsContract("two", `"desktop"`, false), channelsContract("one", `"desktop"`, true)
	})
	// holds evaluates the conditions of the journey's first script line (line 4, or 5 with
	// a header line) with nothing tapped: the contracts decide.
	holds := func(j *journeys.Journey, line int, cond string, host, client *contract.Contract) bool {
		in := &checks.Input{Transcript: &transcript.Transcript{Kind: "desktop"}, Journey: j, Host: host, Client: client}
		return checks.Conditions(in)(line, cond)
	}

	It("is the contracts' one channel", func() {
		j := condJourney("", "[frame:ping] client go")
		Expect(holds(j, 4, "frame:ping", one, one)).To(BeTrue(), "before any connection")
		Expect(holds(j, 4, "frame:pong", one, one)).To(BeFalse(), "negative control: a frame the channel lacks")
	})

	It("is the channel of the path the line names", func() {
		j := condJourney("", "[frame:pong] client go path=/b")
		Expect(holds(j, 4, "frame:pong", two, two)).To(BeTrue())
		Expect(holds(j, 4, "frame:ping", two, two)).To(BeFalse(), "negative control: a frame of the other channel")
		j = condJourney("", "[frame:pong] client go path=b")
		Expect(holds(j, 4, "frame:pong", two, two)).To(BeTrue(), "a path written without its slash")
		j = condJourney("", "[frame:pong] client go path=/nowhere")
		_, err := checks.ConditionChannels(j, two)
		Expect(err).To(HaveOccurred(), "a path no contract serves decides nothing: the line is ambiguous")
	})

	It("is the journey's channel header", func() {
		j := condJourney("channel b\n", "[client-frame:pong] client go")
		Expect(holds(j, 5, "client-frame:pong", two, two)).To(BeTrue())
		Expect(holds(j, 5, "client-frame:ping", two, two)).To(BeFalse(), "negative control: a frame of the other channel")
		j = condJourney("channel b\n", "[frame:ping] client go path=/a")
		Expect(holds(j, 5, "frame:ping", two, two)).To(BeTrue(), "a line's own path wins over the header")
	})

	It("is a load error with file:line where the contracts have several and nothing decides", func() {
		j := condJourney("", "[!frame:ping] client go")
		_, err := checks.ConditionChannels(j, two)
		var se *journeys.SyntaxError
		Expect(errors.As(err, &se)).To(BeTrue())
		Expect(err).To(MatchError(`j.txtar:4: condition [!frame:ping]: which channel's frame? The contracts have the channels a, b and the line names no path: add a channel line to the journey's header (channel a or channel b)`))
		j.Frames = append(j.Frames, journeys.FrameLine{Line: 9, Conds: []journeys.Cond{{Name: "client-frame:pong"}}, Dir: "H>C", Name: "pong"})
		j.Steps[0].Commands = nil
		_, err = checks.ConditionChannels(j, two)
		Expect(err).To(MatchError(HavePrefix("j.txtar:9: condition [client-frame:pong]: which channel's frame?")), "a frames line too")
		Expect(holds(j, 9, "client-frame:pong", two, two)).To(BeFalse(), "never true by accident")

		for _, ok := range []*journeys.Journey{
			condJourney("channel a\n", "[frame:ping] client go"),
			condJourney("", "[frame:ping] client go path=/a"),
			condJourney("", "[kind:desktop] [cap:fast] [window] client go"),
		} {
			_, err := checks.ConditionChannels(ok, two)
			Expect(err).NotTo(HaveOccurred(), "negative control: decided, or no frame condition")
		}
		_, err = checks.ConditionChannels(condJourney("", "[frame:ping] client go"), one, channelsContract("one-too", `"desktop"`, true))
		Expect(err).NotTo(HaveOccurred(), "negative control: one channel among all the contracts")
		m, err := checks.ConditionChannels(condJourney("", "[command:x@1] client go"), two)
		Expect(err).NotTo(HaveOccurred(), "a command condition without a channel is about every channel")
		Expect(m).NotTo(HaveKey(4))
	})

	It("checks the channel header against the contracts", func() {
		err := checks.CheckChannel(condJourney("channel c\n", "client go"), two)
		Expect(err).To(MatchError(`j.txtar:2: channel "c" is no channel of the contracts (they have a, b): did you mean channel a?`))
		Expect(checks.CheckChannel(condJourney("channel b\n", "client go"), one, two)).To(Succeed(), "negative control: a channel of one of them")
		Expect(checks.CheckChannel(condJourney("", "client go"), two)).To(Succeed(), "negative control: no header")
	})

	It("decides a gated frame from the contracts, whatever was or was not negotiated", func() {
		j := condJourney("", "[frame:gated] client go")
		declares, not := channelsContract("d", `"desktop"`, true), channelsContract("m", `"mobile"`, true)
		Expect(holds(j, 4, "frame:gated", declares, declares)).To(BeTrue(), "echoed by the host, declared by a desktop client: nothing negotiated yet")
		Expect(holds(j, 4, "frame:gated", declares, not)).To(BeFalse(), "negative control: the client does not declare it")

		// The traffic says the opposite of the contracts: the condition does not move.
		echoed := &transcript.Transcript{Kind: "desktop",
			Conns:        []transcript.ConnEvent{{Conn: 1, Path: "/a", Event: "open"}},
			Observations: []transcript.Observation{{Role: transcript.Client, What: "subscribed", Data: raw(map[string]any{"capabilities": map[string]any{"fast": true}})}}}
		silent := &transcript.Transcript{Kind: "desktop", Conns: echoed.Conns}
		for _, t := range []*transcript.Transcript{echoed, silent} {
			Expect(checks.Conditions(&checks.Input{Transcript: t, Journey: j, Host: declares, Client: declares})(4, "frame:gated")).To(BeTrue())
			Expect(checks.Conditions(&checks.Input{Transcript: t, Journey: j, Host: declares, Client: not})(4, "frame:gated")).To(BeFalse())
		}
		Expect(checks.Conditions(&checks.Input{Transcript: echoed, Journey: j, Host: declares, Client: declares})(4, "cap:fast")).To(BeTrue(),
			"[cap:…] is what was negotiated, read from the traffic")
		Expect(checks.Conditions(&checks.Input{Transcript: silent, Journey: j, Host: declares, Client: declares})(4, "cap:fast")).To(BeFalse())
	})
})
