package skew_test

import (
	"context"
	"os/exec"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

// writeHistory writes notesd's release history as `skewtest example --subject notesd` does
// (real tags, each built from its own tree) into a temporary directory, and returns the
// repository's path. The command is built without the container runner, whose
// dependencies this module does not take on.
func writeHistory(ctx context.Context) string {
	GinkgoHelper()
	repo := filepath.Join(GinkgoT().TempDir(), "notesd")
	out, err := exec.CommandContext(ctx, "go", "run", "-tags", "nocontainer", "github.com/skewtest/skewtest/cmd/skewtest",
		"example", "--subject", "notesd", repo).CombinedOutput()
	Expect(err).NotTo(HaveOccurred(), string(out))
	return repo
}
