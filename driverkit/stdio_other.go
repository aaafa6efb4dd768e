//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package driverkit

import "os"

// protocolStdout cannot move file descriptors here: the protocol keeps os.Stdout's file
// and only os.Stdout is pointed at stderr.
func protocolStdout() *os.File { return nil }
