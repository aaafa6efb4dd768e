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

	"github.com/gofrs/flock"

	"github.com/skewtest/skewtest/internal/declare/pins"
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
	// Runner runs recipes; nil means Local{} (on the host).
	Runner Runner
	// Toolchain, when set, identifies the tools every recipe uses and replaces what
	// Runner.Toolchain says in every key (tests and benchmarks fix it).
	Toolchain string
	// Log receives one plain progress line per event (Event.String). Nil discards them.
	Log io.Writer
	// Progress, if not nil, receives every event as it happens, from the goroutine making
	// the build: it must be quick and safe for concurrent use.
	Progress func(Event)
	// Timeout bounds each build's recipe; zero means DefaultTimeout. A build that times
	// out is recorded as failed.
	Timeout time.Duration
	// Parallel bounds BuildAll; zero means runtime.NumCPU().
	Parallel int

	mu         sync.Mutex // serializes Log, guards toolchains
	toolchains map[string]string
	sweepOnce  sync.Once // the first Build removes what killed processes left
}

// Artifact is a built (or cached) build.
type Artifact struct {
	Label    string  // the source's label: "worktree", "v1.4.175"
	Revision string  // the commit; for the working tree, HEAD's commit ("" if unborn)
	Key      string  // the cache key
	Dir      string  // the output directory ($SKEWTEST_OUT of the recipe); drivers run here
	SrcDir   string  // the materialized tree the recipe ran in
	LogPath  string  // build.log
	Config   *Config // this build's own skewtest.yaml, or the working tree's (see Versions)
	Cached   bool    // true when the build was found in the cache, not made now
	// Dirty is set for a working tree whose files are not its Revision's (changes not
	// committed, files not tracked).
	Dirty bool
	// Version is the row of the working tree's versions table that applied, or nil.
	Version *VersionRule
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
		return "", fmt.Errorf("find the cache directory: %w", err)
	}
	return filepath.Join(dir, "skewtest"), nil
}

// DetectToolchain returns "<GOVERSION> <GOOS>/<GOARCH>" from `go env`, or "no go
// <GOOS>/<GOARCH>" when there is no go command (a subject need not be written in Go).
func DetectToolchain(ctx context.Context) (string, error) {
	out, err := exec.CommandContext(ctx, "go", "env", "GOVERSION", "GOOS", "GOARCH").Output()
	if errors.Is(err, exec.ErrNotFound) {
		return "no go " + runtime.GOOS + "/" + runtime.GOARCH, nil
	}
	if err != nil {
		return "", fmt.Errorf("go env: %w", err)
	}
	f := strings.Fields(string(out))
	if len(f) != 3 {
		return "", fmt.Errorf("go env: unexpected output %q", out)
	}
	return f[0] + " " + f[1] + "/" + f[2], nil
}

func (b *Builder) runner() Runner {
	if b.Runner == nil {
		return Local{}
	}
	return b.Runner
}

// toolchainFor returns the toolchain string of the key for a versions row's toolchain
// name, asking the runner once per name.
func (b *Builder) toolchainFor(ctx context.Context, name string) (string, error) {
	if b.Toolchain != "" {
		return b.Toolchain, nil
	}
	b.mu.Lock()
	t, ok := b.toolchains[name]
	b.mu.Unlock()
	if ok {
		return t, nil
	}
	t, err := b.runner().Toolchain(ctx, name)
	if err != nil {
		return "", err
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.toolchains == nil {
		b.toolchains = map[string]string{}
	}
	b.toolchains[name] = t
	return t, nil
}

func (b *Builder) emit(e Event) {
	if b.Progress != nil {
		b.Progress(e)
	}
	if b.Log == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	fmt.Fprintln(b.Log, e)
}

// Build builds one source of the repository containing repoDir, or returns it from the
// cache. It reads the source's own skewtest.yaml (a *ConfigError if it is wrong) and the
// working tree's versions table, computes the key, and if the cache has a successful
// build of that key returns it with Cached set, without writing or running anything.
// Otherwise it takes the key's lock, materializes the tree (with the row's overlays) into
// a staging directory, runs the recipe with the Runner and publishes the result. A failing
// recipe gives a *BuildError; the failure is recorded with its log and retried by the next
// Build of the same key (failures are often transient: a network hiccup, a full disk, a
// killed runner), while a success is kept until pruned.
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
	b.sweepOnce.Do(func() { _ = sweep(cacheDir) })
	repo, err := pins.Open(repoDir)
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", src.Label, err)
	}
	var p *plan
	if src.IsWorktree() {
		p, err = planWorktree(ctx, repo, src.Label, cacheDir)
	} else {
		p, err = planCommit(ctx, repo, src, cacheDir)
	}
	if err != nil {
		return nil, fmt.Errorf("build %s: %w", src.Label, err)
	}
	toolchainName := ""
	if p.rule != nil {
		toolchainName = p.rule.Toolchain
	}
	toolchain, err := b.toolchainFor(ctx, toolchainName)
	if err != nil {
		return nil, fmt.Errorf("build %s: toolchain: %w", src.Label, err)
	}
	p.toolchain, p.toolchainName = toolchain, toolchainName

	key := cacheKey(p.tree, p.config.Build.Steps, toolchain, p.overlay)
	buildsDir := filepath.Join(cacheDir, "builds")
	final := filepath.Join(buildsDir, key)
	art := &Artifact{
		Label:    p.label,
		Revision: p.revision,
		Dirty:    p.dirty,
		Key:      key,
		Dir:      filepath.Join(final, "out"),
		SrcDir:   filepath.Join(final, "src"),
		LogPath:  filepath.Join(final, "build.log"),
		Config:   p.config,
		Version:  p.rule,
	}
	if cachedOK(final, key) {
		art.Cached = true
		b.emit(Event{Label: p.label, Key: key, State: Cached, LogPath: art.LogPath})
		return art, nil
	}

	if err := os.MkdirAll(buildsDir, 0o755); err != nil {
		return nil, fmt.Errorf("build %s: %w", p.label, err)
	}
	lock := flock.New(lockPath(buildsDir, key))
	defer lock.Close()
	if err := b.lock(ctx, lock, p.label, key); err != nil {
		return nil, fmt.Errorf("build %s: lock %s: %w", p.label, lock.Path(), err)
	}
	defer lock.Unlock()
	defer holdLock(lock.Path())() // removed before the lock is released

	// Someone else may have built it while we waited.
	if cachedOK(final, key) {
		art.Cached = true
		b.emit(Event{Label: p.label, Key: key, State: Cached, LogPath: art.LogPath})
		return art, nil
	}
	if err := b.make(ctx, p, key, buildsDir, final); err != nil {
		return nil, err
	}
	return art, nil
}

// lock takes a key's build lock. While another process holds it, it says so (Waiting)
// naming the holder, and again should the holder it could not name, or a new one, write
// itself into the lock's holder file during the wait.
func (b *Builder) lock(ctx context.Context, lock *flock.Flock, label, key string) error {
	locked, err := lock.TryLock()
	if err != nil || locked {
		return err
	}
	holder := lockHolder(lock.Path())
	b.emit(Event{Label: label, Key: key, State: Waiting, Holder: holder, LockPath: lock.Path()})
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	for i := 1; ; i++ {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-tick.C:
		}
		if locked, err := lock.TryLock(); err != nil || locked {
			return err
		}
		if i%5 != 0 {
			continue
		}
		if h := lockHolder(lock.Path()); h != nil && (holder == nil || h.PID != holder.PID || !h.Since.Equal(holder.Since)) {
			holder = h
			b.emit(Event{Label: label, Key: key, State: Waiting, Holder: holder, LockPath: lock.Path()})
		}
	}
}

// make builds p under the key's lock and publishes it to final, successful or not.
func (b *Builder) make(ctx context.Context, p *plan, key, buildsDir, final string) error {
	// Holding the lock, any staging or temporary directory of this key is left over from a
	// killed process, and a published entry is a recorded failure to retry.
	tmpRoot := filepath.Join(filepath.Dir(buildsDir), tmpDirName)
	stale, _ := filepath.Glob(filepath.Join(buildsDir, stagingPrefix+key+"-*"))
	staleTmp, _ := filepath.Glob(filepath.Join(tmpRoot, key+"-*"))
	for _, dir := range append(stale, staleTmp...) {
		if err := removeAll(dir); err != nil {
			return fmt.Errorf("build %s: remove stale %s: %w", p.label, dir, err)
		}
	}
	if err := removeAll(final); err != nil {
		return fmt.Errorf("build %s: remove failed build %s: %w", p.label, final, err)
	}

	staging, err := os.MkdirTemp(buildsDir, stagingPrefix+key+"-")
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
	start := time.Now()
	b.emit(Event{Label: p.label, Key: key, State: Materializing})
	if err := p.materialize(ctx, srcDir); err != nil {
		return fmt.Errorf("build %s: materialize: %w", p.label, err)
	}

	// The recipe's TMPDIR and GOTMPDIR: `go build` leaves its work directories there when
	// it is killed, and they go with the build, whatever its end.
	if err := os.MkdirAll(tmpRoot, 0o755); err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	tmpDir, err := os.MkdirTemp(tmpRoot, key+"-")
	if err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	defer func() { _ = removeAll(tmpDir) }()

	logFile, err := os.Create(filepath.Join(staging, "build.log"))
	if err != nil {
		return fmt.Errorf("build %s: %w", p.label, err)
	}
	timeout := b.Timeout
	if timeout <= 0 {
		timeout = DefaultTimeout
	}
	fmt.Fprintf(logFile, "# skewtest build %s (%s), toolchain %s\n", p.label, key, p.toolchain)
	for _, n := range p.notes {
		fmt.Fprintf(logFile, "# %s\n", n)
	}
	job := &Job{
		Label:     p.label,
		Key:       key,
		Steps:     p.config.Build.Steps,
		Toolchain: p.toolchainName,
		SrcDir:    srcDir,
		OutDir:    outDir,
		GoCache:   filepath.Join(filepath.Dir(buildsDir), "gocache"),
		TmpDir:    tmpDir,
		LockPath:  lockPath(buildsDir, key),
		Log:       logFile,
		StepStarted: func(i, n int, step string) {
			b.emit(Event{Label: p.label, Key: key, State: Running, Step: i, Steps: n, Command: step, Elapsed: time.Since(start)})
		},
	}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	runErr := b.runner().Run(rctx, job)
	timedOut := errors.Is(rctx.Err(), context.DeadlineExceeded)
	cancel()
	if runErr != nil && ctx.Err() == nil && timedOut {
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
		Overlay:       p.overlay,
		Toolchain:     p.toolchain,
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
	took := time.Since(start)
	logPath := filepath.Join(final, "build.log")
	if runErr != nil {
		b.emit(Event{Label: p.label, Key: key, State: Failed, Elapsed: took, LogPath: logPath, Err: runErr})
		return &BuildError{Label: p.label, LogPath: logPath, Tail: logTail(logPath, TailLines), Err: runErr}
	}
	b.emit(Event{Label: p.label, Key: key, State: Built, Elapsed: took, LogPath: logPath})
	return nil
}
