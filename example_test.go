package skewtest_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/skewtest/skewtest"
	"github.com/skewtest/skewtest/internal/adopt/example"
	"github.com/skewtest/skewtest/internal/testkit/testcache"
)

// The notesd example subject's working tree and its last release, paired both ways with
// the references, on the cli client and the notes journey.
func ExampleRun() {
	repo, cleanup := notesdHistory() // the history `skewtest example --subject notesd` writes
	defer cleanup()

	run, err := skewtest.Run(context.Background(), skewtest.Config{
		Repo:      repo,
		Pins:      skewtest.Pins{Last: 1},
		Kinds:     []string{"cli"},
		Journeys:  []string{"notes"},
		ReportDir: filepath.Join(repo, "skewtest-report"),
		CacheDir:  testcache.Dir(func() string { return filepath.Join(repo, "cache") }),
		Seed:      1,
	})
	if err != nil {
		fmt.Println("the run could not be made:", err)
		return
	}
	fmt.Println("exit code", run.ExitCode())
	for _, p := range run.Pairings {
		fmt.Println(p.Label(), p.Status)
	}
	// Output:
	// exit code 0
	// host worktree × cli client worktree · notes pass
	// host v0.3.0 × cli client v0.3.0 · notes pass
	// host v0.3.0 × cli client worktree · notes pass
	// host worktree × cli client v0.3.0 · notes pass
}

// A mistake in the config is the user's to fix: the command exits 2 on it.
func ExampleIsUsage() {
	_, err := skewtest.Run(context.Background(), skewtest.Config{Repo: "/src/no-such-product"})
	fmt.Println(skewtest.IsUsage(err), err)
	// Output:
	// true open /src/no-such-product: does not exist: give the directory of the subject's git repository
}

// notesdHistory writes the notesd example subject's release history (real tags, each built
// from its own tree) to a temporary directory.
func notesdHistory() (string, func()) {
	dir, err := os.MkdirTemp("", "skewtest-example-")
	if err != nil {
		panic(err)
	}
	src, err := example.FindSource("notesd")
	if err == nil {
		_, err = example.Write(src, filepath.Join(dir, "notesd"))
	}
	if err != nil {
		panic(errors.Join(err, os.RemoveAll(dir)))
	}
	return filepath.Join(dir, "notesd"), func() { _ = os.RemoveAll(dir) }
}
