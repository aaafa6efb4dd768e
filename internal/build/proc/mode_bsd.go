//go:build unix && !linux

package proc

import (
	"errors"
	"os"
	"syscall"
)

// chooseMode: without PID namespaces or subreapers (macOS, the BSDs), a guardian watches
// its parent and kills the command's process group.
func chooseMode(want string) (m mode, notice string) {
	switch want {
	case "off":
		return modeDirect, ""
	case "", "auto", "group":
		return modeGroup, ""
	}
	return modeGroup, EnvGuard + "=" + want + " is not available here; using group"
}

func executable() (string, error) { return os.Executable() }

func directAttr() *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func guardianAttr(mode) *syscall.SysProcAttr { return &syscall.SysProcAttr{Setpgid: true} }

func setupGuardian(mode) error { return nil }

func killRest(_ mode, pgid int, _ bool) { killGroup(pgid) }

func reapRest(mode, int) {}

// waitCommand reaps the command. Its orphans are not this guardian's children here.
func waitCommand(pid int, reaped func()) syscall.WaitStatus {
	var ws syscall.WaitStatus
	for {
		_, err := syscall.Wait4(pid, &ws, 0, nil)
		if !errors.Is(err, syscall.EINTR) {
			break
		}
	}
	// Signals forwarded between the reap and this call could reach a reused group id;
	// there is no waitid(WNOWAIT) in the syscall package here to close that gap.
	reaped()
	return ws
}

// awaitExit cannot wait without reaping here: the caller kills the group after Wait.
func awaitExit(int) bool { return false }
