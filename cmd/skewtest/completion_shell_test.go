package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/pins"
)

// completing runs shell (bash or fish) with the binary make build wrote first on PATH, in
// dir, on script (its arguments: words), and returns the lines it prints.
func completing(ctx context.Context, shell, dir, script string, words ...string) []string {
	GinkgoHelper()
	bin := madeBinary(ctx)
	var cmd *exec.Cmd
	if shell == "bash" {
		cmd = exec.CommandContext(ctx, "bash", append([]string{"--norc", "--noprofile", "-c", script, "bash"}, words...)...)
	} else {
		cmd = exec.CommandContext(ctx, "fish", "--no-config", "-c", script)
	}
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PATH="+filepath.Dir(bin)+string(os.PathListSeparator)+os.Getenv("PATH"))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	Expect(err).NotTo(HaveOccurred(), stderr.String())
	return strings.Fields(string(out))
}

// bashCompletes sources skewtest's bash script and completes the command line words, the
// last being the word under the cursor, as bash would: the function complete -p names, with
// COMP_WORDS and COMP_CWORD set. It returns COMPREPLY.
func bashCompletes(ctx context.Context, dir string, words ...string) []string {
	GinkgoHelper()
	return completing(ctx, "bash", dir, `source <(skewtest completion bash) || exit 1
fn=$(complete -p skewtest | sed -E 's/.*-F ([^ ]+) .*/\1/')
COMP_WORDS=("$@")
COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
COMP_LINE="$*"
COMP_POINT=${#COMP_LINE}
"$fn" skewtest "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
printf '%s\n' "${COMPREPLY[@]}"`, words...)
}

// beginning are the visible commands that begin with prefix.
func beginning(prefix string) []string {
	var out []string
	for _, name := range visibleCommands() {
		if strings.HasPrefix(name, prefix) {
			out = append(out, name)
		}
	}
	return out
}

var _ = Describe("completion in a shell", func() {
	It("completes skewtest re in bash to exactly the commands beginning with re", func(ctx SpecContext) {
		if _, err := exec.LookPath("bash"); err != nil {
			Skip("bash is not on PATH: the spec sources the bash script into bash")
		}
		dir := GinkgoT().TempDir()
		want := beginning("re")
		Expect(want).To(ContainElements("recheck", "record", "replay", "repro"))
		Expect(bashCompletes(ctx, dir, "skewtest", "re")).To(Equal(want))
		// Controls: another prefix, and none.
		Expect(bashCompletes(ctx, dir, "skewtest", "r")).To(ContainElement("run"))
		Expect(bashCompletes(ctx, dir, "skewtest", "zz")).To(BeEmpty())
		Expect(bashCompletes(ctx, dir, "skewtest", "contract", "d")).To(Equal([]string{"diff", "decode", "descriptor"}))
		Expect(bashCompletes(ctx, dir, "skewtest", "build", "--re")).To(Equal([]string{"--repo"}))
		Expect(bashCompletes(ctx, dir, "skewtest", "run", "--matrix", "")).To(Equal([]string{"default", "full"}))
	})

	It("completes journeys, client kinds and refs in bash from the subject --repo names", func(ctx SpecContext) {
		if _, err := exec.LookPath("bash"); err != nil {
			Skip("bash is not on PATH: the spec sources the bash script into bash")
		}
		repo := sharedHistory()
		cfg, err := openSubject(repo).Config()
		Expect(err).NotTo(HaveOccurred())
		set, err := journeys.LoadSet(repo, cfg.Journeys)
		Expect(err).NotTo(HaveOccurred())
		away := GinkgoT().TempDir() // no repository: only --repo names the subject
		Expect(bashCompletes(ctx, away, "skewtest", "run", "--repo", repo, "--journey", "")).To(ConsistOf(set.Names()))
		Expect(bashCompletes(ctx, away, "skewtest", "repro", "-repo", repo, "--kind", "")).To(ConsistOf(cfg.ClientKinds()))
		Expect(bashCompletes(ctx, away, "skewtest", "run", "--repo="+repo, "--pins", "work")).To(Equal([]string{"worktree"}))
		Expect(bashCompletes(ctx, repo, "skewtest", "run", "--kind", "")).To(ConsistOf(cfg.ClientKinds()), "the current directory's subject")
		Expect(bashCompletes(ctx, away, "skewtest", "run", "--kind", "")).To(BeEmpty(), "control: no subject")
	})

	It("completes skewtest re in fish to the same commands", func(ctx SpecContext) {
		if _, err := exec.LookPath("fish"); err != nil {
			Skip("fish is not on PATH: the spec sources the fish script into fish")
		}
		got := completing(ctx, "fish", GinkgoT().TempDir(), `skewtest completion fish | source; or exit 1
complete -C 'skewtest re' | string replace -r '\t.*' ''
echo ::
complete -C 'skewtest qq' | string replace -r '\t.*' ''
true`)
		Expect(got).To(Equal(append(beginning("re"), "::")), "the control after :: completes nothing")
	})

	It("writes a zsh script zsh reads", func(ctx SpecContext) {
		if _, err := exec.LookPath("zsh"); err != nil {
			Skip("zsh is not on PATH: the spec has zsh read the script")
		}
		file := filepath.Join(GinkgoT().TempDir(), "_skewtest")
		Expect(os.WriteFile(file, []byte(completionScript("zsh")), 0o644)).To(Succeed())
		out, err := exec.CommandContext(ctx, "zsh", "-n", file).CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(os.WriteFile(file, []byte(completionScript("zsh")+"\ncase x in\n"), 0o644)).To(Succeed())
		Expect(exec.CommandContext(ctx, "zsh", "-n", file).Run()).To(HaveOccurred(), "control: a broken script")
	})
})

var _ = Describe("the hidden completion helper", func() {
	complete := func(args ...string) (string, error) {
		var out bytes.Buffer
		err := dispatch(context.Background(), append([]string{completeCommand}, args...), &out, io.Discard)
		return out.String(), err
	}

	It("lists a subject's journeys, client kinds, refs and generators", func(ctx SpecContext) {
		repo := sharedHistory()
		cfg, err := openSubject(repo).Config()
		Expect(err).NotTo(HaveOccurred())
		out, err := complete("--repo", repo, askKinds)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Fields(out)).To(Equal(cfg.ClientKinds()))

		out, err = complete("--repo", repo, askRefs)
		Expect(err).NotTo(HaveOccurred())
		stable, _, err := pins.StableTags(ctx, repo)
		Expect(err).NotTo(HaveOccurred())
		refs := strings.Fields(out)
		Expect(refs[0]).To(Equal("worktree"))
		Expect(refs[1]).To(Equal(stable[len(stable)-1].Name), "the newest stable tag first")
		for _, t := range stable {
			Expect(refs).To(ContainElement(t.Name))
		}

		out, err = complete("--repo", repo, askJourneys)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Fields(out)).NotTo(BeEmpty())
		out, err = complete(askGenerators, "--repo", repo)
		Expect(err).NotTo(HaveOccurred())
		Expect(strings.Fields(out)).NotTo(BeEmpty())
	})

	It("refuses what it cannot list", func() {
		_, err := complete("--repo", sharedHistory(), "colours")
		Expect(exitCode(err, io.Discard)).To(Equal(exitUsage))
		Expect(err).To(MatchError(ContainSubstring(`"colours": want journeys, kinds, refs or generators`)))
		_, err = complete("--repo", GinkgoT().TempDir(), askKinds)
		Expect(err).To(MatchError(ContainSubstring("not a git repository")))
	})
})
