package container

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/moby/moby/api/types/container"
	"github.com/testcontainers/testcontainers-go"
	tcexec "github.com/testcontainers/testcontainers-go/exec"
	tclog "github.com/testcontainers/testcontainers-go/log"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/build/shell"
)

// Labels on everything the runner starts.
const (
	// Label is "1" on every container and image skewtest makes.
	Label = "skewtest"
	// LockLabel is the path of the build lock held while the container's build runs.
	LockLabel = "skewtest.lock"
	// KeyLabel and BuildLabel name the build.
	KeyLabel   = "skewtest.key"
	BuildLabel = "skewtest.build"
)

// Paths inside a build container.
const (
	srcDir     = "/skewtest/src"
	outDir     = "/skewtest/out"
	goCache    = "/skewtest/gocache"
	goModCache = "/skewtest/gomodcache"
)

// ErrNoEngine means no Docker engine answers (docker info fails).
var ErrNoEngine = errors.New("no Docker engine answers")

// DefaultLifetime bounds a build container's life when the build's context has no
// deadline.
const DefaultLifetime = 2 * time.Hour

// Runner runs recipes in containers; see the package documentation. Make it with New and
// Close it after use. Its methods may be called concurrently.
type Runner struct {
	// GoModCache is the host's module cache, mounted read-only; New sets it from `go env
	// GOMODCACHE`.
	GoModCache string
	// Busybox is the static busybox copied into toolchain images; "" looks in /bin,
	// /usr/bin and $PATH.
	Busybox string
	// Log receives image builds' output and the runner's notes; nil discards them.
	Log io.Writer

	provider *testcontainers.DockerProvider
	logger   tclog.Logger
	mu       sync.Mutex // guards images; serializes image builds and Log
	images   map[string]string
}

var _ builds.Runner = (*Runner)(nil)

// New connects to the Docker engine and checks that it answers; ErrNoEngine when it does
// not. It disables the Ryuk reaper (see the package documentation).
func New(ctx context.Context) (*Runner, error) {
	r := &Runner{logger: tclog.NewNoopLogger(), images: map[string]string{}}
	p, err := newProvider(ctx, r.logger)
	if err != nil {
		return nil, err
	}
	r.provider = p
	if out, err := exec.CommandContext(ctx, "go", "env", "GOMODCACHE").Output(); err == nil {
		r.GoModCache = strings.TrimSpace(string(out))
	}
	return r, nil
}

// Healthy reports whether a Docker engine answers: nil, or an error wrapping ErrNoEngine.
// Like New, it disables the Ryuk reaper.
func Healthy(ctx context.Context) error {
	p, err := newProvider(ctx, tclog.NewNoopLogger())
	if err != nil {
		return err
	}
	return p.Close()
}

func newProvider(ctx context.Context, logger tclog.Logger) (p *testcontainers.DockerProvider, err error) {
	if _, set := os.LookupEnv("TESTCONTAINERS_RYUK_DISABLED"); !set {
		// Ryuk's image cannot be pulled without a registry; skewtest removes its own
		// containers. testcontainers-go reads its configuration once, with the first
		// provider, so this comes before it.
		if err := os.Setenv("TESTCONTAINERS_RYUK_DISABLED", "true"); err != nil {
			return nil, err
		}
	}
	// The library prints the engine's details through its package-level logger, whatever
	// logger a provider is given; silence it (skewtest's output is its own).
	tclog.SetDefault(tclog.NewNoopLogger())
	defer func() {
		// testcontainers-go panics when it finds no Docker host at all.
		if v := recover(); v != nil {
			p, err = nil, fmt.Errorf("%w: %v", ErrNoEngine, v)
		}
	}()
	p, err = testcontainers.NewDockerProvider(testcontainers.WithLogger(logger))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrNoEngine, err)
	}
	hctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	if err := p.Health(hctx); err != nil {
		p.Close()
		return nil, fmt.Errorf("%w: %w", ErrNoEngine, err)
	}
	return p, nil
}

// Close releases the connection to the engine.
func (r *Runner) Close() error { return r.provider.Close() }

func (r *Runner) logWriter() io.Writer {
	if r.Log == nil {
		return io.Discard
	}
	return r.Log
}

func (r *Runner) logf(format string, args ...any) {
	fmt.Fprintf(r.logWriter(), format+"\n", args...)
}

// imageName is the toolchain image's tag for a versions row's toolchain name.
func imageName(ctx context.Context, name string) (string, error) {
	if name != "" {
		return name, nil
	}
	v, _, err := hostGo(ctx)
	return v, err
}

// Toolchain returns "container skewtest/toolchain:<name> <image id>", building the image
// first if it has to (once per name).
func (r *Runner) Toolchain(ctx context.Context, name string) (string, error) {
	tag, err := imageName(ctx, name)
	if err != nil {
		return "", err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	id, ok := r.images[tag]
	if !ok {
		if id, err = r.image(ctx, tag); err != nil {
			return "", err
		}
		r.images[tag] = id
	}
	return "container " + ImageRepo + ":" + tag + " " + id, nil
}

// Run runs job's steps in a new container of its toolchain image and removes the
// container.
func (r *Runner) Run(ctx context.Context, job *builds.Job) (err error) {
	tag, err := imageName(ctx, job.Toolchain)
	if err != nil {
		return err
	}
	if err := r.downloadModules(ctx, job); err != nil {
		return err
	}
	lifetime := DefaultLifetime
	if d, ok := ctx.Deadline(); ok {
		lifetime = time.Until(d) + time.Minute
	}
	mounts := []string{job.SrcDir + ":" + srcDir, job.OutDir + ":" + outDir, job.GoCache + ":" + goCache}
	env := map[string]string{
		"SKEWTEST_OUT": outDir,
		"GOCACHE":      goCache,
		"GOPROXY":      "off",
		"GOFLAGS":      "-mod=mod",
		"GOSUMDB":      "off",
		"HOME":         "/tmp",
	}
	if r.GoModCache != "" {
		mounts = append(mounts, r.GoModCache+":"+goModCache+":ro")
		env["GOMODCACHE"] = goModCache
	}
	if err := os.MkdirAll(job.GoCache, 0o755); err != nil {
		return err
	}
	req := testcontainers.GenericContainerRequest{
		ContainerRequest: testcontainers.ContainerRequest{
			Image: ImageRepo + ":" + tag,
			Cmd:   []string{"sleep", strconv.Itoa(int(lifetime.Seconds()) + 1)},
			Env:   env,
			Labels: map[string]string{
				Label: "1", KeyLabel: job.Key, BuildLabel: job.Label, LockLabel: job.LockPath,
			},
			ConfigModifier: func(c *container.Config) {
				c.User = fmt.Sprintf("%d:%d", os.Getuid(), os.Getgid())
				c.WorkingDir = srcDir
			},
			HostConfigModifier: func(hc *container.HostConfig) {
				hc.NetworkMode = "none"
				hc.Binds = mounts
			},
		},
		Started: true,
		Logger:  r.logger,
	}
	fmt.Fprintf(job.Log, "# container runner: image %s:%s, no network, GOPROXY=off\n", ImageRepo, tag)
	c, err := testcontainers.GenericContainer(ctx, req)
	defer func() {
		// Registered before the error check: a container that was created but did not
		// start is removed too.
		cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 30*time.Second)
		defer cancel()
		if terr := testcontainers.TerminateContainer(c, testcontainers.StopContext(cctx), testcontainers.StopTimeout(time.Second)); terr != nil {
			err = errors.Join(err, fmt.Errorf("remove build container: %w", terr))
		}
	}()
	if err != nil {
		return fmt.Errorf("start build container: %w", err)
	}
	return builds.RunSteps(ctx, job, func(ctx context.Context, step string) error {
		code, out, err := c.Exec(ctx, []string{"sh", "-c", step}, tcexec.Multiplexed())
		if err != nil {
			return err
		}
		if _, err := io.Copy(job.Log, out); err != nil {
			return err
		}
		if code != 0 {
			return fmt.Errorf("exit status %d", code)
		}
		return nil
	})
}

// downloadModules runs `go mod download` on the host in every module of the checkout, so
// the container, which has no network, finds them in the mounted module cache.
func (r *Runner) downloadModules(ctx context.Context, job *builds.Job) error {
	var mods []string
	err := filepath.WalkDir(job.SrcDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && p != job.SrcDir && (d.Name() == "vendor" || d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".")) {
			return filepath.SkipDir
		}
		if d.Name() == "go.mod" && !d.IsDir() {
			mods = append(mods, filepath.Dir(p))
		}
		return nil
	})
	if err != nil || len(mods) == 0 {
		return err
	}
	for _, dir := range mods {
		rel, _ := filepath.Rel(job.SrcDir, dir)
		fmt.Fprintf(job.Log, "$ (cd %s && go mod download)  # on the host: the build container has no network\n", shell.Quote(filepath.ToSlash(rel)))
		cmd := proc.CommandContext(ctx, "go", "mod", "download")
		cmd.Dir = dir
		cmd.Stdout, cmd.Stderr = job.Log, job.Log
		cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
		if job.TmpDir != "" {
			cmd.Env = append(cmd.Env, "TMPDIR="+job.TmpDir, "GOTMPDIR="+job.TmpDir)
		}
		cmd.Grace = 10 * time.Second
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("go mod download in %s: %w", rel, err)
		}
	}
	return nil
}
