package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/results"
)

// rpcContract is the contract of the contract subject's releases from v1.2.0 on.
const rpcContract = `{
  "contractVersion": 2, "product": "tiny",
  "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{
    "name": "rpc", "paths": ["/rpc"],
    "text": {"json": {"discriminator": "type"}},
    "frames": [
      {"type": "hello", "name": "hello", "direction": "both"},
      {"type": "ping", "name": "ping", "direction": "C>H"},
      {"type": "pong", "name": "pong", "direction": "H>C", "fields": {
        "n": {"type": "integer"}}}
    ]
  }]
}
`

// withoutPing is rpcContract without the ping frame: v1.3.0 drops it.
var withoutPing = strings.Replace(rpcContract, `      {"type": "ping", "name": "ping", "direction": "C>H"},`+"\n", "", 1)

// newContractSubject is a tiny subject whose history has contracts worth diffing: v1.0.0
// and v1.1.0 with no channel, v1.2.0 with the rpc channel, v1.3.0 without its ping frame,
// and a working tree (uncommitted) that makes pong's n required. Its driver prints the
// working tree's committed contract when asked (contractCommand).
func newContractSubject() *tinySubject {
	GinkgoHelper()
	s := newTinySubject("")
	s.write("skewtest.yaml", "product: tiny\ncontract: contract.json\nbuild:\n  steps: ['cp driver.sh \"$SKEWTEST_OUT/driver\" && chmod +x \"$SKEWTEST_OUT/driver\"']\n"+
		"drivers:\n  host: [./driver, host]\n  clients: {desktop: [./driver, client]}\njourneys: [tiny.txtar]\n"+
		"contractCommand: [./driver, contract]\n")
	s.write("contract.json", rpcContract)
	s.tag("v1.2.0", s.commit("v1.2.0"))
	s.write("contract.json", withoutPing)
	s.tag("v1.3.0", s.commit("v1.3.0"))
	s.write("contract.json", strings.Replace(withoutPing, `"n": {"type": "integer"}`, `"n": {"type": "integer", "required": true}`, 1))
	return s
}

// speaks makes the subject's driver print doc as the contract its code speaks.
func (s *tinySubject) speaks(doc string) {
	GinkgoHelper()
	s.write("driver.sh", "#!/bin/sh\nif [ \"$1\" = contract ]; then cat <<'EOF'\n"+doc+"EOF\nexit 0; fi\nexit 1\n")
}

// line is the 1-based line of doc holding text.
func line(doc, text string) int {
	GinkgoHelper()
	i := strings.Index(doc, text)
	Expect(i).To(BeNumerically(">=", 0))
	return 1 + strings.Count(doc[:i], "\n")
}

var _ = Describe("skewtest contract", func() {
	Describe("diff", func() {
		It("diffs two refs read from git objects: file:line: rule: message, exit 1", func(ctx SpecContext) {
			s := newContractSubject()
			code, out := cli(ctx, "contract", "diff", "--repo", s.dir, "v1.2.0", "v1.3.0")
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring(`v1.2.0:contract.json:%d: frame-removed: rpc: C>H ping (type "ping") is gone: older builds still send or expect it`, line(rpcContract, `"ping"`)))
			Expect(out).To(HaveSuffix("v1.2.0 → v1.3.0: 1 violation\n"))

			code, out = cli(ctx, "contract", "diff", "v1.1.0", "v1.2.0", "--repo", s.dir)
			Expect(code).To(Equal(exitOK), "flags may follow the contracts")
			Expect(out).To(ContainSubstring("v1.1.0 → v1.2.0: compatible"))
		})

		It("diffs the working tree, with its uncommitted changes, and REF:PATH", func(ctx SpecContext) {
			s := newContractSubject()
			code, out := cli(ctx, "contract", "diff", "--repo", s.dir, "v1.3.0:contract.json", "worktree")
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring("%s:%d: field-made-required: rpc: pong (type \"pong\"): field n was optional and is now required",
				filepath.Join(s.dir, "contract.json"), line(withoutPing, `"n"`)))
		})

		It("diffs contract files, and allows a rule when told", func(ctx SpecContext) {
			dir := GinkgoT().TempDir()
			older, newer := filepath.Join(dir, "old.json"), filepath.Join(dir, "new.json")
			Expect(os.WriteFile(older, []byte(rpcContract), 0o644)).To(Succeed())
			Expect(os.WriteFile(newer, []byte(withoutPing), 0o644)).To(Succeed())
			code, out := cli(ctx, "contract", "diff", older, newer)
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring("%s:%d: frame-removed: ", older, line(rpcContract, `"ping"`)))

			code, _ = cli(ctx, "contract", "diff", "--allow", "frame-removed@/channels/0/frames/1", older, newer)
			Expect(code).To(Equal(exitOK))
			code, _ = cli(ctx, "contract", "diff", newer, older)
			Expect(code).To(Equal(exitOK), "adding a frame is compatible")
		})

		DescribeTable("refuses bad input with exit 2",
			func(ctx SpecContext, args []string, want string) {
				s := newContractSubject()
				bad := filepath.Join(s.dir, "bad.json")
				Expect(os.WriteFile(bad, []byte("{\"contractVersion\": 2,\n  \"channels\": [{\"name\": \"x\",\n  \"pathz\": []}]}\n"), 0o644)).To(Succeed())
				args = append([]string{"contract", "diff", "--repo", s.dir}, args...)
				for i, a := range args {
					args[i] = strings.NewReplacer("BAD", bad, "DIR", GinkgoT().TempDir()).Replace(a)
				}
				code, out := cli(ctx, args...)
				Expect(code).To(Equal(exitUsage))
				Expect(out).To(ContainSubstring(want))
			},
			Entry("an invalid contract, with file and line", []string{"BAD", "worktree"}, `bad.json: line 3: /channels/0/pathz: unknown key "pathz"`),
			Entry("an unknown ref", []string{"v9.9.9", "worktree"}, `"v9.9.9": no such file, and not a tag, branch or commit of `),
			Entry("N26: a contract file that does not exist (was go-git's \"Revision invalid : must not start with \"/\"\")", []string{"/nope/old.json", "worktree"},
				`"/nope/old.json": no such file, and not a tag, branch or commit of `),
			Entry("N26: the words that say how to name a contract", []string{"worktree", "/nope/new.json"},
				`name a contract by its file's path, worktree (the working tree's), a tag, branch or commit of --repo, or REF:PATH`),
			Entry("a directory", []string{"worktree", "DIR"}, `: a directory, not a file, and not a tag, branch or commit of `),
			Entry("a path of a ref that is not one", []string{"/nope:contract.json", "worktree"}, "not a tag, branch or commit; `skewtest pins --last 100` lists the release tags"),
			Entry("a path a ref does not have", []string{"v1.2.0:nope.json", "worktree"}, "no contract: v1.2.0:nope.json does not exist"),
			Entry("one contract", []string{"v1.2.0"}, "contract diff: want OLD and NEW, got 1 argument(s)"),
			Entry("an unknown rule", []string{"--allow", "frame-gone", "v1.2.0", "v1.3.0"}, `unknown rule "frame-gone"`),
		)
	})

	Describe("check", func() {
		It("diffs every adjacent pair of stable tags and each pin against the working tree", func(ctx SpecContext) {
			s := newContractSubject()
			code, out := cli(ctx, "contract", "check", "--repo", s.dir)
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring("v1.0.0 → v1.1.0: compatible\nv1.1.0 → v1.2.0: compatible\nv1.2.0 → v1.3.0: 1 violation\n"))
			Expect(out).To(ContainSubstring("v1.2.0:contract.json:%d: frame-removed: ", line(rpcContract, `"ping"`)))
			Expect(out).To(ContainSubstring("v1.3.0 → worktree: 1 violation\n"))
			Expect(out).To(ContainSubstring(": field-made-required: "))
			Expect(out).To(HaveSuffix("checked 3 stable tag pairs and 1 pin against the working tree: 2 violations in 2 pairs\n"))
			Expect(out).NotTo(ContainSubstring("rc.1"), "pre-releases are not in the history")
		})

		It("allows a rule for one pair, and checks history from a tag on", func(ctx SpecContext) {
			s := newContractSubject()
			code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--allow", "v1.2.0..v1.3.0:frame-removed", "--allow", "field-made-required")
			Expect(code).To(Equal(exitOK))
			Expect(out).To(HaveSuffix("checked 3 stable tag pairs and 1 pin against the working tree: compatible\n"))

			code, out = cli(ctx, "contract", "check", "--repo", s.dir, "--allow", "v1.1.0..v1.2.0:frame-removed", "--pins", "v1.2.0")
			Expect(code).To(Equal(exitFindings), "the allowance is for another pair")
			Expect(out).To(ContainSubstring("v1.2.0 → worktree: 2 violations"))

			code, out = cli(ctx, "contract", "check", "--repo", s.dir, "--since", "v1.3.0", "--allow", "field-made-required")
			Expect(code).To(Equal(exitOK))
			Expect(out).To(Equal("v1.3.0 → worktree: compatible\nchecked 0 stable tag pairs and 1 pin against the working tree: compatible\n"))
		})

		It("says which pairs it could not check", func(ctx SpecContext) {
			s := newContractSubject()
			s.write("contract.json", `{"contractVersion": 7}`)
			s.tag("v1.4.0", s.commit("v1.4.0"))
			s.write("contract.json", withoutPing)
			code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--since", "v1.3.0", "--pins", "v1.4.0")
			Expect(code).To(Equal(exitOK))
			Expect(out).To(ContainSubstring("v1.3.0 → v1.4.0: not checked: v1.4.0:contract.json: line 1: contractVersion 7: unsupported contract version"))
			Expect(out).To(ContainSubstring("v1.4.0 → worktree: not checked:"))
			Expect(out).To(HaveSuffix("checked 1 stable tag pair and 1 pin against the working tree: compatible (2 pairs not checked)\n"))
		})

		It("refuses a working tree whose contract is invalid", func(ctx SpecContext) {
			s := newContractSubject()
			s.write("contract.json", "{\"contractVersion\": 2,\n \"protocol\": 1}\n")
			code, out := cli(ctx, "contract", "check", "--repo", s.dir)
			Expect(code).To(Equal(exitUsage))
			Expect(out).To(ContainSubstring("contract.json: line 2: /protocol: want an object"))
		})

		It("says what a contract leaves undecided as warnings, which fail nothing: where a tag brought them, and all of the working tree's", func(ctx SpecContext) {
			s := newContractSubject()
			// v1.4.0 adds a frame only desktop clients know, and says nothing of mobile ones.
			kinds := strings.Replace(strings.Replace(withoutPing, `"paths": ["/rpc"],`, `"paths": ["/rpc"], "clientKinds": ["desktop", "mobile"],`, 1),
				`      {"type": "pong"`, `      {"type": "bell", "name": "bell", "direction": "H>C", "kinds": ["desktop"]},`+"\n"+`      {"type": "pong"`, 1)
			s.write("contract.json", kinds)
			s.tag("v1.4.0", s.commit("v1.4.0"))
			warning := `contract.json:%d: warning: frame-kind-undecided: rpc: H>C bell (type "bell") says nothing about mobile clients: the host may send it to a decoder that drops it`

			code, out := cli(ctx, "contract", "check", "--repo", s.dir, "--since", "v1.3.0")
			Expect(code).To(Equal(exitOK), out)
			Expect(out).To(Equal("v1.3.0 → v1.4.0: compatible\n" +
				"v1.4.0:" + fmt.Sprintf(warning, line(kinds, `"bell"`)) + ". Say which: list the kind in \"kinds\" (it decodes the frame), gate the frame, or add it to \"never\" (the host never sends it there)\n" +
				"v1.4.0 → worktree: compatible\n" +
				filepath.Join(s.dir, fmt.Sprintf(warning, line(kinds, `"bell"`))) + ". Say which: list the kind in \"kinds\" (it decodes the frame), gate the frame, or add it to \"never\" (the host never sends it there)\n" +
				"checked 1 stable tag pair and 1 pin against the working tree: compatible\n"))

			code, out = cli(ctx, "contract", "diff", "--repo", s.dir, "v1.3.0", "worktree")
			Expect(code).To(Equal(exitOK), out)
			Expect(out).To(ContainSubstring(filepath.Join(s.dir, fmt.Sprintf(warning, line(kinds, `"bell"`)))))

			var buf bytes.Buffer
			Expect(openSubject(s.dir).Warnings(&buf)).To(Succeed())
			Expect(buf.String()).To(HavePrefix(filepath.Join(s.dir, fmt.Sprintf(warning, line(kinds, `"bell"`)))), "run's static tier says them too")

			s.write("contract.json", strings.Replace(kinds, `"kinds": ["desktop"]}`, `"kinds": ["desktop"], "never": ["mobile"]}`, 1))
			code, out = cli(ctx, "contract", "check", "--repo", s.dir, "--since", "v1.4.0")
			Expect(code).To(Equal(exitOK), out)
			Expect(out).To(Equal("v1.4.0 → worktree: compatible\nchecked 0 stable tag pairs and 1 pin against the working tree: compatible\n"), "never decides it")
		})

		It("gives run the working tree against its pins as findings", func(ctx SpecContext) {
			s := newContractSubject()
			sel, err := pins.Resolve(ctx, s.dir, pins.Options{Refs: pins.Refs("", "v1.2.0", "v1.3.0")})
			Expect(err).NotTo(HaveOccurred())
			fs, err := openSubject(s.dir).StaticCheck(ctx, sel.Pins, nil, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(fs).To(HaveLen(3))
			Expect(fs[0].Kind).To(Equal(results.ContractViolation))
			Expect(fs[0].Message).To(HavePrefix(`v1.2.0 → worktree: frame-removed: rpc: C>H ping (type "ping") is gone`))
			Expect(fs[0].Detail).To(Equal("v1.2.0:contract.json:" + strconv.Itoa(line(rpcContract, `"ping"`)) + "\n/channels/0/frames/1 in the contract of v1.2.0"))
			Expect(fs[2].Message).To(HavePrefix("v1.3.0 → worktree: field-made-required: "))

			allowed := contract.Allowing(contract.Allowance{Rule: contract.RuleFieldMadeRequired})
			fs, err = openSubject(s.dir).StaticCheck(ctx, sel.Pins, allowed, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(fs).To(HaveLen(1))
		})
	})

	It("finds the reference subject's release-skew bugs that its contracts show, and only those", func(ctx SpecContext) {
		repo := referenceHistory()

		// The reference subject declares its session protocol cut in its support policy, so
		// the cut is allowed. OutputSpan shipped ungated on both paths in v1.4.147: gating it
		// on subscribe (v1.4.173) downgrades older desktop clients there, a reviewed change
		// (mobile ignores Output's seq, so the downgrade is lossless for it) that its
		// skewtest.yaml allows: shown, marked allowed, failing nothing; gating it on
		// multiplex (v1.4.180) is the real release-skew bug, and removing that gate again
		// (v1.4.190) breaks the clients that negotiated it. The working tree's gate on
		// multiplex is negotiated by every v1.4.190 desktop client (ackOutput implies it).
		code, out := cli(ctx, "contract", "check", "--repo", repo)
		Expect(code).To(Equal(exitFindings))
		Expect(out).To(MatchRegexp(`v1\.4\.146 → v1\.4\.147: compatible\n`+
			`v1\.4\.147:skewtest-contract\.json:\d+: warning: frame-kind-undecided: terminal: H>C OutputSpan \(opcode 15\) says nothing about mobile clients`),
			"v1.4.147 sent OutputSpan to mobile clients, whose table lacks it")
		Expect(strings.Count(out, ": warning: ")).To(Equal(1), "said once, where it appeared")
		Expect(out).To(ContainSubstring("v1.4.172 → v1.4.173: compatible (1 allowed)\n"))
		Expect(out).To(MatchRegexp(`v1\.4\.173:skewtest-contract\.json:\d+: gate-added: terminal: H>C OutputSpan \(opcode 15\) shipped ungated on /terminal\.subscribe and is now sent there only once outputSpan is negotiated, which older desktop clients do not declare.* \(allowed, skewtest\.yaml:\d+: v1\.4\.173 gated OutputSpan on terminal\.subscribe: mobile ignores Output's seq`))
		Expect(out).To(ContainSubstring("v1.4.173 → v1.4.180: 1 violation\n"))
		Expect(out).To(MatchRegexp(`v1\.4\.180:skewtest-contract\.json:\d+: gate-added: terminal: H>C OutputSpan \(opcode 15\) shipped ungated on /terminal\.multiplex and is now sent there only once outputSpan is negotiated`))
		Expect(out).To(ContainSubstring("v1.4.180 → v1.4.185: compatible\n"), "the cut is declared in skewtest.yaml")
		Expect(out).To(ContainSubstring("v1.4.185 → v1.4.190: 1 violation\n"))
		Expect(out).To(MatchRegexp(`v1\.4\.185:skewtest-contract\.json:\d+: gate-removed: terminal: H>C OutputSpan \(opcode 15\) was sent on /terminal\.multiplex only once outputSpan was negotiated`))
		Expect(out).To(ContainSubstring("v1.4.190 → worktree: compatible\n"))
		Expect(out).To(HaveSuffix("checked 13 stable tag pairs and 1 pin against the working tree: 2 violations in 2 pairs, 1 reviewed and allowed\n"))
		Expect(out).NotTo(ContainSubstring("matched no finding"))

		// An entry that matches nothing it selects is a warning, and fails nothing itself.
		cfg := filepath.Join(repo, "skewtest.yaml")
		text := readFile(cfg)
		Expect(os.WriteFile(cfg, []byte(strings.Replace(text, "path: /terminal.subscribe", "path: /terminal.elsewhere", 1)), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "check", "--repo", repo)
		Expect(code).To(Equal(exitFindings))
		Expect(out).To(ContainSubstring("v1.4.172 → v1.4.173: 1 violation\n"))
		Expect(out).To(MatchRegexp(`skewtest\.yaml:\d+: warning: allow entry gate-added of OutputSpan on /terminal\.elsewhere for <v1\.4\.173 matched no finding: remove it`))
		// A frame name no contract of its pairs declares: the nearest one.
		Expect(os.WriteFile(cfg, []byte(strings.Replace(text, "frame: OutputSpan", "frame: OutputSapn", 1)), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "check", "--repo", repo)
		Expect(code).To(Equal(exitFindings))
		Expect(out).To(MatchRegexp(`skewtest\.yaml:\d+: warning: allow entry gate-added of OutputSapn .*matched no finding: frame "OutputSapn" is in no contract of the pairs it selects: did you mean "OutputSpan"\?`))
		Expect(os.WriteFile(cfg, []byte(text), 0o644)).To(Succeed())

		reviewed := []string{"--allow", "v1.4.173..v1.4.180:gate-added", "--allow", "v1.4.185..v1.4.190:gate-removed"}
		code, _ = cli(ctx, append([]string{"contract", "check", "--repo", repo}, reviewed...)...)
		Expect(code).To(Equal(exitOK))

		sel, err := pins.Resolve(ctx, repo, pins.Options{Refs: pins.Refs("", "v1.4.180", "v1.4.185")})
		Expect(err).NotTo(HaveOccurred())
		fs, err := openSubject(repo).StaticCheck(ctx, sel.Pins, nil, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).To(BeEmpty())

		// Without the declared cut (and the allow list after it), the same history shows it,
		// in the history and for run.
		Expect(os.WriteFile(cfg, []byte(text[:strings.Index(text, "\n# The working tree's support policy")+1]), 0o644)).To(Succeed())
		code, out = cli(ctx, "contract", "check", "--repo", repo)
		Expect(code).To(Equal(exitFindings))
		Expect(out).To(ContainSubstring("v1.4.180 → v1.4.185: 1 violation\n"))
		Expect(out).To(ContainSubstring(": protocol-cut: minCompatible 2 is above the older build's protocol version 1"))
		fs, err = openSubject(repo).StaticCheck(ctx, sel.Pins, nil, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Message).To(HavePrefix("v1.4.180 → worktree: protocol-cut: "))
		code, _ = cli(ctx, append([]string{"contract", "check", "--repo", repo, "--allow", "v1.4.180..v1.4.185:protocol-cut", "--allow", "v1.4.172..v1.4.173:gate-added"}, reviewed...)...)
		Expect(code).To(Equal(exitOK))

		// Reviewed in skewtest.yaml instead, run's static tier shows it as allowed, and it
		// fails nothing.
		Expect(os.WriteFile(cfg, []byte(text[:strings.Index(text, "\n# The working tree's support policy")+1]+
			"allow:\n  - rule: protocol-cut\n    refs: \"<v1.4.185\"\n    reason: session protocol 2 refuses them on purpose\n"), 0o644)).To(Succeed())
		fs, err = openSubject(repo).StaticCheck(ctx, sel.Pins, nil, io.Discard)
		Expect(err).NotTo(HaveOccurred())
		Expect(fs).To(ConsistOf(SatisfyAll(HaveField("Message", HavePrefix("v1.4.180 → worktree: protocol-cut: ")),
			HaveField("Allowed", MatchRegexp(`^skewtest\.yaml:\d+: session protocol 2 refuses them on purpose$`)))))
		Expect(results.Failing(fs)).To(BeEmpty())
		run := &results.Run{Findings: fs}
		Expect(run.ExitCode()).To(Equal(exitOK))
	})

	Describe("verify", func() {
		It("builds the working tree and diffs what its contractCommand prints with the committed contract, both ways", func(ctx SpecContext) {
			s := newContractSubject()
			s.write("contract.json", withoutPing)
			s.speaks(withoutPing)
			cache := GinkgoT().TempDir()
			code, out := cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", cache)
			Expect(code).To(Equal(exitOK))
			Expect(out).To(ContainSubstring("contract.json matches what the code speaks"))

			s.speaks(rpcContract)
			code, out = cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", cache)
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring("The code speaks what the committed contract lacks"))
			Expect(out).To(ContainSubstring("the output of ./driver contract:%d: frame-removed: rpc: C>H ping", line(rpcContract, `"ping"`)))
			Expect(out).NotTo(ContainSubstring("The committed contract says what the code does not speak"))

			s.write("contract.json", rpcContract)
			s.speaks(strings.Replace(rpcContract, `"protocol": {"version": 1,`, `"protocol": {"version": 2,`, 1))
			code, out = cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", cache)
			Expect(code).To(Equal(exitFindings))
			Expect(out).To(ContainSubstring("the committed contract says protocol 1 (minCompatible 1); the code speaks protocol 2 (minCompatible 1)"))
		})

		It("needs a contractCommand, and a command that works", func(ctx SpecContext) {
			s := newContractSubject()
			s.write("skewtest.yaml", strings.Replace(readFile(filepath.Join(s.dir, "skewtest.yaml")), "contractCommand: [./driver, contract]\n", "", 1))
			code, out := cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir())
			Expect(code).To(Equal(exitUsage))
			Expect(out).To(ContainSubstring("skewtest.yaml names no contractCommand"))

			s = newContractSubject()
			s.write("driver.sh", "#!/bin/sh\necho 'no such mode' >&2\nexit 3\n")
			code, out = cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir())
			Expect(code).To(Equal(exitInfra))
			Expect(out).To(ContainSubstring("contractCommand ./driver contract: exit status 3; stderr:\nno such mode"))

			s.speaks("{\"contractVersion\": 2,\n \"oops\": 1}\n")
			code, out = cli(ctx, "contract", "verify", "--repo", s.dir, "--cache-dir", GinkgoT().TempDir())
			Expect(code).To(Equal(exitUsage))
			Expect(out).To(ContainSubstring(`the output of ./driver contract: line 2: /oops: unknown key "oops"`))
		})
	})
})

func readFile(path string) string {
	GinkgoHelper()
	b, err := os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	return string(b)
}
