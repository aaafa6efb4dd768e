package driverkit

import "syscall"

func dupStderrToStdout() error { return syscall.Dup3(2, 1, 0) }
