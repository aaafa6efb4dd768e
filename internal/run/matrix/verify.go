package matrix

import (
	"context"
	"path/filepath"
	"time"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/usage"
)

// ContractCommand reads the working tree's skewtest.yaml (a missing one is an error here)
// and returns it with the contractCommand it names; none is a usage error.
func ContractCommand(repo string) (*builds.Config, error) {
	root, err := pins.Root(repo)
	if err != nil {
		return nil, err
	}
	cfg, err := builds.LoadConfig(filepath.Join(root, builds.ConfigFile))
	if err != nil {
		return nil, err
	}
	if len(cfg.ContractCommand) == 0 {
		return nil, usage.Errorf("%s names no contractCommand: add one that prints the contract the build speaks, e.g. contractCommand: [\"./driver\", \"contract\"] (docs/subject.md)", builds.ConfigFile)
	}
	return cfg, nil
}

// SpokenContract builds the working tree (through the cache, with o's runner) and runs
// the contractCommand its skewtest.yaml names: it returns what the code says it speaks,
// and the command that said it (`skewtest contract verify` diffs that with the committed
// contract). A skewtest.yaml without a contractCommand is a usage error.
func SpokenContract(ctx context.Context, o Config, timeout time.Duration) (spoken []byte, command []string, err error) {
	if err := o.Defaults(); err != nil {
		return nil, nil, err
	}
	cfg, err := ContractCommand(o.Repo)
	if err != nil {
		return nil, nil, err
	}
	b, progress, done, err := NewBuilder(ctx, o.CacheDir, o.Verbose, o.Runner, o.Stderr)
	if err != nil {
		return nil, nil, err
	}
	built, _, err := BuildAll(ctx, b, o.Repo, []builds.Source{builds.Worktree()}, nil, progress)
	done()
	if err != nil {
		return nil, nil, err
	}
	if built[0].Err != nil {
		return nil, nil, built[0].Err
	}
	out, err := cfg.SpeakContract(ctx, built[0].Dir, timeout)
	return out, cfg.ContractCommand, err
}
