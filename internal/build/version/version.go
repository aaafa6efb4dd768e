// Package version says which skewtest this binary is, for `skewtest version` and for the
// toolVersion of every results.json: the version make build stamps into the binary from
// git, else the version the Go toolchain recorded in its build information.
package version

import (
	"runtime"
	"runtime/debug"
)

// Var is the full name of the variable the linker stamps: make build passes
// -ldflags "-X <Var>=$(VERSION)", VERSION being git describe --tags --dirty --always
// unless given.
const Var = "github.com/skewtest/skewtest/internal/build/version.stamped"

// stamped is the version make build gives the linker (-X, see Var); empty when the binary
// was built otherwise (go install, go build, go test). Only the linker sets it.
var stamped string

// Devel is the version of a build that says nothing of where it came from.
const Devel = "(devel)"

// String is this binary's version: the stamped one, else the build information's.
func String() string {
	bi, ok := debug.ReadBuildInfo()
	return Of(stamped, bi, ok)
}

// Of is the version of a binary stamped with stamp (empty: not stamped) whose build
// information is bi (ok false: none). Not stamped, it is the main module's version as the
// go command recorded it: v1.2.3 for go install …@v1.2.3, a pseudo-version naming the commit
// (+dirty with uncommitted changes) for go build in a checkout. Without one it is (devel),
// followed by the commit (+modified) when the build information names it.
func Of(stamp string, bi *debug.BuildInfo, ok bool) string {
	if stamp != "" {
		return stamp
	}
	if !ok || bi == nil {
		return Devel
	}
	if v := bi.Main.Version; v != "" && v != Devel {
		return v
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch {
		case s.Key == "vcs.revision":
			rev = s.Value
		case s.Key == "vcs.modified" && s.Value == "true":
			modified = "+modified"
		}
	}
	if rev == "" {
		return Devel
	}
	return Devel + " " + rev + modified
}

// Platform is the operating system and architecture the binary was built for, as Go names
// them: linux/amd64, darwin/arm64.
func Platform() string { return runtime.GOOS + "/" + runtime.GOARCH }
