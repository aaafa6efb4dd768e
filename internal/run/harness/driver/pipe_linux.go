package driver

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeSize is the capacity asked for the driver's stdin and stdout pipes: a terminal's
// observations and inputs run to megabytes a line, and through Linux's default 64 KiB pipe
// each such line is a few dozen writes that block and reads that wake the reader, for the
// driver and for skewtest alike. 1 MiB is Linux's default pipe-max-size.
const pipeSize = 1 << 20

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
