package proc_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// TestMain lets this test binary be a guardian (proc.Main), and a helper process that
// starts a command and waits to be killed (helperEnv).
func TestMain(m *testing.M) {
	proc.Main()
	if script := os.Getenv(helperEnv); script != "" {
		os.Exit(helper(script))
	}
	os.Exit(m.Run())
}

func TestProc(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "proc")
}

// helperEnv holds the script the helper runs with sh -c under proc, after printing
// "mode M" on stdout; the script's stdout is the helper's.
const helperEnv = "PROC_TEST_HELPER_SCRIPT"

func helper(script string) int {
	w := bufio.NewWriter(os.Stdout)
	fmt.Fprintf(w, "mode %s\n", proc.Mode())
	w.Flush()
	c := proc.CommandContext(context.Background(), "sh", "-c", script)
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	if err := c.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 1
	}
	return 0
}
