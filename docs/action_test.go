package docs_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"syscall"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	"github.com/rhysd/actionlint"
	"go.yaml.in/yaml/v3"
)

// The Action: its metadata at the repository's root, its shell steps in action/run.sh.
var (
	actionFile   = filepath.Join(root, "action.yml")
	actionScript = filepath.Join(root, "action", "run.sh")
)

// action is what the specs read of action.yml.
type action struct {
	Inputs map[string]struct {
		Default *string `yaml:"default"`
	} `yaml:"inputs"`
	Outputs map[string]struct {
		Value string `yaml:"value"`
	} `yaml:"outputs"`
	Runs struct {
		Using string       `yaml:"using"`
		Steps []actionStep `yaml:"steps"`
	} `yaml:"runs"`
}

// actionStep is one step of a composite action.
type actionStep struct {
	ID    string            `yaml:"id"`
	Name  string            `yaml:"name"`
	If    string            `yaml:"if"`
	Uses  string            `yaml:"uses"`
	Run   string            `yaml:"run"`
	Shell string            `yaml:"shell"`
	With  map[string]string `yaml:"with"`
	Env   map[string]string `yaml:"env"`
}

func parseAction(data []byte) (*action, error) {
	var a action
	if err := yaml.Unmarshal(data, &a); err != nil {
		return nil, err
	}
	return &a, nil
}

func readAction() *action {
	GinkgoHelper()
	data, err := os.ReadFile(actionFile)
	Expect(err).NotTo(HaveOccurred())
	a, err := parseAction(data)
	Expect(err).NotTo(HaveOccurred())
	return a
}

var (
	// A run step of the Action runs one phase of action/run.sh.
	phaseLine = regexp.MustCompile(`^bash "\$GITHUB_ACTION_PATH/action/run\.sh" (setup|build|run|verdict)$`)
	// A step that uses another action names its major version.
	pinnedUses = regexp.MustCompile(`^[\w.-]+/[\w.-]+(?:/[\w.-]+)?@v\d+$`)
	// An expression that is one value of a context: ${{ inputs.repo }}.
	oneValue = regexp.MustCompile(`^\$\{\{\s*(inputs|github|steps\.[\w-]+\.outputs)\.([\w-]+)\s*\}\}$`)
)

// phase is the phase of action/run.sh a step runs, or "".
func (s actionStep) phase() string {
	if m := phaseLine.FindStringSubmatch(strings.TrimSpace(s.Run)); m != nil {
		return m[1]
	}
	return ""
}

// actionProblems checks the shape of an action.yml: a composite action whose run steps each
// run a phase of action/run.sh with bash, taking inputs and outputs through env (never
// pasted into a script), whose other steps name actions by major version; every input is
// used; every output is the run step's output of the same name; the report is uploaded
// whatever happened, after the run; the verdict comes last.
func actionProblems(data []byte) ([]string, error) {
	a, err := parseAction(data)
	if err != nil {
		return nil, err
	}
	var out []string
	if a.Runs.Using != "composite" {
		out = append(out, fmt.Sprintf("runs.using is %q, not composite", a.Runs.Using))
	}
	var all strings.Builder
	run, upload := -1, -1
	for i, s := range a.Runs.Steps {
		name := fmt.Sprintf("step %d", i+1)
		switch {
		case s.Run != "" && s.Uses != "":
			out = append(out, name+": both run and uses")
		case s.Run != "":
			if s.Shell != "bash" {
				out = append(out, fmt.Sprintf("%s: shell is %q, not bash", name, s.Shell))
			}
			if s.phase() == "" {
				out = append(out, fmt.Sprintf("%s: runs %q, not a phase of action/run.sh", name, s.Run))
			}
			if strings.Contains(s.Run, "${{") {
				out = append(out, name+": an expression in the script: pass it in env")
			}
			if s.phase() == "run" {
				run = i
			}
		case !pinnedUses.MatchString(s.Uses):
			out = append(out, fmt.Sprintf("%s: uses %q, not an action at a major version", name, s.Uses))
		case strings.HasPrefix(s.Uses, "actions/upload-artifact@"):
			upload = i
			if !strings.Contains(s.If, "always()") {
				out = append(out, name+": uploads the report only if: always() is missing")
			}
		}
		text, err := yaml.Marshal(s)
		if err != nil {
			return nil, err
		}
		all.Write(text)
	}
	switch {
	case run < 0:
		out = append(out, "no step runs the command (action/run.sh run)")
	case upload < run:
		out = append(out, "the report is not uploaded after the run")
	}
	if n := len(a.Runs.Steps); n == 0 || a.Runs.Steps[n-1].phase() != "verdict" {
		out = append(out, "the last step is not the verdict (action/run.sh verdict)")
	}
	for name := range a.Inputs {
		if !strings.Contains(all.String(), "inputs."+name+" ") {
			out = append(out, fmt.Sprintf("input %s is used by no step", name))
		}
	}
	for name, o := range a.Outputs {
		if want := "${{ steps.run.outputs." + name + " }}"; o.Value != want {
			out = append(out, fmt.Sprintf("output %s is %q, not %s", name, o.Value, want))
		}
	}
	slices.Sort(out)
	return out, nil
}

// lintActionSteps lints an action.yml's steps with actionlint as the steps of a workflow's
// job (actionlint lints workflows; of an action's metadata it checks only what a workflow
// using it needs): its inputs are the workflow's, and a last step reads every output's value.
// Errors are lines of action.yml.
func lintActionSteps(data []byte) ([]string, error) {
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, err
	}
	steps, outputs := lookup(&doc, "runs", "steps"), lookup(&doc, "outputs")
	if steps == nil || len(steps.Content) == 0 {
		return nil, fmt.Errorf("action.yml has no runs.steps")
	}
	a, err := parseAction(data)
	if err != nil {
		return nil, err
	}
	lines := strings.Split(string(data), "\n")
	indent := steps.Content[0].Column - 1 // the column of the step's mapping, after "- "
	first := steps.Content[0].Line - 1
	var text strings.Builder
	var from []int // from[i]: the line of action.yml the workflow's line i+1 comes from, or 0
	add := func(line string, at int) { text.WriteString(line + "\n"); from = append(from, at) }
	add("on:", 0)
	add("  workflow_call:", 0)
	add("    inputs:", 0)
	names := make([]string, 0, len(a.Inputs))
	for name := range a.Inputs {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		add("      "+name+":", 0)
		add("        type: string", 0)
	}
	add("jobs:", 0)
	add("  action:", 0)
	add("    runs-on: ubuntu-latest", 0)
	add("    steps:", 0)
	pad := strings.Repeat(" ", 6-(indent-2))
	for i := first; i < len(lines); i++ {
		line := lines[i]
		if t := strings.TrimSpace(line); t != "" && !strings.HasPrefix(t, "#") && len(line)-len(strings.TrimLeft(line, " ")) < indent-2 {
			break
		}
		add(pad+line, i+1)
	}
	add("      - run: \"true\"", 0)
	add("        env:", 0)
	for i := 0; outputs != nil && i+1 < len(outputs.Content); i += 2 {
		if v := lookup(outputs.Content[i+1], "value"); v != nil {
			add(fmt.Sprintf("          OUTPUT_%d: %q", i/2, v.Value), v.Line)
		}
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{WorkingDir: GinkgoT().TempDir()})
	if err != nil {
		return nil, err
	}
	errs, err := l.Lint(".github/workflows/action-steps.yml", []byte(text.String()), nil)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range errs {
		line := 0
		if e.Line >= 1 && e.Line <= len(from) {
			line = from[e.Line-1]
		}
		out = append(out, fmt.Sprintf("action.yml:%d: %s [%s]", line, e.Message, e.Kind))
	}
	return out, nil
}

// lintActionUse lints a workflow whose step uses the action in dir (`uses: ./`) with every
// input it declares: actionlint reads the action's metadata and checks it.
func lintActionUse(dir string) ([]string, error) {
	a, err := readActionIn(dir)
	if err != nil {
		return nil, err
	}
	var with strings.Builder
	for name := range a.Inputs {
		fmt.Fprintf(&with, "          %s: \"x\"\n", name)
	}
	text := "on: push\njobs:\n  skew:\n    runs-on: ubuntu-latest\n    steps:\n      - id: skew\n        uses: ./\n        with:\n" +
		with.String() + "      - run: echo \"${{ steps.skew.outputs.exit-code }}\"\n"
	project, err := actionlint.NewProject(dir)
	if err != nil {
		return nil, err
	}
	l, err := actionlint.NewLinter(io.Discard, &actionlint.LinterOptions{WorkingDir: GinkgoT().TempDir()})
	if err != nil {
		return nil, err
	}
	errs, err := l.Lint(".github/workflows/uses-action.yml", []byte(text), project)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range errs {
		out = append(out, fmt.Sprintf("%s [%s]", e.Message, e.Kind))
	}
	return out, nil
}

func readActionIn(dir string) (*action, error) {
	data, err := os.ReadFile(filepath.Join(dir, "action.yml"))
	if err != nil {
		return nil, err
	}
	return parseAction(data)
}

// lookup follows mapping keys from a YAML node (a document or a mapping).
func lookup(n *yaml.Node, keys ...string) *yaml.Node {
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	for _, k := range keys {
		if n.Kind != yaml.MappingNode {
			return nil
		}
		var next *yaml.Node
		for i := 0; i+1 < len(n.Content); i += 2 {
			if n.Content[i].Value == k {
				next = n.Content[i+1]
			}
		}
		if next == nil {
			return nil
		}
		n = next
	}
	return n
}

var _ = Describe("the skewtest Action (action.yml)", func() {
	It("is a composite action in shape: phases of action/run.sh, inputs through env, every input used, outputs from the run, the upload after it whatever happened, the verdict last", func() {
		data, err := os.ReadFile(actionFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(actionProblems(data)).To(BeEmpty())
	})

	It("would catch an unused input, an expression pasted into a script, an action at a branch, an output from elsewhere and an upload only on success", func() {
		data, err := os.ReadFile(actionFile)
		Expect(err).NotTo(HaveOccurred())
		bad := strings.Replace(string(data), "inputs:\n", "inputs:\n  unused:\n    description: nothing reads it\n", 1)
		bad = strings.Replace(bad, `run: bash "$GITHUB_ACTION_PATH/action/run.sh" setup`, `run: bash "$GITHUB_ACTION_PATH/action/run.sh" setup ${{ inputs.repo }}`, 1)
		bad = strings.Replace(bad, "actions/cache/restore@v4", "actions/cache/restore@main", 1)
		bad = strings.Replace(bad, "value: ${{ steps.run.outputs.passed }}", "value: ${{ steps.setup.outputs.passed }}", 1)
		bad = strings.Replace(bad, "if: always() && inputs.artifact-name != ''", "if: inputs.artifact-name != ''", 1)
		Expect(bad).NotTo(Equal(string(data)))
		Expect(actionProblems([]byte(bad))).To(Equal([]string{
			"input unused is used by no step",
			`output passed is "${{ steps.setup.outputs.passed }}", not ${{ steps.run.outputs.passed }}`,
			"step 2: an expression in the script: pass it in env",
			`step 2: runs "bash \"$GITHUB_ACTION_PATH/action/run.sh\" setup ${{ inputs.repo }}", not a phase of action/run.sh`,
			`step 3: uses "actions/cache/restore@main", not an action at a major version`,
			"step 9: uploads the report only if: always() is missing",
		}))
	})

	It("lints clean with actionlint: its metadata, as a workflow using it reads it, and its steps, as a job's", func() {
		Expect(lintActionUse(root)).To(BeEmpty())
		data, err := os.ReadFile(actionFile)
		Expect(err).NotTo(HaveOccurred())
		Expect(lintActionSteps(data)).To(BeEmpty())
	})

	It("would catch, with actionlint, metadata a workflow cannot use, and steps reading an input or a step that is not there, on action.yml's lines", func() {
		data, err := os.ReadFile(actionFile)
		Expect(err).NotTo(HaveOccurred())
		bad := strings.Replace(string(data), "        INPUT_PINS: ${{ inputs.pins }}", "        INPUT_PINS: ${{ inputs.pin }}", 1)
		bad = strings.Replace(bad, "    value: ${{ steps.run.outputs.failed }}", "    value: ${{ steps.runs.outputs.failed }}", 1)
		Expect(bad).NotTo(Equal(string(data)))
		at := func(s string) string {
			return fmt.Sprintf("action.yml:%d:", 1+strings.Count(bad[:strings.Index(bad, s)], "\n"))
		}
		errs, err := lintActionSteps([]byte(bad))
		Expect(err).NotTo(HaveOccurred())
		Expect(errs).To(ConsistOf(
			And(HavePrefix(at("${{ inputs.pin }}")), ContainSubstring(`property "pin" is not defined`)),
			And(HavePrefix(at("${{ steps.runs.outputs.failed }}")), ContainSubstring(`property "runs" is not defined`)),
		))

		dir := GinkgoT().TempDir()
		broken := strings.Replace(string(data), "using: composite", "using: node12", 1)
		Expect(os.WriteFile(filepath.Join(dir, "action.yml"), []byte(broken), 0o644)).To(Succeed())
		Expect(lintActionUse(dir)).To(ContainElement(ContainSubstring(`invalid runner name "node12"`)))
	})
})

// actionRunner runs the Action's shell steps as GitHub runs a composite action's run steps:
// bash with GitHub's options, in the workspace, with a fresh GITHUB_OUTPUT, step summary and
// GITHUB_PATH file per step, and the env: each step declares, its expressions evaluated
// from the inputs (the action's defaults, overridden) and the earlier steps' outputs.
type actionRunner struct {
	action    *action
	path      string   // GITHUB_ACTION_PATH: this repository
	ref       string   // github.action_ref: "", as for a local action (uses: ./)
	env       []string // more of the runner's environment
	workspace string
	temp      string // RUNNER_TEMP
	files     string // the per-step files GitHub gives
	n         int
	outputs   map[string]map[string]string // by step id
}

// stepRun is what one step did.
type stepRun struct {
	Code    int
	Log     string            // its stdout and stderr
	Outputs map[string]string // what it wrote to GITHUB_OUTPUT
	Summary string            // what it wrote to the job summary
	Path    string            // what it added to the PATH
}

func newActionRunner() *actionRunner {
	GinkgoHelper()
	dir := GinkgoT().TempDir()
	path, err := filepath.Abs(root)
	Expect(err).NotTo(HaveOccurred())
	r := &actionRunner{
		action:    readAction(),
		path:      path,
		workspace: filepath.Join(dir, "workspace"),
		temp:      filepath.Join(dir, "runner-temp"),
		files:     filepath.Join(dir, "files"),
		outputs:   map[string]map[string]string{},
	}
	for _, d := range []string{r.workspace, r.temp, r.files} {
		Expect(os.MkdirAll(d, 0o755)).To(Succeed())
	}
	return r
}

// step runs the step of the given phase with inputs (over the action's defaults).
func (r *actionRunner) step(ctx SpecContext, phase string, inputs map[string]string) stepRun {
	GinkgoHelper()
	i := slices.IndexFunc(r.action.Runs.Steps, func(s actionStep) bool { return s.phase() == phase })
	Expect(i).To(BeNumerically(">=", 0), "no step runs phase %s", phase)
	s := r.action.Runs.Steps[i]
	r.n++
	output := filepath.Join(r.files, fmt.Sprintf("output-%d", r.n))
	summary := filepath.Join(r.files, fmt.Sprintf("summary-%d", r.n))
	path := filepath.Join(r.files, fmt.Sprintf("path-%d", r.n))
	script := filepath.Join(r.files, fmt.Sprintf("step-%d.sh", r.n))
	for _, f := range []string{output, summary, path} {
		Expect(os.WriteFile(f, nil, 0o644)).To(Succeed())
	}
	Expect(os.WriteFile(script, []byte(s.Run), 0o644)).To(Succeed())

	env := append([]string{
		"GITHUB_ACTIONS=true", "CI=true",
		"GITHUB_ACTION_PATH=" + r.path, "GITHUB_WORKSPACE=" + r.workspace, "RUNNER_TEMP=" + r.temp,
		"GITHUB_OUTPUT=" + output, "GITHUB_STEP_SUMMARY=" + summary, "GITHUB_PATH=" + path,
	}, r.env...)
	for k, v := range s.Env {
		env = append(env, k+"="+r.eval(v, inputs))
	}
	cmd := exec.CommandContext(ctx, "bash", "--noprofile", "--norc", "-eo", "pipefail", script)
	cmd.Dir = r.workspace
	cmd.Env = append(runnerEnviron(), env...)
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	// The step and what it starts are one process group, stopped together if the spec ends.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = 10 * time.Second
	code := 0
	if err := cmd.Run(); err != nil {
		var ee *exec.ExitError
		Expect(errors.As(err, &ee)).To(BeTrue(), "%s step: %v\n%s", phase, err, log.String())
		code = ee.ExitCode()
	}
	run := stepRun{Code: code, Log: log.String(), Outputs: map[string]string{}}
	data, err := os.ReadFile(output)
	Expect(err).NotTo(HaveOccurred())
	for line := range strings.Lines(string(data)) {
		k, v, ok := strings.Cut(strings.TrimSuffix(line, "\n"), "=")
		Expect(ok).To(BeTrue(), "GITHUB_OUTPUT line %q", line)
		run.Outputs[k] = v
	}
	if s.ID != "" {
		r.outputs[s.ID] = run.Outputs
	}
	data, err = os.ReadFile(summary)
	Expect(err).NotTo(HaveOccurred())
	run.Summary = string(data)
	data, err = os.ReadFile(path)
	Expect(err).NotTo(HaveOccurred())
	run.Path = strings.TrimSpace(string(data))
	return run
}

// eval evaluates an env value of a step: text, or one value of the inputs, github or an
// earlier step's outputs.
func (r *actionRunner) eval(v string, inputs map[string]string) string {
	GinkgoHelper()
	if !strings.Contains(v, "${{") {
		return v
	}
	m := oneValue.FindStringSubmatch(v)
	Expect(m).NotTo(BeNil(), "the spec evaluates one value of a context, not %s", v)
	switch ctx, name := m[1], m[2]; {
	case ctx == "inputs":
		in, ok := r.action.Inputs[name]
		Expect(ok).To(BeTrue(), "no input %s", name)
		if v, ok := inputs[name]; ok {
			return v
		}
		if in.Default != nil {
			return *in.Default
		}
		return ""
	case ctx == "github" && name == "action_ref":
		return r.ref
	case strings.HasPrefix(ctx, "steps."):
		id := strings.TrimSuffix(strings.TrimPrefix(ctx, "steps."), ".outputs")
		return r.outputs[id][name]
	}
	Fail("the spec cannot evaluate " + v)
	return ""
}

// runnerEnviron is this process's environment without what GitHub or make would set: the
// step gets those from the spec alone.
func runnerEnviron() []string {
	var out []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch {
		case strings.HasPrefix(k, "GITHUB_"), strings.HasPrefix(k, "RUNNER_"), strings.HasPrefix(k, "INPUT_"),
			k == "MAKEFLAGS", k == "MFLAGS", k == "MAKELEVEL", k == "CI":
			continue
		}
		out = append(out, kv)
	}
	return out
}

var _ = Describe("the Action's verdict step", func() {
	DescribeTable("keeps skewtest's exit codes: 1 fails (unless fail-on-findings is false), 2 and 3 fail saying what they mean",
		func(ctx SpecContext, run map[string]string, inputs map[string]string, code int, annotation string) {
			r := newActionRunner()
			r.outputs["run"] = run
			got := r.step(ctx, "verdict", inputs)
			Expect(got.Code).To(Equal(code), got.Log)
			if annotation == "" {
				Expect(got.Log).NotTo(ContainSubstring("::"), "no annotation")
			} else {
				Expect(got.Log).To(ContainSubstring(annotation))
			}
		},
		Entry("0: compatible", map[string]string{"exit-code": "0", "pairings": "4"}, nil, 0, ""),
		Entry("1: findings", map[string]string{"exit-code": "1", "pairings": "4", "failed": "3", "flaky": "0", "errored": "0"}, nil, 1,
			"::error title=skewtest found incompatibilities::skewtest run exited 1, compatibility findings (3 failed, 0 flaky, 0 errors of 4 pairings)"),
		Entry("1 with fail-on-findings false", map[string]string{"exit-code": "1"}, map[string]string{"fail-on-findings": "false"}, 0,
			"::warning title=skewtest found incompatibilities::skewtest run exited 1, compatibility findings"),
		Entry("2: usage or configuration", map[string]string{"exit-code": "2", "error": "open x: does not exist"}, map[string]string{"fail-on-findings": "false"}, 2,
			"::error title=skewtest could not start::skewtest run exited 2, a usage or configuration error (an input of the action, skewtest.yaml, a moved tag, a shallow clone without tags, shards that do not belong together): open x: does not exist"),
		Entry("3: the harness could not test", map[string]string{"exit-code": "3", "error": "build v1.4.120: exit status 1"}, map[string]string{"command": "merge-reports"}, 3,
			"::error title=skewtest could not test::skewtest merge-reports exited 3, an infrastructure or harness error: the harness could not test"),
		Entry("no exit code: the run step did not run", map[string]string{}, nil, 3, "::error title=skewtest did not run::"),
		Entry("killed", map[string]string{"exit-code": "137"}, nil, 137, "::error title=skewtest ended abnormally::skewtest run ended with exit code 137, not one of skewtest's exit codes"),
		Entry("a message with a line break and a percent sign, escaped as GitHub reads them", map[string]string{"exit-code": "2", "error": "50% done\nthen: this"}, nil, 2, ": 50%25 done%0Athen: this\n"),
	)
})

var _ = Describe("the Action's setup and build steps", func() {
	// fakeAction is a small stand-in for skewtest's sources, with a subject beside it.
	fakeAction := func() string {
		dir := GinkgoT().TempDir()
		for name, text := range map[string]string{
			"go.mod": "module example.com/x\n", "go.sum": "a v1 h1:x\n", "main.go": "package main\n",
			"Makefile": "build:\n", "examples/sub/main.go": "package sub\n", "docs/x.md": "#\n",
		} {
			Expect(os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644)).To(Succeed())
		}
		return dir
	}
	// runnerFor is a runner of the action in dir, with this repository's action/run.sh.
	runnerFor := func(dir string) *actionRunner {
		GinkgoHelper()
		script, err := os.ReadFile(actionScript)
		Expect(err).NotTo(HaveOccurred())
		Expect(os.MkdirAll(filepath.Join(dir, "action"), 0o755)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "action", "run.sh"), script, 0o755)).To(Succeed())
		r := newActionRunner()
		r.path = dir
		return r
	}
	// setup runs the setup step of the action in dir on a subject whose skewtest.lock holds
	// lock ("": none).
	setup := func(ctx SpecContext, dir string, inputs map[string]string, lock string) map[string]string {
		GinkgoHelper()
		r := runnerFor(dir)
		r.env = []string{"HOME=/home/runner"}
		if lock != "" {
			Expect(os.MkdirAll(filepath.Join(r.workspace, "subject"), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(r.workspace, "subject", "skewtest.lock"), []byte(lock), 0o644)).To(Succeed())
		}
		got := r.step(ctx, "setup", inputs)
		Expect(got.Code).To(Equal(0), got.Log)
		return got.Outputs
	}

	It("keys skewtest's Go caches on the action's go.sum and sources, and the build cache on the subject's skewtest.lock", func(ctx SpecContext) {
		dir := fakeAction()
		in := map[string]string{"repo": "subject"}
		lock := "v1.4.190 abc\n"
		first := setup(ctx, dir, in, lock)
		Expect(first).To(HaveKeyWithValue("go-cache-key", HavePrefix(first["go-cache-restore"])))
		Expect(first["go-cache-restore"]).To(MatchRegexp(`^skewtest-action-go-.+-go1\.\d+.*-[0-9a-f]{16}-$`))
		Expect(first["builds-cache-key"]).To(MatchRegexp(`^skewtest-builds-.+-[0-9a-f]{16}$`))
		Expect(first["builds-cache-key"]).To(HavePrefix(first["builds-cache-restore"]))
		Expect(first).To(HaveKeyWithValue("cache-dir", "/home/runner/.cache/skewtest"))
		Expect(first).To(HaveKeyWithValue("builds-cache", "true"))
		Expect(first).To(HaveKey("gomodcache"))
		Expect(first).To(HaveKey("gocache"))
		Expect(setup(ctx, dir, in, lock)).To(Equal(first), "the same sources, the same keys")

		By("a subject's file, and a file make build does not compile, change nothing")
		Expect(os.WriteFile(filepath.Join(dir, "examples/sub/main.go"), []byte("package sub // changed\n"), 0o644)).To(Succeed())
		Expect(os.WriteFile(filepath.Join(dir, "docs/x.md"), []byte("# changed\n"), 0o644)).To(Succeed())
		Expect(setup(ctx, dir, in, lock)).To(Equal(first))

		By("a changed source gives a new key, restored from the last one of the same go.sum")
		Expect(os.WriteFile(filepath.Join(dir, "main.go"), []byte("package main // changed\n"), 0o644)).To(Succeed())
		changed := setup(ctx, dir, in, lock)
		Expect(changed["go-cache-key"]).NotTo(Equal(first["go-cache-key"]))
		Expect(changed["go-cache-restore"]).To(Equal(first["go-cache-restore"]))

		By("a changed go.sum, a new prefix")
		Expect(os.WriteFile(filepath.Join(dir, "go.sum"), []byte("a v2 h1:y\n"), 0o644)).To(Succeed())
		Expect(setup(ctx, dir, in, lock)["go-cache-restore"]).NotTo(Equal(first["go-cache-restore"]))

		By("a changed lock, a new key for the builds; no lock, a key of its own")
		Expect(setup(ctx, dir, in, "v1.4.190 def\n")["builds-cache-key"]).NotTo(Equal(first["builds-cache-key"]))
		Expect(setup(ctx, dir, in, "")["builds-cache-key"]).To(HaveSuffix("-no-lock"))

		By("merge-reports builds nothing, and cache false keeps nothing")
		Expect(setup(ctx, dir, map[string]string{"command": "merge-reports"}, lock)).To(HaveKeyWithValue("builds-cache", "false"))
		Expect(setup(ctx, dir, map[string]string{"cache": "false"}, lock)).To(HaveKeyWithValue("builds-cache", "false"))
		Expect(setup(ctx, dir, map[string]string{"cache-dir": "/var/cache/x"}, lock)).To(HaveKeyWithValue("cache-dir", "/var/cache/x"))
	})

	It("stamps the action's ref as skewtest's version when the action is no git checkout, and puts skewtest on the PATH", func(ctx SpecContext) {
		// A Makefile that writes a skewtest saying the VERSION it was given.
		dir := fakeAction()
		Expect(os.WriteFile(filepath.Join(dir, "Makefile"), []byte("VERSION ?= from-git\nbuild:\n"+
			"\tmkdir -p $(dir $(BIN)) && printf '#!/bin/sh\\necho skewtest $(VERSION)\\n' > $(BIN) && chmod +x $(BIN)\n"), 0o644)).To(Succeed())
		r := runnerFor(dir)
		r.ref = "v1.2.3"
		got := r.step(ctx, "build", nil)
		Expect(got.Code).To(Equal(0), got.Log)
		bin := filepath.Join(r.temp, "skewtest-action", "bin", "skewtest")
		Expect(got.Outputs).To(Equal(map[string]string{"skewtest": bin}))
		Expect(got.Path).To(Equal(filepath.Dir(bin)))
		Expect(got.Log).To(ContainSubstring("skewtest v1.2.3\n"), "the build step runs skewtest version")

		By("a checkout of skewtest says its version itself")
		Expect(os.Mkdir(filepath.Join(dir, ".git"), 0o755)).To(Succeed())
		got = r.step(ctx, "build", nil)
		Expect(got.Code).To(Equal(0), got.Log)
		Expect(got.Log).To(ContainSubstring("skewtest from-git\n"))
	})
})
