package proc

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// chooseMode picks how to guard commands: a PID namespace when the kernel lets this
// process make one (with a user namespace when it is not root), else a subreaper.
func chooseMode(want string) (m mode, notice string) {
	switch want {
	case "off":
		return modeDirect, ""
	case "subreaper":
		return modeSubreaper, ""
	case "group":
		return modeGroup, ""
	case "", "auto", "pidns":
	default:
		notice = EnvGuard + "=" + want + " is not auto, pidns, subreaper, group or off; using auto. "
	}
	tries := []mode{modeUserNS}
	if os.Geteuid() == 0 {
		tries = []mode{modePIDNS, modeUserNS}
	}
	var why []string
	for _, m := range tries {
		err := probe(m)
		if err == nil {
			return m, strings.TrimSpace(notice)
		}
		why = append(why, string(m)+": "+err.Error())
	}
	return modeSubreaper, notice + "cannot start commands in a PID namespace here (" + strings.Join(why, "; ") +
		"); a subreaper guards them instead: they still die with skewtest unless their guardian is killed too (see SKEWTEST_GUARD in docs/subject.md)"
}

// executable is this program, as the kernel knows it (even if its file was replaced).
func executable() (string, error) { return "/proc/self/exe", nil }

// directAttr starts a command without a guardian: its own process group, killed when
// the thread that started it exits.
func directAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// guardianAttr starts a guardian in mode m.
func guardianAttr(m mode) *syscall.SysProcAttr {
	a := &syscall.SysProcAttr{Setpgid: true}
	switch m.base() {
	case modePIDNS:
		a.Cloneflags = syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		a.Pdeathsig = syscall.SIGKILL
	case modeUserNS:
		a.Cloneflags = syscall.CLONE_NEWUSER | syscall.CLONE_NEWPID | syscall.CLONE_NEWNS
		a.Pdeathsig = syscall.SIGKILL
		// The same ids inside as outside, so the command runs as who started it.
		uid, gid := os.Geteuid(), os.Getegid()
		a.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		a.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		// A non-root guardian keeps CAP_SYS_ADMIN (in its own namespace only) across exec
		// to mount /proc; it drops it before starting the command.
		a.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return a
}

// setupGuardian prepares a guardian of mode m before it starts the command.
func setupGuardian(m mode) error {
	switch m.base() {
	case modePIDNS, modeUserNS:
		// A /proc of the new namespace, so that a process finds itself at /proc/$PID.
		// Private first: the mount must not reach the parent's mount namespace.
		if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
			return &os.SyscallError{Syscall: "make / private", Err: err}
		}
		if err := unix.Mount("proc", "/proc", "proc", unix.MS_NOSUID|unix.MS_NODEV|unix.MS_NOEXEC, ""); err != nil {
			return &os.SyscallError{Syscall: "mount /proc", Err: err}
		}
		if err := unix.Prctl(unix.PR_CAP_AMBIENT, unix.PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0); err != nil {
			return &os.SyscallError{Syscall: "clear ambient capabilities", Err: err}
		}
	case modeSubreaper:
		if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
			return &os.SyscallError{Syscall: "become a subreaper", Err: err}
		}
	}
	return nil
}

// killRest kills every process of the command: in a PID namespace, everything but its
// init (this guardian); as a subreaper, the command's group while its leader is not
// reaped, and every descendant; otherwise the command's group.
func killRest(m mode, pgid int, leaderAlive bool) {
	switch m {
	case modePIDNS, modeUserNS:
		_ = syscall.Kill(-1, syscall.SIGKILL)
	case modeSubreaper:
		if leaderAlive {
			killGroup(pgid)
		}
		for _, pid := range descendants(os.Getpid()) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
	default:
		killGroup(pgid)
	}
}

// reapRest kills and reaps what is left (orphans come to a namespace's init and to a
// subreaper) until no child is left.
func reapRest(m mode, pgid int) {
	if m != modePIDNS && m != modeUserNS && m != modeSubreaper {
		return
	}
	for {
		killRest(m, pgid, false)
		var ws syscall.WaitStatus
		_, err := syscall.Wait4(-1, &ws, 0, nil)
		if errors.Is(err, syscall.ECHILD) {
			return
		}
		if err != nil && !errors.Is(err, syscall.EINTR) {
			return
		}
	}
}

// waitCommand reaps children until the command pid exits, calling reaped just before it
// reaps the command, and returns the command's status.
func waitCommand(pid int, reaped func()) syscall.WaitStatus {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_ALL, 0, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if errors.Is(err, syscall.EINTR) {
			continue
		}
		if err != nil {
			// No child at all: the command is gone without a status (cannot happen).
			return syscall.WaitStatus(0xff << 8)
		}
		child := siginfoPID(&info)
		if child == pid {
			reaped()
		}
		var ws syscall.WaitStatus
		for {
			_, err := syscall.Wait4(child, &ws, 0, nil)
			if !errors.Is(err, syscall.EINTR) {
				break
			}
		}
		if child == pid {
			return ws
		}
	}
}

// siginfoPID is si_pid of a SIGCHLD siginfo: the first field of the union that follows
// si_signo, si_errno and si_code, aligned like a pointer (x/sys/unix keeps it opaque).
func siginfoPID(info *unix.Siginfo) int {
	const align = unsafe.Alignof(uintptr(0))
	off := (3*unsafe.Sizeof(int32(0)) + align - 1) &^ (align - 1)
	return int(*(*int32)(unsafe.Add(unsafe.Pointer(info), off)))
}

// awaitExit waits until process pid has exited, leaving it unreaped; true when it could.
func awaitExit(pid int) bool {
	for {
		var info unix.Siginfo
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if !errors.Is(err, syscall.EINTR) {
			return err == nil
		}
	}
}

// descendants lists the processes below pid, from /proc.
func descendants(pid int) []int {
	stats, _ := filepath.Glob("/proc/[0-9]*/stat")
	kids := map[int][]int{}
	for _, p := range stats {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces and parentheses.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		child, err1 := strconv.Atoi(strings.TrimSpace(s[:strings.IndexByte(s, ' ')]))
		ppid, err2 := strconv.Atoi(f[1])
		if err1 == nil && err2 == nil {
			kids[ppid] = append(kids[ppid], child)
		}
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		for _, k := range kids[p] {
			out = append(out, k)
			queue = append(queue, k)
		}
	}
	return out
}
