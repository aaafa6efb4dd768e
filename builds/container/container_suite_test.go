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

	"github.com/skewtest/skewtest/builds/container"
	"github.com/skewtest/skewtest/internal/testlabels"
	"github.com/skewtest/skewtest/proc"
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
	if err := container.Healthy(ctx); err != nil {
		return // every spec skips, saying why
	}
	var err error
	runner, err = container.New(ctx)
	Expect(err).NotTo(HaveOccurred())
	runner.Log = GinkgoWriter
	DeferCleanup(runner.Close)
})

// needEngine skips the spec when no Docker engine answers, or when the toolchain image
// cannot be built here for want of a static busybox.
func needEngine(ctx context.Context) {
	GinkgoHelper()
	if err := container.Healthy(ctx); err != nil {
		Skip("no Docker engine answers (the testcontainers-go provider's health check): " + err.Error())
	}
	// The specs look at containers with the docker command too.
	if out, err := exec.CommandContext(ctx, "docker", "info").CombinedOutput(); err != nil {
		Skip(fmt.Sprintf("no Docker engine answers (docker info: %v): %s", err, lastLine(out)))
	}
	if _, err := runner.Toolchain(ctx, ""); errors.Is(err, container.ErrNoBusybox) {
		Skip("cannot build the toolchain image: " + err.Error())
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
}

func lastLine(out []byte) string {
	lines := bytes.Split(bytes.TrimSpace(out), []byte("\n"))
	return string(lines[len(lines)-1])
}
