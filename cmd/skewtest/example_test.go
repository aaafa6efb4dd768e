package main

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
)

var _ = Describe("skewtest example", func() {
	It("writes the default subject's history and says where it came from", func() {
		dir := filepath.Join(GinkgoT().TempDir(), "rt")
		var out bytes.Buffer
		Expect(dispatch(context.Background(), []string{"example", dir}, &out, io.Discard)).To(Succeed())
		Expect(out.String()).To(MatchRegexp(`^wrote the remoteterm history \(from .*examples/remoteterm\) to `))
		Expect(filepath.Join(dir, "third_party/skewtest/driverkit/driver.go")).To(BeAnExistingFile())
	})

	DescribeTable("refuses with exit code 2",
		func(args func(dir string) []string, want string) {
			dir := GinkgoT().TempDir()
			Expect(os.WriteFile(filepath.Join(dir, "README"), nil, 0o644)).To(Succeed())
			var stderr bytes.Buffer
			err := dispatch(context.Background(), args(dir), io.Discard, io.Discard)
			Expect(exitCode(err, &stderr)).To(Equal(exitUsage))
			Expect(stderr.String()).To(ContainSubstring(want))
		},
		Entry("a directory that is not empty", func(dir string) []string { return []string{"example", dir} }, "is not empty"),
		Entry("an unknown subject", func(dir string) []string {
			return []string{"example", "--subject", "teleport", filepath.Join(dir, "x")}
		}, `unknown example subject "teleport"`),
		Entry("a source without a history", func(dir string) []string {
			return []string{"example", "--source", dir, filepath.Join(dir, "x")}
		}, "no history.yaml"),
		Entry("demo with an unknown subject", func(string) []string { return []string{"demo", "--subject", "teleport"} }, "unknown example subject"),
	)

	It("works from a binary built outside any checkout, with the sources built into it", Label(testlabels.Slow), func(ctx SpecContext) {
		bin := filepath.Join(GinkgoT().TempDir(), "skewtest")
		build := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
		out, err := build.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))

		away := GinkgoT().TempDir()
		cmd := exec.CommandContext(ctx, bin, "example", "rt")
		cmd.Dir = away
		out, err = cmd.CombinedOutput()
		Expect(err).NotTo(HaveOccurred(), string(out))
		Expect(string(out)).To(ContainSubstring("wrote the remoteterm history (from the copy built into skewtest) to rt"))
		Expect(filepath.Join(away, "rt", "skewtest.yaml")).To(BeAnExistingFile())
	}, NodeTimeout(10*time.Minute))
})
