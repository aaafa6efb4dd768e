// Package node_test holds the specs of skewtest's driver kit for Node.js (driverkit.js):
// drivers written with it, run by node through skewtest's own driver client and driver
// check. They skip, saying why, where node is not on PATH.
package node_test

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary be a guardian (proc.Main), as every binary that starts
// drivers must.
func TestMain(m *testing.M) {
	proc.Main()
	os.Exit(m.Run())
}

func TestNodeKit(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "Node.js Driver Kit Suite")
}

// node is the node executable, or "" where there is none.
var node string

var _ = BeforeSuite(func() {
	node, _ = exec.LookPath("node")
})

// needNode skips a spec where node is not on PATH.
func needNode() {
	if node == "" {
		Skip("node is not on PATH: the Node.js driver kit's specs run its drivers with node")
	}
}

// runNode runs a script with node, stdin closed, and returns its stderr. The script finds
// the kit at $DRIVERKIT.
func runNode(ctx context.Context, script string) ([]byte, error) {
	GinkgoHelper()
	file := filepath.Join(GinkgoT().TempDir(), "script.js")
	Expect(os.WriteFile(file, []byte(script), 0o644)).To(Succeed())
	kit, err := filepath.Abs("driverkit.js")
	Expect(err).NotTo(HaveOccurred())
	cmd := exec.CommandContext(ctx, node, file)
	cmd.Env = append(os.Environ(), "DRIVERKIT="+kit)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err = cmd.Run()
	return stderr.Bytes(), err
}
