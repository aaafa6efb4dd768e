package shell_test

import (
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/shell"
)

// shells are the POSIX shells a printed line is pasted into, those this machine has.
func shells() []string {
	var have []string
	for _, sh := range []string{"sh", "bash", "dash", "zsh"} {
		if _, err := exec.LookPath(sh); err == nil {
			have = append(have, sh)
		}
	}
	return have
}

// words runs `printf '%s\0' LINE` in sh, in dir, and returns the words printf was given.
func words(sh, dir, line string) []string {
	cmd := exec.Command(sh, "-c", `printf '%s\0' `+line)
	cmd.Dir = dir
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), "%s -c %q", sh, line)
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00")
}

var hostile = []string{
	"y$(id)", "x`id`", "a#b", "#a", "new\nline", "it's", "''", `"q"`, `back\slash`, "*", "?", "[a]", "~x", "~",
	"a b", "tab\tbed", "", "-flag", ";rm", "&&", "|", ">f", "<f", "!x", "{a,b}", "$HOME", "${x:-y}", "=ls", "^x",
	"%1", "é", "a=~", "$(touch MARKER)", "`touch MARKER`",
}

var _ = Describe("Quote", func() {
	DescribeTable("gives back every word byte for byte, running nothing",
		func(w string) {
			for _, sh := range shells() {
				dir := GinkgoT().TempDir()
				Expect(words(sh, dir, shell.Quote(w))).To(Equal([]string{w}), "%s: %s", sh, shell.Quote(w))
				Expect(filepath.Join(dir, "MARKER")).NotTo(BeAnExistingFile(), "%s ran a command in %s", sh, shell.Quote(w))
			}
		},
		func(w string) string { return "word " + strings.ReplaceAll(w, "\n", `\n`) },
		func() []TableEntry {
			var es []TableEntry
			for _, w := range hostile {
				es = append(es, Entry(nil, w))
			}
			return es
		}(),
	)

	DescribeTable("leaves a word alone when no shell would change it",
		func(w string) { Expect(shell.Quote(w)).To(Equal(w)) },
		Entry(nil, "skewtest"),
		Entry(nil, "--journey"),
		Entry(nil, "v1.4.190"),
		Entry(nil, "/src/chat-d/journeys/first_run.txtar"),
		Entry(nil, "host:KEY=a,b+c@d%e"),
	)

	It("writes a single quote as '\\''", func() {
		Expect(shell.Quote("it's")).To(Equal(`'it'\''s'`))
		Expect(shell.Quote("")).To(Equal(`''`))
	})
})

var _ = Describe("Join", func() {
	It("gives back every word of a line in order", func() {
		argv := append([]string{"skewtest", "repro"}, hostile...)
		for _, sh := range shells() {
			dir := GinkgoT().TempDir()
			Expect(words(sh, dir, shell.Join(argv))).To(Equal(argv), sh)
			Expect(filepath.Join(dir, "MARKER")).NotTo(BeAnExistingFile())
		}
	})

	It("is the words with spaces when none needs quoting", func() {
		Expect(shell.Join([]string{"skewtest", "repro", "--seed", "7"})).To(Equal("skewtest repro --seed 7"))
		Expect(shell.Join(nil)).To(Equal(""))
	})
})

var _ = BeforeEach(func() { Expect(shells()).NotTo(BeEmpty(), "no POSIX shell to paste into") })
