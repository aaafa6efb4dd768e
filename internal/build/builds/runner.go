package builds

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// Runner runs a build's recipe: on the host (Local, the default) or elsewhere (the
// container runner in builds/container).
type Runner interface {
	// Toolchain identifies the tools a recipe runs with, for the cache key (e.g.
	// "go1.26.8 linux/amd64"). name is the toolchain a versions row names, "" when none
	// does; a runner that cannot provide it says so in the error.
	Toolchain(ctx context.Context, name string) (string, error)
	// Run runs the job's steps in its SrcDir, writing artifacts to OutDir, the command
	// lines and their output to Log. It returns the first failing step's error.
	Run(ctx context.Context, job *Job) error
}

// Job is one recipe to run.
type Job struct {
	Label     string   // the build's label, for messages
	Key       string   // the cache key; a runner may label what it starts with it
	Steps     []string // shell commands, each run with `sh -c`
	Toolchain string   // the toolchain a versions row names, "" for the default
	SrcDir    string   // the materialized tree; steps run here
	OutDir    string   // $SKEWTEST_OUT
	GoCache   string   // the GOCACHE shared by every build
	TmpDir    string   // this build's own temporary directory, removed after the build
	LockPath  string   // the build lock held while the job runs
	Log       io.Writer
	// StepStarted, if not nil, is called as each step starts (i counts from 1).
	StepStarted func(i, n int, step string)
}

// RunSteps runs job's steps in order with run, logging each command line, the outcome and
// the time it took in the format every runner shares; the first failing step ends it.
func RunSteps(ctx context.Context, job *Job, run func(ctx context.Context, step string) error) error {
	n := len(job.Steps)
	for i, step := range job.Steps {
		if job.StepStarted != nil {
			job.StepStarted(i+1, n, step)
		}
		fmt.Fprintf(job.Log, "$ %s\n", step)
		start := time.Now()
		err := run(ctx, step)
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			fmt.Fprintf(job.Log, "# step %d/%d failed after %s: %v\n", i+1, n, took, err)
			return fmt.Errorf("step %d/%d %q: %w", i+1, n, step, err)
		}
		fmt.Fprintf(job.Log, "# step %d/%d ok in %s\n", i+1, n, took)
	}
	return nil
}

// Local runs recipes on the host, each step with `sh -c` under a guardian (package proc:
// no process a step starts outlives skewtest, even a SIGKILLed one), with the inherited
// environment plus SKEWTEST_OUT, GOCACHE, and TMPDIR and GOTMPDIR set to the build's own
// temporary directory. It builds with whatever tools the host has: a versions row's
// toolchain name is noted in the log, not obeyed.
type Local struct {
	// Detect returns the host toolchain; nil means DetectToolchain.
	Detect func(ctx context.Context) (string, error)
}

// Toolchain returns the host's toolchain, whatever name asks for.
func (l Local) Toolchain(ctx context.Context, name string) (string, error) {
	detect := l.Detect
	if detect == nil {
		detect = DetectToolchain
	}
	return detect(ctx)
}

// Run runs the steps on the host.
func (l Local) Run(ctx context.Context, job *Job) error {
	if job.Toolchain != "" {
		fmt.Fprintf(job.Log, "# toolchain %q applies to --runner container; the local runner builds with the host's tools\n", job.Toolchain)
	}
	env := buildEnv(os.Environ(), job.OutDir, job.GoCache, job.TmpDir)
	return RunSteps(ctx, job, func(ctx context.Context, step string) error {
		return runStep(ctx, step, job.SrcDir, env, job.Log)
	})
}

// waitDelay is how long a step may take to exit after it was asked to stop (SIGTERM to its
// process group) before every process of it is killed.
const waitDelay = 10 * time.Second

func runStep(ctx context.Context, step, dir string, env []string, log io.Writer) error {
	cmd := proc.CommandContext(ctx, "sh", "-c", step)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.Grace = waitDelay
	// When Run returns, nothing the step started is left (package proc).
	return cmd.Run()
}

// buildEnv is the inherited environment with SKEWTEST_OUT and GOCACHE replaced, and, when
// tmpDir is set, TMPDIR and GOTMPDIR (where `go build` keeps its work directories) too.
func buildEnv(environ []string, outDir, goCache, tmpDir string) []string {
	set := []string{"SKEWTEST_OUT=" + outDir, "GOCACHE=" + goCache}
	if tmpDir != "" {
		set = append(set, "TMPDIR="+tmpDir, "GOTMPDIR="+tmpDir)
	}
	env := make([]string, 0, len(environ)+len(set))
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		switch name {
		case "SKEWTEST_OUT", "GOCACHE":
			continue
		case "TMPDIR", "GOTMPDIR":
			if tmpDir != "" {
				continue
			}
		}
		env = append(env, kv)
	}
	return append(env, set...)
}
