package driverkit

import (
	"os"
	"strconv"
)

// Roles a driver plays (Env.Role, Hello.Role).
const (
	Host   = "host"
	Client = "client"
)

// Env is what skewtest tells a driver through its environment (the SKEWTEST_* variables).
type Env struct {
	// Protocol is the driver protocol version skewtest speaks (SKEWTEST_DRIVER_PROTOCOL); 0
	// when the variable is unset or not a number.
	Protocol int
	// Role is "host" or "client" (SKEWTEST_ROLE).
	Role string
	// Kind is the client kind, e.g. "desktop"; empty for a host (SKEWTEST_KIND).
	Kind string
	// HostURL is, for a client, the base URL to reach the host, ws://127.0.0.1:PORT
	// (SKEWTEST_HOST_URL). It points at skewtest's wire tap, never at the host directly.
	HostURL string
	// BuildLabel is "worktree" or the pin's ref, e.g. "v1.4.173" (SKEWTEST_BUILD_LABEL).
	BuildLabel string
	// BuildRevision is the build's commit, or "worktree" (SKEWTEST_BUILD_REVISION).
	BuildRevision string
}

// FromEnv reads the SKEWTEST_* variables of the process's environment.
func FromEnv() Env {
	p, _ := strconv.Atoi(os.Getenv("SKEWTEST_DRIVER_PROTOCOL"))
	return Env{
		Protocol:      p,
		Role:          os.Getenv("SKEWTEST_ROLE"),
		Kind:          os.Getenv("SKEWTEST_KIND"),
		HostURL:       os.Getenv("SKEWTEST_HOST_URL"),
		BuildLabel:    os.Getenv("SKEWTEST_BUILD_LABEL"),
		BuildRevision: os.Getenv("SKEWTEST_BUILD_REVISION"),
	}
}
