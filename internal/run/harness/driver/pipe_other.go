//go:build !linux

package driver

import "os"

// growPipe leaves the pipe's capacity as it is: only Linux lets a process set it.
func growPipe(*os.File) {}

// pipeCapacity is 0: only Linux says a pipe's capacity.
func pipeCapacity(*os.File) int { return 0 }
