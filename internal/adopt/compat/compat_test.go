package compat_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/adopt/compat"
)

var _ = Describe("Markers", func() {
	It("are read with their condition and switch from the comment lines that follow", func() {
		ms := compat.Scan("host/conn.go", []byte(`package host

// COMPAT(legacy-seq): desktop clients before protocol 2 count seq from 1; rebase it.
// Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 2.
// Turn off: FEATURES={"rebase":false}
func rebase() {}

# COMPAT(old-hello) accept hello without clientType.
# Remove when no supported client predates v1.4.150.

// COMPAT(vague): keep this for a while.
`))
		Expect(ms).To(HaveLen(3))
		Expect(ms[0]).To(And(HaveField("Name", "legacy-seq"), HaveField("Line", 3), HaveField("MinCompatible", 2),
			HaveField("Switch", `FEATURES={"rebase":false}`)))
		Expect(ms[0].Condition()).To(Equal("MIN_COMPATIBLE_PROTOCOL_VERSION is at least 2"))
		Expect(ms[1]).To(And(HaveField("Name", "old-hello"), HaveField("Role", "client"), HaveField("Predates", "v1.4.150")))
		Expect(ms[2].Condition()).To(BeEmpty())
	})
})

// subject is a repository with three releases whose protocol windows and support policy the
// audit reads, and the working tree's shims.
func subject(policy string, worktreeMin int) string {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	r, err := git.PlainInit(dir, false)
	Expect(err).NotTo(HaveOccurred())
	write := func(rel, body string) {
		p := filepath.Join(dir, rel)
		Expect(os.MkdirAll(filepath.Dir(p), 0o755)).To(Succeed())
		Expect(os.WriteFile(p, []byte(body), 0o644)).To(Succeed())
	}
	contract := func(version, min int) string {
		return fmt.Sprintf(`{"contractVersion": 2, "protocol": {"version": %d, "minCompatible": %d}, "channels": []}`, version, min)
	}
	yaml := "product: p\ncontract: contract.json\nbuild:\n  steps: [\"true\"]\ndrivers:\n  host: [./d]\n  clients: {app: [./d]}\n"
	wt, err := r.Worktree()
	Expect(err).NotTo(HaveOccurred())
	shims := `package host

// COMPAT(v1-frames): read protocol 1's frames.
// Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 2.

// COMPAT(v2-frames): read protocol 2's frames.
// Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 3.

// COMPAT(old-clients): what clients before v1.1.0 send.
// Remove when no supported client predates v1.1.0.

// COMPAT(someday): no condition.
`
	for i, rel := range []struct {
		tag          string
		version, min int
	}{{"v1.0.0", 1, 1}, {"v1.1.0", 2, 1}, {"v1.2.0", 2, 2}} {
		if rel.tag == "v1.2.0" {
			write("host/shims.go", shims) // the newest release ships them
		}
		write("skewtest.yaml", yaml)
		write("contract.json", contract(rel.version, rel.min))
		Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
		sig := &object.Signature{Name: "t", Email: "t@example.com", When: time.Unix(1700000000+int64(i)*60, 0)}
		h, err := wt.Commit(rel.tag, &git.CommitOptions{Author: sig, Committer: sig})
		Expect(err).NotTo(HaveOccurred())
		_, err = r.CreateTag(rel.tag, h, nil)
		Expect(err).NotTo(HaveOccurred())
	}
	write("skewtest.yaml", yaml+policy)
	write("contract.json", contract(3, worktreeMin))
	// A shim the working tree adds, which no release shipped: removable, never overdue.
	write("host/fresh.go", "package host\n\n// COMPAT(fresh-v1): new, for protocol 1.\n// Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 2.\n")
	write("third_party/lib/x.go", "// COMPAT(not-ours): Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 9.\n")
	Expect(wt.AddWithOptions(&git.AddOptions{All: true})).To(Succeed())
	return dir
}

var _ = Describe("The audit", func() {
	verdicts := func(a *compat.Audit) map[string]compat.Shim {
		out := map[string]compat.Shim{}
		for _, s := range a.Shims {
			out[s.Name] = s
		}
		return out
	}

	It("sorts shims by the working tree's protocol window when there is no support policy", func(ctx SpecContext) {
		a, err := compat.Run(ctx, subject("", 2))
		Expect(err).NotTo(HaveOccurred())
		got := verdicts(a)
		Expect(got).NotTo(HaveKey("not-ours"), "others' code is not audited")
		Expect(got["v1-frames"]).To(And(HaveField("Verdict", compat.Overdue), HaveField("Why", "v1.2.0 already had minCompatible 2, and shipped the shim")))
		Expect(got["v2-frames"]).To(And(HaveField("Verdict", compat.Needed), HaveField("NeededBy", []string{"v1.1.0", "v1.2.0"})))
		Expect(got["someday"].Verdict).To(Equal(compat.Unknown))
		Expect(got["fresh-v1"]).To(And(HaveField("Verdict", compat.Removable), HaveField("Why", "the working tree's contract has minCompatible 2")),
			"v1.2.0 did not ship it: nothing is overdue yet")
		Expect(a.Releases).To(Equal([]string{"v1.1.0", "v1.2.0"}), "v1.0.0 speaks protocol 1, outside the window")
	})

	It("sorts them by the support policy when there is one, naming the releases that still need a shim", func(ctx SpecContext) {
		a, err := compat.Run(ctx, subject("support:\n  clients: {last: 3}\n  hosts: {last: 1}\n", 1))
		Expect(err).NotTo(HaveOccurred())
		got := verdicts(a)
		Expect(got["v1-frames"]).To(And(HaveField("Verdict", compat.Needed), HaveField("NeededBy", []string{"v1.0.0"})))
		Expect(got["old-clients"]).To(And(HaveField("Verdict", compat.Needed), HaveField("NeededBy", []string{"v1.0.0"})))

		a, err = compat.Run(ctx, subject("support:\n  clients: {last: 2}\n  hosts: {last: 1}\n", 1))
		Expect(err).NotTo(HaveOccurred())
		got = verdicts(a)
		Expect(got["v1-frames"]).To(And(HaveField("Verdict", compat.Removable),
			HaveField("Why", "minCompatible is 1, but no release the working tree must still serve speaks a protocol before 2: raise it")))
		Expect(got["old-clients"]).To(And(HaveField("Verdict", compat.Removable),
			HaveField("Why", "no client the working tree must still serve predates v1.1.0")), "when v1.2.0 was cut, v1.0.0 was one of the last two")
		Expect(got["v2-frames"].NeededBy).To(Equal([]string{"v1.1.0", "v1.2.0"}))

		a, err = compat.Run(ctx, subject("support:\n  clients: {last: 1}\n  hosts: {last: 1}\n", 1))
		Expect(err).NotTo(HaveOccurred())
		Expect(verdicts(a)["old-clients"]).To(And(HaveField("Verdict", compat.Overdue),
			HaveField("Why", "no supported client predated v1.1.0 already when the newest release was cut")))
	})
})

var _ = Describe("An audit's text", func() {
	It("groups shims by verdict, overdue first, and returns how many are overdue", func() {
		a := &compat.Audit{Releases: []string{"v1.0.0", "v1.1.0"}, Shims: []compat.Shim{
			{Marker: compat.Marker{Name: "new", File: "a.go", Line: 3}, Verdict: compat.Needed, Why: "supported clients", NeededBy: []string{"v1.0.0"}},
			{Marker: compat.Marker{Name: "old", File: "b.go", Line: 9}, Verdict: compat.Overdue, Why: "shipped removable"},
		}}
		var b strings.Builder
		overdue, err := a.Write(&b)
		Expect(err).NotTo(HaveOccurred())
		Expect(overdue).To(Equal(1))
		Expect(b.String()).To(Equal("overdue: removable already at the newest release, and still here:\n  b.go:9 COMPAT(old)\n    shipped removable\n" +
			"still needed:\n  a.go:3 COMPAT(new)\n    supported clients: v1.0.0\n" +
			"compat: 2 shims: 1 overdue, 0 removable, 1 needed, 0 without a readable condition (supported releases: v1.0.0, v1.1.0)\n"))

		b.Reset()
		overdue, err = (&compat.Audit{}).Write(&b)
		Expect(err).NotTo(HaveOccurred())
		Expect(overdue).To(BeZero())
		Expect(b.String()).To(ContainSubstring("no COMPAT(name) marker"))
	})
})
