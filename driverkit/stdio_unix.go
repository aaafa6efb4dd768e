//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package driverkit

import (
	"os"
	"syscall"
)

// protocolStdout duplicates file descriptor 1 (the protocol's pipe) to a new,
// close-on-exec descriptor, then makes descriptor 1 a copy of stderr. It returns the new
// descriptor's file, or nil (and changes nothing) when it cannot.
func protocolStdout() *os.File {
	syscall.ForkLock.RLock()
	fd, err := syscall.Dup(1)
	if err == nil {
		syscall.CloseOnExec(fd)
	}
	syscall.ForkLock.RUnlock()
	if err != nil {
		return nil
	}
	if err := dupStderrToStdout(); err != nil {
		_ = syscall.Close(fd)
		return nil
	}
	return os.NewFile(uintptr(fd), "/dev/stdout (driver protocol)")
}
