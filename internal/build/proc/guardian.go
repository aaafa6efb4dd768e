//go:build unix

package proc

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
)

const (
	// envGuardian is set, to the guardian's mode, in the environment of a guardian.
	envGuardian = "SKEWTEST_PROC_GUARDIAN"
	// guardianArg0 is a guardian's argv[0]; it and envGuardian together make a guardian.
	guardianArg0 = "skewtest-guardian"
	// EnvHoldTeardown, for tests, names a FIFO: a guardian that said the command's status
	// reads it to the end (until a writer opens and closes it) before it kills what the
	// command left, standing in for a teardown that is slow on a saturated machine. The
	// command does not get it.
	EnvHoldTeardown = "SKEWTEST_PROC_HOLD_TEARDOWN"
	// EnvGuard chooses how commands are guarded: "" or "auto" (the strongest that works
	// here), "pidns", "subreaper" (Linux), "group", or "off" (no guardian).
	EnvGuard = "SKEWTEST_GUARD"
)

// The guardian's inherited descriptors besides stdio.
const (
	statusFD   = 3 // guardian → parent: "started PID" or "error ERRNO TEXT", then "exit N" or "signal N" as soon as the command is reaped
	lifelineFD = 4 // parent → guardian: never written; EOF means the parent died or called Kill
)

// hooked is set by Main: this program can run as a guardian, so Start may start one.
var hooked atomic.Bool

// Main makes this program able to guard the commands it starts. Call it first thing in
// main, and in TestMain of a test binary whose specs start commands. When this process is
// a guardian (Start runs this same program as one), Main does the guardian's work and
// exits with the command's status, never returning; otherwise it returns at once.
//
// Without Main, Start runs commands directly in their own process group, and says once on
// stderr that a killed process may leave them running.
func Main() {
	if m := os.Getenv(envGuardian); m != "" && len(os.Args) > 0 && os.Args[0] == guardianArg0 {
		os.Exit(guard(mode(m)))
	}
	hooked.Store(true)
}

// forwardedSignals are the signals a guardian passes on to the command's process group.
var forwardedSignals = []os.Signal{
	syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP, syscall.SIGQUIT, syscall.SIGUSR1, syscall.SIGUSR2,
}

func forwarded(sig syscall.Signal) bool {
	for _, s := range forwardedSignals {
		if s == sig {
			return true
		}
	}
	return false
}

// guard is the guardian: it starts the command (os.Args[1], with argv os.Args[2:]) in its
// own process group, forwards signals to that group, and when the command exits, or the
// lifeline closes, says the command's status, kills every process left and exits with
// that status.
func guard(m mode) int {
	status := os.NewFile(statusFD, "status")
	life := os.NewFile(lifelineFD, "lifeline")
	syscall.CloseOnExec(statusFD)
	syscall.CloseOnExec(lifelineFD)
	say := func(format string, args ...any) { fmt.Fprintf(status, format+"\n", args...) }

	if err := setupGuardian(m); err != nil {
		say("error 0 %s guardian: %v", m, err)
		return 125
	}
	if m.probe() {
		say("started 0")
		say("exit 0")
		return 0
	}
	if len(os.Args) < 3 {
		say("error 0 guardian: no command")
		return 125
	}
	sigs := make(chan os.Signal, 16)
	signal.Notify(sigs, forwardedSignals...)
	p, err := os.StartProcess(os.Args[1], os.Args[2:], &os.ProcAttr{
		Env:   withoutGuardian(os.Environ()),
		Files: []*os.File{os.Stdin, os.Stdout, os.Stderr},
		Sys:   &syscall.SysProcAttr{Setpgid: true},
	})
	if err != nil {
		var errno syscall.Errno
		errors.As(err, &errno)
		say("error %d %v", int(errno), err)
		return 127
	}
	pid := p.Pid
	_ = p.Release() // reaped below, by pid
	say("started %d", pid)

	// mu orders signals to the command's group with its reaping: none after it.
	var mu sync.Mutex
	reaped := false
	go func() {
		for s := range sigs {
			mu.Lock()
			if !reaped {
				_ = syscall.Kill(-pid, s.(syscall.Signal))
			}
			mu.Unlock()
		}
	}()
	go func() {
		_, _ = io.Copy(io.Discard, life)
		mu.Lock()
		killRest(m, pid, !reaped)
		mu.Unlock()
	}()
	ws := waitCommand(pid, func() {
		mu.Lock()
		reaped = true
		mu.Unlock()
	})
	// Say the command's status before tearing down: killing and reaping what it left (a
	// subreaper lists /proc), and the exit of a namespace's init, can take seconds on a
	// saturated machine, and the parent judges the command by when it exited (Cmd.Exited).
	code := ws.ExitStatus()
	if ws.Signaled() {
		say("signal %d", int(ws.Signal()))
		code = 128 + int(ws.Signal())
	} else {
		say("exit %d", code)
	}
	if hold := os.Getenv(EnvHoldTeardown); hold != "" {
		_, _ = os.ReadFile(hold)
	}
	mu.Lock()
	killRest(m, pid, false)
	mu.Unlock()
	reapRest(m, pid)
	return code
}

// withoutGuardian is env without the guardian's variables, HOST_PROC as the command was given
// it (see guardianEnv).
func withoutGuardian(env []string) []string {
	out := make([]string, 0, len(env))
	var hostProc string
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, envGuardian+"="), strings.HasPrefix(kv, envHostProc+"="),
			strings.HasPrefix(kv, EnvHoldTeardown+"="):
		case strings.HasPrefix(kv, envHostProcWas+"="):
			hostProc = strings.TrimPrefix(kv, envHostProcWas+"=")
		default:
			out = append(out, kv)
		}
	}
	if hostProc != "" {
		out = append(out, envHostProc+"="+strings.TrimPrefix(hostProc, "="))
	}
	return out
}

// envHostProc is where gopsutil, which testcontainers-go's bootstrap package calls in its
// init, looks for /proc; envHostProcWas carries the command's own value past the guardian
// ("=" and the value; absent when the command had none).
const (
	envHostProc    = "HOST_PROC"
	envHostProcWas = "SKEWTEST_PROC_HOST_PROC"
)

// guardianEnv is the environment a guardian starts with: the command's env, the guardian's
// mode, and HOST_PROC pointing nowhere. A guardian is this program started again, so every
// package's init runs before Main; testcontainers-go's bootstrap init lists every process
// of the machine to name its session, which cost a guardian 10 to 70 ms on a busy machine
// (two guardians start for every pairing). With no /proc to list it gives up at once; the
// guardian never uses what it computes. The command gets its HOST_PROC back (withoutGuardian).
func guardianEnv(env []string, m mode) []string {
	out := make([]string, 0, len(env)+3)
	for _, kv := range env {
		switch {
		case strings.HasPrefix(kv, envGuardian+"="), strings.HasPrefix(kv, envHostProcWas+"="):
		case strings.HasPrefix(kv, envHostProc+"="):
			out = append(out, envHostProcWas+"="+strings.TrimPrefix(kv, envHostProc))
		default:
			out = append(out, kv)
		}
	}
	return append(out, envGuardian+"="+string(m), envHostProc+"=/nonexistent/skewtest-guardian")
}
