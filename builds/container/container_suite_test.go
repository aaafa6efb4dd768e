package container_test

import (
	"context"
	"errors"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/builds/container"
)

func TestContainer(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "builds/container")
}

// The labels CI filters by.
var (
	dockerLabel = Label("docker") // needs a Docker engine
	slowLabel   = Label("slow")   // builds a toolchain image the first time
)

// runner is shared by the suite: one connection to the engine, one image build.
var runner *container.Runner

var _ = BeforeSuite(func(ctx SpecContext) {
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
		Skip("no Docker engine answers (docker info fails): " + err.Error())
	}
	if _, err := runner.Toolchain(ctx, ""); errors.Is(err, container.ErrNoBusybox) {
		Skip("cannot build the toolchain image: " + err.Error())
	} else {
		Expect(err).NotTo(HaveOccurred())
	}
}
