package driver

import (
	"os"

	"golang.org/x/sys/unix"
)

// growPipe asks for a pipeSize capacity for the pipe f is an end of. It is best effort: a
// user over the kernel's pipe-user-pages-soft keeps the default size, which only costs time.
// It goes through SyscallConn, not Fd, which would make f blocking (and its deadlines moot).
func growPipe(f *os.File) {
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { _, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeSize) })
	}
}

// pipeCapacity is the capacity of the pipe f is an end of; 0 where it cannot tell.
func pipeCapacity(f *os.File) int {
	n := 0
	if c, err := f.SyscallConn(); err == nil {
		_ = c.Control(func(fd uintptr) { n, _ = unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0) })
	}
	return n
}
