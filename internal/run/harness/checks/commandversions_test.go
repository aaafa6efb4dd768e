package checks_test

import (
	"fmt"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// sessionContract is a session channel whose requests carry their command at /command and
// its version at /version (calls); commands is its commands array. Without calls the
// contract says nothing of where a request names its command.
func sessionContract(version, commands string, calls bool) *contract.Contract {
	c := ""
	if calls {
		c = `"calls": {"frames": ["request"], "command": "/command", "version": "/version"},`
	}
	doc := fmt.Sprintf(`{"contractVersion": 2, "version": %q, "protocol": {"version": 1, "minCompatible": 1},
	  "channels": [{"name": "session", "paths": ["/session"], "text": {"json": {"discriminator": "type"}}, %s
	    "commands": %s,
	    "frames": [
	      {"type": "request", "name": "request", "direction": "C>H", "payload": "json"},
	      {"type": "response", "name": "response", "direction": "H>C", "payload": "json"}]}]}`, version, c, commands)
	k, err := contract.Parse(version, []byte(doc))
	if err != nil {
		panic(err)
	}
	return k
}

// requests is a session transcript: step "call" sends each request and gets its response.
func requests(reqs ...map[string]any) *builder {
	b := &builder{t: &transcript.Transcript{Kind: "session",
		Host: transcript.Build{Label: "v1.0.2"}, Client: transcript.Build{Label: "v1.0.1"}}}
	b.t.Conns = []transcript.ConnEvent{{Conn: 1, Path: "/session", Event: "open"}}
	b.begin("call")
	for i, r := range reqs {
		id := fmt.Sprintf("r%d", i+1)
		r["type"], r["requestId"], r["input"] = "request", id, map[string]any{}
		b.session("C>H", r).session("H>C", map[string]any{"type": "response", "requestId": id, "output": map[string]any{}})
	}
	return b.done()
}

// session adds a text frame on /session.
func (b *builder) session(dir string, v any) *builder {
	b.t.Frames = append(b.t.Frames, transcript.Frame{Index: len(b.t.Frames) + 1, Conn: 1, Path: "/session", Dir: dir, Data: raw(v), Step: b.step})
	return b
}

func call(command string, version any) map[string]any {
	r := map[string]any{"command": command}
	if version != nil {
		r["version"] = version
	}
	return r
}

var _ = Describe("CommandVersions", func() {
	const (
		one = `[{"id": "ping", "versions": [1]}, {"id": "review.start", "versions": [1]}]`
		two = `[{"id": "ping", "versions": [1]}, {"id": "review.start", "versions": [1, 2]}]`
	)

	DescribeTable("passes requests sent at a version both builds speak, and single-version commands sent without one",
		func(host, client string, reqs ...map[string]any) {
			in := input(requests(reqs...), sessionContract("v1.0.2", host, true), sessionContract("v1.0.1", client, true))
			Expect(checks.CommandVersions(in)).To(BeEmpty())
			Expect(checks.Run(in)).NotTo(ContainElement(HaveField("Kind", results.CommandVersionMismatch)))
		},
		Entry("the highest version both speak", two, two, call("review.start", 2), call("ping", 1)),
		Entry("an older version both still speak", two, two, call("review.start", 1)),
		Entry("a newer host, the version the older client speaks", two, one, call("review.start", 1)),
		Entry("single-version commands sent without a version (legacy send sites)", one, one, call("ping", nil), call("review.start", nil)),
		Entry("a version of null is no version", one, one, call("ping", nil), map[string]any{"command": "ping", "version": nil}),
		Entry("a command neither build lists (the peer answers it as unknown)", two, two, call("no.such.command", 1), call("no.such.command", nil)),
	)

	It("reports a multi-version command sent without a version: the negative control", func() {
		b := requests(call("ping", nil), call("review.start", nil), call("review.start", nil))
		in := input(b, sessionContract("v1.0.2", two, true), sessionContract("v1.0.1", one, true))
		fs := checks.CommandVersions(in)
		Expect(fs).To(HaveLen(1))
		f := fs[0]
		Expect(f.Kind).To(Equal(results.CommandVersionMismatch))
		Expect(f.Step).To(Equal("call"))
		Expect(f.Direction).To(Equal("C>H"))
		Expect(f.Frame).To(Equal(&results.Frame{Type: "request", Name: "request"}))
		Expect(f.Message).To(Equal("C>H request calls review.start without a version (encoded implicitly), but the command has more than one version " +
			"(host v1.0.2 speaks versions 1, 2; session client v1.0.1 speaks version 1): send it at a version both builds speak, 2 times"))
		Expect(kinds(checks.Run(in))).To(ContainElement(results.CommandVersionMismatch), "All runs it")
	})

	DescribeTable("reports a version one of the builds does not speak",
		func(host, client string, r map[string]any, want string) {
			fs := checks.CommandVersions(input(requests(r), sessionContract("v1.0.2", host, true), sessionContract("v1.0.1", client, true)))
			Expect(fs).To(HaveLen(1))
			Expect(fs[0].Message).To(Equal(want))
		},
		Entry("the newer client's version to an older host", one, two, call("review.start", 2),
			"C>H request calls review.start at version 2, which host v1.0.2 does not speak (host v1.0.2 speaks version 1; session client v1.0.1 speaks versions 1, 2): send it at a version both builds speak"),
		Entry("a version neither speaks", two, two, call("review.start", 3),
			"C>H request calls review.start at version 3, which host v1.0.2 and session client v1.0.1 do not speak (host v1.0.2 speaks versions 1, 2; session client v1.0.1 speaks versions 1, 2): send it at a version both builds speak"),
		Entry("a single-version command at a version the host lacks", one, one, call("ping", 2),
			"C>H request calls ping at version 2, which host v1.0.2 and session client v1.0.1 do not speak (host v1.0.2 speaks version 1; session client v1.0.1 speaks version 1): send it at a version both builds speak"),
		Entry("a command only the client lists", one, strings.TrimSuffix(one, "]")+`, {"id": "review.comment", "versions": [1]}]`, call("review.comment", 1),
			"C>H request calls review.comment at version 1, which host v1.0.2 does not speak (host v1.0.2 does not list the command; session client v1.0.1 speaks version 1): send it at a version both builds speak"),
		Entry("a version that is not a number", two, two, call("review.start", "2"),
			`C>H request calls review.start at version "2", which host v1.0.2 and session client v1.0.1 do not speak (host v1.0.2 speaks versions 1, 2; session client v1.0.1 speaks versions 1, 2): send it at a version both builds speak`),
	)

	It("reads where a request carries its command from the sender's contract, else the receiver's, and judges nothing without calls", func() {
		b := requests(call("review.start", nil))
		Expect(checks.CommandVersions(input(b, sessionContract("v1.0.2", two, false), sessionContract("v1.0.1", two, true)))).To(HaveLen(1))
		Expect(checks.CommandVersions(input(b, sessionContract("v1.0.2", two, true), sessionContract("v1.0.1", two, false)))).To(HaveLen(1))
		Expect(checks.CommandVersions(input(b, sessionContract("v1.0.2", two, false), sessionContract("v1.0.1", two, false)))).To(BeEmpty())
	})
})
