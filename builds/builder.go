package builds

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/gofrs/flock"

	"github.com/skewtest/skewtest/pins"
)

// DefaultTimeout bounds one build's recipe when Builder.Timeout is zero.
const DefaultTimeout = 30 * time.Minute

// Builder builds sources into a shared, content-addressed cache. Its methods may be called
// concurrently, also from several processes sharing CacheDir. Do not copy a Builder after
// first use.
type Builder struct {
	// CacheDir holds the builds and the shared GOCACHE (see the package documentation).
	// Required; see DefaultCacheDir.
	CacheDir string
	// Toolchain identifies the tools the recipe uses, and is part of every key, e.g.
	// "go1.26.8 linux/amd64". Empty means DetectToolchain, once.
	Toolchain string
	// Log receives one progress line per event (building, cached, ok, failed). Nil
	// discards them.
	Log io.Writer
	// Timeout bounds each build's recipe; zero means DefaultTimeout. A build that times
	// out is recorded as failed.
	Timeout time.Duration
	// Parallel bounds BuildAll; zero means runtime.NumCPU().
	Parallel int

	once      sync.Once
	toolchain string
	mu        sync.Mutex // serializes Log
}

// Artifact is a built (or cached) build.
type Artifact struct {
	Label    string  // the source's label: "worktree", "v1.4.175"
	Revision string  // the commit; for the working tree, HEAD's commit ("" if unborn)
	Key      string  // the cache key
	Dir      string  // the output directory ($SKEWTEST_OUT of the recipe); drivers run here
	SrcDir   string  // the materialized tree the recipe ran in
	LogPath  string  // build.log
	Config   *Config // parsed from this build's own skewtest.yaml
	Cached   bool    // true when the build was found in the cache, not made now
}

// HostArgv is the host driver's argv, with a "./" first word made absolute in Dir.
func (a *Artifact) HostArgv() []string {
	return resolveArgv(a.Dir, a.Config.Drivers.Host)
}

// ClientArgv is the argv of the client driver of one kind, resolved like HostArgv.
func (a *Artifact) ClientArgv(kind string) ([]string, error) {
	argv, ok := a.Config.Drivers.Clients[kind]
	if !ok {
		return nil, fmt.Errorf("build %s has no %q client driver (it has: %s)",
			a.Label, kind, strings.Join(a.Config.ClientKinds(), ", "))
	}
	return resolveArgv(a.Dir, argv), nil
}

// ContractPath is the path of this build's wire contract.
func (a *Artifact) ContractPath() string {
	return filepath.Join(a.SrcDir, filepath.FromSlash(a.Config.Contract))
}

func resolveArgv(dir string, argv []string) []string {
	out := append([]string(nil), argv...)
	if len(out) > 0 && strings.HasPrefix(out[0], "./") {
		out[0] = filepath.Join(dir, filepath.FromSlash(out[0]))
	}
	return out
}

// DefaultCacheDir is $XDG_CACHE_HOME/skewtest (os.UserCacheDir).
func DefaultCacheDir() (string, error) {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "", fmt.Errorf("find the cache directory (set --cache-dir): %w", err)
	}
	return filepath.Join(dir, "skewtest"), nil
}

// DetectToolchain returns "<GOVERSION> <GOOS>/<GOARCH>" from `go env`.
func DetectToolchain(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return "", fmt.Errorf("go env: unexpected output %q", out)
	}
	return f[0] + " " + f[1] + "/" + f[2], nil
}

func (b *Builder) toolchainString(ctx context.Context) string {
	b.once.Do(func() {
		b.toolchain = b.Toolchain
		if b.toolchain != "" {
			return
		}
		t, err := DetectToolchain(ctx)
		if err != nil {
			t = "unknown " + runtime.GOOS + "/" + runtime.GOARCH
		}
		b.toolchain = t
	})
	return b.toolchain
}

func (b *Builder) logf(format string, args ...any) {
	if b.Log == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintf(b.Log, format+"\n", args...)
}

// plan is what Build knows about a source before building it.
type plan struct {
	label       string
	revision    string
	tree        string // the key's tree part
	config      *Config
	materialize func(ctx context.Context, dst string) error
}

// Build builds one source of the repository containing repoDir, or returns it from the
// cache. It reads the source's own skewtest.yaml (a *ConfigError if it is wrong),
// computes the key, and if the cache has a successful build of that key returns it with
// Cached set, without writing or running anything. Otherwise it takes the key's lock,
// materializes the tree into a staging directory, runs the recipe and publishes the
// result. A failing recipe gives a *BuildError; the failure is recorded with its log and
// retried by the next Build of the same key (failures are often transient: a network
// hiccup, a full disk, a killed runner), while a success is kept forever.
func (b *Builder) Build(ctx context.Context, repoDir string, src Source) (*Artifact, error) {
	if src.Label == "" {
		src.Label = WorktreeLabel
	}
	if b.CacheDir == "" {
		return nil, errors.New("build " + src.Label + ": no cache directory (set Builder.CacheDir)")
	}
	cacheDir, err := filepath.Abs(b.CacheDir)
	if err != nil {
		return nil, fmt.Errorf("build %s: cache directory: %w", src.Label, err)
	}
	repo, err := pins.Open(repoDir)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", src.Label, err)
	}
	var p *plan
	if src.IsWorktree() {
		p, err = planWorktree(ctx, repo, src.Label, cacheDir)
	} else {
		p, err = planCommit(repo, src)
	}
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", src.Label, err)
	}

	key := cacheKey(p.tree, p.config.Build.Steps, b.toolchainString(ctx))
	buildsDir := filepath.Join(cacheDir, "builds")
	final := filepath.Join(buildsDir, key)
	art := &Artifact{
		Label:    p.label,
		Revision: p.revision,
		Key:      key,
		Dir:      filepath.Join(final, "out"),
		SrcDir:   filepath.Join(final, "src"),
		LogPath:  filepath.Join(final, "build.log"),
		Config:   p.config,
	}
	if cachedOK(final, key) {
		art.Cached = true
		b.logf("build %s: cached (%s)", p.label, key[:12])
		return art, nil
	}

	if err := os.MkdirAll(buildsDir, 0o755); err != nil {
		return nil, fmt.Errorf("build %s: %w", p.label, err)
	}
	lock := flock.New(filepath.Join(buildsDir, ".lock-"+key))
	defer lock.Close()
	locked, err := lock.TryLock()
	if err == nil && !locked {
		b.logf("build %s: waiting for another build of %s", p.label, key[:12])
		locked, err = lock.TryLockContext(ctx, 100*time.Millisecond)
	}
	if err != nil || !locked {
		return nil, fmt.Errorf("build %s: lock %s: %w", p.label, lock.Path(), errors.Join(err, ctx.Err()))
	}
	defer lock.Unlock()

	// Someone else may have built it while we waited.
	if cachedOK(final, key) {
		art.Cached = true
		b.logf("build %s: cached (%s)", p.label, key[:12])
		return art, nil
	}
	if err := b.make(ctx, p, key, buildsDir, final); err != nil {
		return nil, err
	}
	return art, nil
}

// make builds p under the key's lock and publishes it to final, successful or not.
func (b *Builder) make(ctx context.Context, p *plan, key, buildsDir, final string) error {
	// Holding the lock, any staging directory of this key is left over from a killed
	// process, and a published entry is a recorded failure to retry.
	stale, _ := filepath.Glob(filepath.Join(buildsDir, ".staging-"+key+"-*"))
	for _, dir := range stale {
		if err := removeAll(dir); err != nil {
			return fmt.Errorf("build %s: remove stale %s: %w", p.label, dir, err)
		}
	}
	if err := removeAll(final); err != nil {
		return fmt.Errorf("build %s: remove failed build %s: %w", p.label, final, err)
	}

	staging, err := os.MkdirTemp(buildsDir, ".staging-"+key+"-")
	if err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	published := false
	defer func() {
		if !published {
			_ = removeAll(staging)
		}
	}()

	srcDir, outDir := filepath.Join(staging, "src"), filepath.Join(staging, "out")
	for _, d := range []string{srcDir, outDir} {
		if err := os.Mkdir(d, 0o755); err != nil {
			return fmt.Errorf("build %s: %w", p.label, err)
		}
	}
	b.logf("build %s: building (%s)", p.label, key[:12])
	start := time.Now()
	if err := p.materialize(ctx, srcDir); err != nil {
		return fmt.Errorf("build %s: materialize: %w", p.label, err)
	}

	logFile, err := os.Create(filepath.Join(staging, "build.log"))
	if err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	fmt.Fprintf(logFile, "# skewtest build %s (%s), toolchain %s\n", p.label, key, b.toolchainString(ctx))
	rctx, cancel := context.WithTimeout(ctx, timeout)
	runErr := runRecipe(rctx, p.config.Build.Steps, srcDir, outDir, filepath.Join(filepath.Dir(buildsDir), "gocache"), logFile)
	cancel()
	if runErr != nil && ctx.Err() == nil && rctx.Err() != nil {
		runErr = fmt.Errorf("timed out after %s: %w", timeout, runErr)
		fmt.Fprintf(logFile, "# build timed out after %s\n", timeout)
	}
	if err := logFile.Close(); err != nil && runErr == nil {
		runErr = err
	}
	if ctx.Err() != nil {
		// Cancelled, not failed: nothing is recorded.
		return fmt.Errorf("build %s: %w", p.label, ctx.Err())
	}

	rec := &record{
		SchemaVersion: 1,
		Key:           key,
		Label:         p.label,
		Revision:      p.revision,
		Tree:          p.tree,
		Toolchain:     b.toolchainString(ctx),
		Steps:         p.config.Build.Steps,
		Status:        statusOK,
		StartedAt:     start.UTC(),
		DurationMS:    time.Since(start).Milliseconds(),
	}
	if runErr != nil {
		rec.Status, rec.Error = statusFailed, runErr.Error()
	}
	if err := writeRecord(staging, rec); err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	if err := os.Rename(staging, final); err != nil {
		return fmt.Errorf("build %s: publish: %w", p.label, err)
	}
	published = true
	took := time.Since(start).Round(time.Millisecond)
	logPath := filepath.Join(final, "build.log")
	if runErr != nil {
		b.logf("build %s: failed after %s, log: %s", p.label, took, logPath)
		return &BuildError{Label: p.label, LogPath: logPath, Tail: logTail(logPath, TailLines), Err: runErr}
	}
	b.logf("build %s: ok in %s", p.label, took)
	return nil
}

// planCommit reads a commit's tree and its skewtest.yaml from the object database. The key
// uses the git tree hash, so nothing is written when the build is cached.
func planCommit(repo *git.Repository, src Source) (*plan, error) {
	commit, err := repo.CommitObject(src.Commit)
	if err != nil {
		return nil, fmt.Errorf("commit %s: %w", src.Commit, err)
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of commit %s: %w", src.Commit, err)
	}
	name := src.Label + ":" + ConfigFile
	f, err := tree.File(ConfigFile)
	if errors.Is(err, object.ErrFileNotFound) {
		return nil, &ConfigError{File: name, Msg: "not found: a subject needs " + ConfigFile +
			" at the root of its repository (see docs/subject.md)"}
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := f.Contents()
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	cfg, err := ParseConfig(name, []byte(data))
	if err != nil {
		return nil, err
	}
	return &plan{
		label:    src.Label,
		revision: commit.Hash.String(),
		tree:     "git:" + tree.Hash.String(),
		config:   cfg,
		materialize: func(ctx context.Context, dst string) error {
			return writeTree(ctx, tree, dst)
		},
	}, nil
}

// planWorktree hashes the working tree and reads its skewtest.yaml. The cache directory is
// left out of the tree should it live inside the working tree.
func planWorktree(ctx context.Context, repo *git.Repository, label, cacheDir string) (*plan, error) {
	snap, err := scanWorktree(ctx, repo, cacheDir)
	if err != nil {
		return nil, err
	}
	cfg, err := LoadConfig(filepath.Join(snap.root, ConfigFile))
	if err != nil {
		return nil, err
	}
	revision := ""
	if head, err := repo.Head(); err == nil {
		revision = head.Hash().String()
	}
	return &plan{
		label:       label,
		revision:    revision,
		tree:        "worktree-sha256:" + snap.digest,
		config:      cfg,
		materialize: snap.write,
	}, nil
}
