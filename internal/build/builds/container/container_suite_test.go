package container_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds/container"
	"github.com/skewtest/skewtest/internal/build/proc"
	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

// Specs here need a Docker engine (and build a toolchain image the first time).
var labels = Label(testlabels.Docker, testlabels.Slow)

// TestMain lets this test binary guard the commands its specs start (go mod download).
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

func TestContainer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "builds/container")
}

// runner is shared by the suite: one connection to the engine, one image build. So is
// the build cache, whose GOCACHE makes every Go build after the first quick; specs build
// different recipes, so their keys differ.
var (
	runner *container.Runner
	cache  string
)

var _ = BeforeSuite(func(ctx SpecContext) {
	cache = filepath.Join(GinkgoT().TempDir(), "cache")
	if skip = whySkip(ctx); skip != "" {
		// Skip messages show only with -v: say it once where go test and make test show it
		// when the suite fails, and in verbose runs (make test prints it: make docker-note).
		fmt.Fprintln(os.Stderr, "builds/container: the docker specs skip: "+skip)
		return
	}
	var err error
	runner, err = container.New(ctx)
	Expect(err).NotTo(HaveOccurred())
	runner.Log = GinkgoWriter
	DeferCleanup(runner.Close)
})

// skip is why the specs skip here ("" when they run).
var skip string

// whySkip says why the docker specs cannot run on this machine, or "": no Docker engine
// answers (to testcontainers-go or to the docker command, which the specs use too), or the
// toolchain image is not built and cannot be, for want of a static busybox.
func whySkip(ctx context.Context) string {
	if err := container.Healthy(ctx); err != nil {
		return "no Docker engine answers (the testcontainers-go provider's health check): " + err.Error()
	}
	if out, err := exec.CommandContext(ctx, "docker", "info").CombinedOutput(); err != nil {
		return fmt.Sprintf("no Docker engine answers (docker info: %v): %s", err, lastLine(out))
	}
	r, err := container.New(ctx)
	if err != nil {
		return "cannot connect to the Docker engine: " + err.Error()
	}
	defer r.Close()
	if _, err := r.Toolchain(ctx, ""); errors.Is(err, container.ErrNoBusybox) {
		return "cannot build the toolchain image: " + err.Error()
	}
	return ""
}

// TestDockerNote prints whether the docker specs run here, and why not: make test runs it
// with -v first (make docker-note), since go test hides the output of a suite that passes.
func TestDockerNote(t *testing.T) {
	why := whySkip(context.Background())
	if why == "" {
		fmt.Println("docker specs (builds/container): a Docker engine answers and the toolchain image is there: they run")
		return
	}
	fmt.Println("docker specs (builds/container): they skip: " + why)
}

// needEngine skips the spec when no Docker engine answers, or when the toolchain image
// cannot be built here for want of a static busybox.
func needEngine(ctx context.Context) {
	GinkgoHelper()
	if skip != "" {
		Skip(skip)
	}
	_, err := runner.Toolchain(ctx, "")
	Expect(err).NotTo(HaveOccurred())
}

func lastLine(out []byte) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return string(lines[len(lines)-1])
}
