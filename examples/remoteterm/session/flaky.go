package session

import (
	"net/http"
	"os"
)

// flakyTurn reports whether the session r opens is the one release.Features.FlakyWithClient
// misbehaves in: the first from a client of its release while its file does not exist
// (creating the file claims the turn, so exactly one session misbehaves, in whichever
// process of the build comes first). A client of the daemon's own release never trips it:
// a reference pairs a build with itself and must stay clean (release.Flaky).
func (d *Daemon) flakyTurn(r *http.Request) bool {
	f := d.rel.FlakyWithClient
	if f == nil || f.Version == "" || f.File == "" || f.Version == d.rel.Version || clientRelease(r) != f.Version {
		return false
	}
	file, err := os.OpenFile(f.File, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false // claimed already (or the file cannot be made: then no session misbehaves)
	}
	_ = file.Close()
	return true
}
