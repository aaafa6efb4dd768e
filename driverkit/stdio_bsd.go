//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package driverkit

import "syscall"

func dupStderrToStdout() error { return syscall.Dup2(2, 1) }
