package checks_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// commandsContract is a one-channel session contract (path /session) that declares the
// given commands, a JSON array of {"id","versions"}.
func commandsContract(version, commands string) *contract.Contract {
	doc := fmt.Sprintf(`{"contractVersion":2,"product":"t","version":%q,"protocol":{"version":1,"minCompatible":1},
	  "channels":[{"name":"session","paths":["/session"],"text":{"json":{"discriminator":"type"}},
	  "commands":%s,
	  "frames":[{"type":"request","name":"request","direction":"C>H","payload":"json"},
	    {"type":"response","name":"response","direction":"H>C","payload":"json"}]}]}`, version, commands)
	c, err := contract.Parse(version, []byte(doc))
	if err != nil {
		panic(err)
	}
	return c
}

// commandCase is one evaluation of a command condition.
type commandCase struct {
	host, client string // the builds' commands
	path         string // the path the condition's line names ("" none)
	cond         string
	holds        bool
}

var _ = Describe("command conditions", func() {
	const (
		v1     = `[{"id":"ping","versions":[1]},{"id":"review.start","versions":[1]}]`
		v12    = `[{"id":"ping","versions":[1]},{"id":"review.start","versions":[1,2]}]`
		noneAt = `[{"id":"ping","versions":[1]}]`
	)

	DescribeTable("hold when the contracts declare the version",
		func(c commandCase) {
			line := "[" + c.cond + "] client call"
			if c.path != "" {
				line += " path=" + c.path
			}
			j, err := journeys.Parse("j.txtar", []byte("kind session\n-- script --\nstep s\n"+line+"\n"))
			Expect(err).NotTo(HaveOccurred())
			// No connection was tapped: the contracts and the line decide.
			t := &transcript.Transcript{Kind: "session"}
			in := &checks.Input{Transcript: t, Journey: j, Host: commandsContract("h", c.host), Client: commandsContract("c", c.client)}
			Expect(checks.Conditions(in)(4, c.cond)).To(Equal(c.holds))
		},
		Entry("both declare review.start 2", commandCase{host: v12, client: v12, path: "/session", cond: "command:review.start@2", holds: true}),
		Entry("the client lacks version 2", commandCase{host: v12, client: v1, path: "/session", cond: "command:review.start@2", holds: false}),
		Entry("the host lacks version 2", commandCase{host: v1, client: v12, path: "/session", cond: "command:review.start@2", holds: false}),
		Entry("both declare version 1, one also 2", commandCase{host: v1, client: v12, path: "/session", cond: "command:review.start@1", holds: true}),
		Entry("one lacks the command", commandCase{host: v12, client: noneAt, path: "/session", cond: "command:review.start@1", holds: false}),
		Entry("a version neither declares", commandCase{host: v12, client: v12, path: "/session", cond: "command:review.start@3", holds: false}),
		Entry("a line that names no path, on the contracts' one channel", commandCase{host: v12, client: v12, cond: "command:review.start@2", holds: true}),
		Entry("a path= value no channel serves is no wire path: the contracts' one channel", commandCase{host: v12, client: v12, path: "/terminal.multiplex", cond: "command:review.start@2", holds: true}),
		Entry("the host declares it, the client does not", commandCase{host: v12, client: v1, path: "/session", cond: "host-command:review.start@2", holds: true}),
		Entry("the client declares it, the host does not", commandCase{host: v1, client: v12, path: "/session", cond: "host-command:review.start@2", holds: false}),
	)

	It("are left out of a journey's expected frames where one build lacks the version", func() {
		j, err := journeys.Parse("j.txtar", []byte("kind session\n-- script --\nstep s\nclient call\n-- frames --\n[command:review.start@2] C>H request\n[!command:review.start@2] H>C response\n"))
		Expect(err).NotTo(HaveOccurred())
		t := &transcript.Transcript{Kind: "session", Conns: []transcript.ConnEvent{{Conn: 1, Path: "/session", Event: "open"}}}
		both := checks.Expected(&checks.Input{Transcript: t, Journey: j, Host: commandsContract("h", v12), Client: commandsContract("c", v12)})
		Expect(both).To(ConsistOf(HaveField("Name", "request")))
		one := checks.Expected(&checks.Input{Transcript: t, Journey: j, Host: commandsContract("h", v1), Client: commandsContract("c", v12)})
		Expect(one).To(ConsistOf(HaveField("Name", "response")))
	})

	DescribeTable("are checked as written",
		func(name string, wantErr string) {
			err := checks.CheckCondition(journeys.Cond{Name: name})
			if wantErr == "" {
				Expect(err).NotTo(HaveOccurred())
				return
			}
			Expect(err).To(MatchError(ContainSubstring(wantErr)))
		},
		Entry("a command and a version", "command:review.start@2", ""),
		Entry("host-command likewise", "host-command:workspace.open@1", ""),
		Entry("no version", "command:review.start", "want NAME@V"),
		Entry("no command", "command:@2", "want NAME@V"),
		Entry("version zero", "command:review.start@0", `version "0" of review.start is not a positive number`),
		Entry("a version that is not a number", "host-command:review.start@v2", `version "v2" of review.start is not a positive number`),
		Entry("no argument", "command", "needs an argument: [command:NAME@V]"),
	)
})
