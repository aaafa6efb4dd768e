// Package tlsrun is run by notesd's skew suite as `go test`, with a $TMPDIR of its own: a
// plain Go test that calls skewtesting.Run on notesd's working tree while its host serves
// TLS. The suite then looks in that $TMPDIR for the run's certificate authority (tls_test.go).
package tlsrun

import (
	"os"
	"testing"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/skewtesting"
)

// TestMain lets this test binary guard the builds and drivers it starts (skewtest.Main).
func TestMain(m *testing.M) {
	skewtest.Main()
	m.Run()
}

func TestTLSRun(t *testing.T) {
	repo := os.Getenv("NOTESD_SKEW_REPO")
	if repo == "" {
		t.Skip("run by notesd's skew suite (tls_test.go), which sets NOTESD_SKEW_REPO")
	}
	skewtesting.Run(t, skewtest.Config{Repo: repo, CacheDir: os.Getenv("NOTESD_SKEW_CACHE"), ReportDir: os.Getenv("NOTESD_SKEW_REPORT"),
		Host: "worktree", Client: "worktree", Kinds: []string{"cli"}, Seed: 1})
}
