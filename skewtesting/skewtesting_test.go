package skewtesting_test

import (
	"os/exec"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/results"
	"github.com/skewtest/skewtest/skewtesting"
)

func pairing(host, client string, status results.Status, fs ...results.Finding) *results.Pairing {
	return &results.Pairing{Host: host, Client: client, ClientKind: "desktop", Journey: "terminal", Status: status, Findings: fs,
		Repro: "skewtest repro --host " + host + " --client " + client}
}

var _ = Describe("skew tests in go test", func() {
	refusal := results.Finding{Kind: results.DecoderRefusal, Step: "spans", Message: "client refused opcode 15", Detail: "C>H frame 12"}

	It("passes a compatible run and fails one with a finding, an error or a flaky pairing, with repro lines", func() {
		ok := &results.Run{Pairings: []*results.Pairing{pairing("worktree", "v1", results.StatusPass),
			pairing("v1", "v1", results.StatusExpectedRefusal)}}
		Expect(skewtesting.Failures(ok)).To(BeEmpty())
		Expect(ok).To(skewtesting.BeCompatible())

		bad := &results.Run{Pairings: []*results.Pairing{pairing("worktree", "v1", results.StatusPass), pairing("v2", "v1", results.StatusFail, refusal)}}
		Expect(skewtesting.Failures(bad)).To(Equal([]string{
			"host v2 × desktop client v1 · terminal: decoder-refusal in step spans: client refused opcode 15\nC>H frame 12\nrepro: skewtest repro --host v2 --client v1"}))
		Expect(bad).NotTo(skewtesting.BeCompatible())
		m := skewtesting.BeCompatible()
		_, _ = m.Match(bad)
		Expect(m.FailureMessage(bad)).To(ContainSubstring("1 failure(s)"))
		Expect(m.FailureMessage(bad)).To(ContainSubstring("repro: skewtest repro --host v2 --client v1"))

		errored := pairing("v2", "v1", results.StatusError)
		errored.Error = "build v2: go: not found"
		flaky := pairing("v3", "v1", results.StatusFlaky)
		flaky.Attempts = []results.Status{results.StatusFail, results.StatusPass}
		fs := skewtesting.Failures(&results.Run{Pairings: []*results.Pairing{errored, flaky}})
		Expect(fs).To(HaveLen(2))
		Expect(fs[0]).To(HavePrefix("host v2 × desktop client v1 · terminal: error: build v2: go: not found\nrepro: "))
		Expect(fs[1]).To(ContainSubstring("flaky: its attempts disagreed ([fail pass])"))
	})

	It("fails on a static finding unless skewtest.yaml allows it", func() {
		violation := results.Finding{Kind: results.ContractViolation, Message: "v1 → worktree: field-removed"}
		Expect(&results.Run{Findings: []results.Finding{violation}}).NotTo(skewtesting.BeCompatible())
		violation.Allowed = "skewtest.yaml:3: reviewed"
		Expect(&results.Run{Findings: []results.Finding{violation}}).To(skewtesting.BeCompatible())
	})

	It("fails on a recorded frame of an earlier release that the working tree refuses (the fixture tier)", func() {
		refusal := results.Finding{Kind: results.DecoderRefusal, Message: "desktop client worktree refused H>C OutputSpan (message 14 of fixture v1/desktop-terminal.json.gz)"}
		run := &results.Run{Fixtures: &results.Fixtures{Recordings: 1, Findings: []results.Finding{refusal}}}
		Expect(run).NotTo(skewtesting.BeCompatible())
		Expect(skewtesting.Failures(run)).To(ConsistOf(HavePrefix("fixtures: decoder-refusal: desktop client worktree refused")))
		Expect(&results.Run{Fixtures: &results.Fixtures{Recordings: 1}}).To(skewtesting.BeCompatible())
	})

	It("refuses what is not a run", func() {
		_, err := skewtesting.BeCompatible().Match("a string")
		Expect(err).To(MatchError(ContainSubstring("expects a *results.Run")))
		var none *results.Run
		_, err = skewtesting.BeCompatible().Match(none)
		Expect(err).To(HaveOccurred())
	})

	It("makes each pairing a subtest of go test, failed with its finding and repro line", func(ctx SpecContext) {
		cmd := exec.CommandContext(ctx, "go", "test", "-count=1", "-v", "./testdata/subtests")
		out, err := cmd.CombinedOutput()
		Expect(err).To(HaveOccurred(), "the failing pairing fails go test:\n%s", out)
		text := string(out)
		Expect(text).To(ContainSubstring("--- PASS: TestReport/host_worktree_×_desktop_client_v1.4.190_·_terminal"))
		Expect(text).To(ContainSubstring("--- FAIL: TestReport/host_v1.4.190_×_desktop_client_v1.4.120_·_terminal"))
		Expect(text).To(ContainSubstring("decoder-refusal in step spans: client refused opcode 15 (OutputSpan)"))
		Expect(text).To(ContainSubstring("repro: skewtest repro --repo /tmp/rt --host v1.4.190 --client v1.4.120 --kind desktop --journey terminal --seed 7"))
		Expect(strings.Count(text, "contract-check")).To(BeZero(), "an allowed static finding fails nothing")
	}, SpecTimeout(5*60e9))
})
