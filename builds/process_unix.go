//go:build unix

package builds

import (
	"os/exec"
	"syscall"
)

// ownProcessGroup starts cmd in its own process group and makes cancellation polite:
// SIGTERM to the whole group, then (after WaitDelay) SIGKILL to the shell.
func ownProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	}
}

// killProcessGroup kills whatever is left of cmd's process group after it exited.
func killProcessGroup(cmd *exec.Cmd) {
	if cmd.Process != nil {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
