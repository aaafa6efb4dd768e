//go:build !unix

package builds

import "os/exec"

func ownProcessGroup(*exec.Cmd) {}

func killProcessGroup(*exec.Cmd) {}
