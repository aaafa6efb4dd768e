// Command skewtest proves that two builds of one product still understand each other.
//
// main only maps errors to exit codes: 0 compatible, 1 findings, 2 usage or configuration,
// 3 infrastructure or harness error. Each command splits its flag wiring (parse*) from its
// work, so flags can be tested alone.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"runtime/pprof"
	"syscall"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/declare/usage"
)

// Exit codes.
const (
	exitOK       = 0
	exitFindings = 1
	exitUsage    = 2
	exitInfra    = 3
)

// usageError is a mistake in the command line or the subject's files: the library's.
type usageError = usage.Error

func usagef(format string, args ...any) error { return usage.Errorf(format, args...) }

// exitError carries a run's exit code when the run itself worked.
type exitError struct{ code int }

func (e *exitError) Error() string { return fmt.Sprintf("exit %d", e.code) }

func main() {
	// First: when this process is a guardian of a build step or a driver, it is only that.
	proc.Main()
	ctx, stop := interruptible()
	defer stop()
	os.Exit(profiled(func() int {
		return exitCode(dispatch(ctx, os.Args[1:], os.Stdout, os.Stderr), os.Stderr)
	}))
}

// profileEnv names a file to write a CPU profile of skewtest to (go tool pprof reads it):
// for the people who make skewtest faster (docs/fuzz.md, Throughput).
const profileEnv = "SKEWTEST_CPUPROFILE"

// heapProfileEnv names a file to write a heap profile of skewtest to when it ends, and a
// file beside it (FILE.1, FILE.2, …) each time it gets SIGUSR1: what is in use then, how a
// long campaign's memory is spent.
const heapProfileEnv = "SKEWTEST_HEAPPROFILE"

func profiled(f func() int) int {
	if path := os.Getenv(heapProfileEnv); path != "" {
		usr1 := make(chan os.Signal, 1)
		signal.Notify(usr1, syscall.SIGUSR1)
		go func() {
			n := 0
			for range usr1 {
				n++
				writeHeapProfile(fmt.Sprintf("%s.%d", path, n))
			}
		}()
		defer func() {
			signal.Stop(usr1)
			writeHeapProfile(path)
		}()
	}
	path := os.Getenv(profileEnv)
	if path == "" {
		return f()
	}
	out, err := os.Create(path)
	if err == nil {
		err = pprof.StartCPUProfile(out)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "skewtest: %s: %v\n", profileEnv, err)
		return f()
	}
	defer out.Close()
	defer pprof.StopCPUProfile()
	return f()
}

// writeHeapProfile writes the heap in use to path, after a collection; it says on stderr
// why when it cannot.
func writeHeapProfile(path string) {
	out, err := os.Create(path)
	if err == nil {
		runtime.GC()
		err = pprof.WriteHeapProfile(out)
		if cerr := out.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "skewtest: %s: %v\n", heapProfileEnv, err)
	}
}

// interruptible returns a context cancelled by the first Ctrl-C (SIGINT) or SIGTERM: every
// pairing tears down its processes and the reports are written. A Ctrl-C after that exits
// at once: a person who will not wait. A SIGTERM after that never does: SIGTERM is how
// supervisors and CI ask for a clean stop (they follow with SIGKILL when they mean now),
// and one stop may come as two (GNU timeout signals its child, then its own process group,
// which holds the child), so it leaves the stop under way.
func interruptible() (context.Context, func()) {
	ctx, cancel := context.WithCancel(context.Background())
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case <-sigs:
		case <-done:
			return
		}
		fmt.Fprintln(os.Stderr, "skewtest: interrupted; stopping, then writing what was found (Ctrl-C again to exit now)")
		cancel()
		for {
			select {
			case sig := <-sigs:
				if sig == syscall.SIGTERM {
					fmt.Fprintln(os.Stderr, "skewtest: SIGTERM again: still stopping, the reports are written next (Ctrl-C exits now)")
					continue
				}
				fmt.Fprintln(os.Stderr, "skewtest: interrupted twice; exiting")
				os.Exit(130)
			case <-done:
				return
			}
		}
	}()
	return ctx, func() { signal.Stop(sigs); close(done); cancel() }
}

// exitCode maps an error to an exit code and prints it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		return ee.code
	}
	fmt.Fprintf(stderr, "skewtest: %v\n", err)
	if skewtest.IsUsage(err) {
		return exitUsage
	}
	return exitInfra
}

const usageText = `skewtest proves that two builds of one product still understand each other.

Usage:
  skewtest run     --repo DIR [PIN RULES] [--matrix default|full] [--kind K,...] [--journey J,...] [--report-dir D] [--runner local|container]
  skewtest plan    (the flags of run) print the numbered plan and each pairing's repro line; run nothing
  skewtest repro   --repo DIR --host REF --client REF [--kind K] [--journey J] [--report-dir D] [--runner local|container]
  skewtest bisect  --repo DIR --host REF --client REF --kind K --journey J [--side host|client] [--good REF] [--bad REF]
                   the release, then the commit, where one side's change made the pairing fail (docs/bisect.md)
  skewtest bisect  --repo DIR --contract --good REF --bad REF [--against REF]   the commit whose contract first breaks the rules
  skewtest recheck [--repo DIR] [--report-dir D] REPORT_DIR   re-judge a saved run's transcripts with today's checks
  skewtest replay  [--repo DIR] [PIN RULES] [--report-dir D] REPORT_DIR   a saved run's frames into every build's decoders, no peer
  skewtest record  [--repo DIR] [--build LABEL] [--as RELEASE] REPORT_DIR   keep a run's reference traffic as a release's fixtures
  skewtest fuzz    --repo DIR [--host REF --client REF | PIN RULES] [--cases N | --budget D] [--seed S] [--corpus DIR] [--generator G,...] [--exclude EVENT,...]
  skewtest explore (the flags of fuzz) [--drawn-only]   fuzz with journeys drawn from the drivers' described vocabulary (docs/explore.md)
  skewtest pins    --repo DIR [PIN RULES]          print the pins and why every other tag is skipped
  skewtest pins lock --repo DIR [PIN RULES]       record the tags' commits in skewtest.lock
  skewtest build   --repo DIR [PIN RULES] [--runner local|container]
  skewtest cache   ls | prune [--older-than D] [--all] [--cache-dir D]
  skewtest contract diff [--repo DIR] [--allow RULE[@POINTER]] OLD NEW   the evolution rules between two contracts
  skewtest contract check --repo DIR [PIN RULES] [--since TAG] [--allow ...] [--strict]   every stable tag pair, and each pin against the working tree
  skewtest contract verify --repo DIR   build the working tree; does its contractCommand speak the committed contract?
  skewtest contract decode [--repo DIR] CONTRACT [FILE|-]   sample frames (hex, base64, JSON lines, a transcript) read with a contract, offline
  skewtest contract infer -o FILE | --out DIR | --against CONTRACT DIR...   a draft contract from recorded traffic (reports, fixtures, skewtest tap)
  skewtest init    [--repo DIR] [--product NAME] [--kind K,...]   write a commented skewtest.yaml, a contract, a driver and a first journey
  skewtest doctor  [--repo DIR]   check a subject's setup step by step (yaml, contract, journeys, build, drivers, a reference pairing, old tags) and say what to fix
  skewtest compat  [--repo DIR]   the COMPAT(name) shims: removable now, overdue, or still needed and by which supported releases
  skewtest tap     --listen ADDR --upstream ws://HOST:PORT --record DIR [--for D]   record a product's own tests' traffic, no drivers
  skewtest driver check [--role host|client] [--kind K] -- CMD [ARGS...]   run any executable as a driver and check it speaks the protocol
  skewtest merge-reports [--report-dir D] DIR...   merge the reports of run --shard k/n into one
  skewtest transcript [--json] PAIRING_DIR         a pairing's frames and what the receivers' contracts read from them
  skewtest example [--subject NAME] [--source DIR] DIR   write an example subject's history as a git repository
  skewtest demo    [--subject NAME] [--report-dir D] [--known-bugs=false]   write it to a temporary directory, run it, then show its known release-skew bugs red
  skewtest version  (or --version)   the version, the Go version and the platform skewtest was built with
  skewtest completion bash|zsh|fish   print a shell completion script (docs/reference.md, Shell completions)

REF is a tag, branch or commit of the subject, or "worktree" for its working tree.
PIN RULES (default: skewtest.yaml's pins section, else the newest stable vX.Y.Z tag):
  --pins REF,...  --last N  --window  --ignore GLOB
Exit codes: 0 compatible, 1 findings, 2 usage or configuration error, 3 infrastructure error
(a run with both findings and errors exits 3: its matrix is incomplete).
Run "skewtest COMMAND -h" for a command's flags.
`

// isHelp says whether arg asks for help.
func isHelp(arg string) bool {
	switch arg {
	case "-h", "-help", "--help", "help":
		return true
	}
	return false
}

func dispatch(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprint(stderr, usageText)
		return usagef("no command")
	}
	switch {
	case isHelp(args[0]):
		fmt.Fprint(stdout, usageText)
		return nil
	case args[0] == "--version" || args[0] == "-version":
		return cmdVersion(ctx, args[1:], stdout, stderr)
	}
	f, ok := commands()[args[0]]
	if !ok {
		if err := didYouMean("", args[0], append(visibleCommands(), "help")); err != nil {
			return err
		}
		fmt.Fprint(stderr, usageText)
		return usagef("unknown command %q", args[0])
	}
	// The library names the options it checks as a Go caller sets them; the user typed flags.
	return flagged(f(ctx, args[1:], stdout, stderr))
}
