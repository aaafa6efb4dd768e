package builds

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"
)

// waitDelay is how long a step may take to exit after it was asked to stop (SIGTERM to its
// process group) before it is killed.
const waitDelay = 10 * time.Second

// runRecipe runs each step with `sh -c` in srcDir, in its own process group, with
// SKEWTEST_OUT and GOCACHE set, writing each command line and its combined output to log.
// The first failing step ends the recipe.
func runRecipe(ctx context.Context, steps []string, srcDir, outDir, goCache string, log io.Writer) error {
	env := buildEnv(os.Environ(), outDir, goCache)
	for i, step := range steps {
		fmt.Fprintf(log, "$ %s\n", step)
		start := time.Now()
		err := runStep(ctx, step, srcDir, env, log)
		took := time.Since(start).Round(time.Millisecond)
		if err != nil {
			fmt.Fprintf(log, "# step %d/%d failed after %s: %v\n", i+1, len(steps), took, err)
			return fmt.Errorf("step %d/%d %q: %w", i+1, len(steps), step, err)
		}
		fmt.Fprintf(log, "# step %d/%d ok in %s\n", i+1, len(steps), took)
	}
	return nil
}

func runStep(ctx context.Context, step, dir string, env []string, log io.Writer) error {
	cmd := exec.CommandContext(ctx, "sh", "-c", step)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout = log
	cmd.Stderr = log
	cmd.WaitDelay = waitDelay
	ownProcessGroup(cmd)
	err := cmd.Run()
	// Nothing a step started may outlive it.
	killProcessGroup(cmd)
	return err
}

// buildEnv is the inherited environment with SKEWTEST_OUT and GOCACHE replaced.
func buildEnv(environ []string, outDir, goCache string) []string {
	env := make([]string, 0, len(environ)+2)
	for _, kv := range environ {
		if strings.HasPrefix(kv, "SKEWTEST_OUT=") || strings.HasPrefix(kv, "GOCACHE=") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "SKEWTEST_OUT="+outDir, "GOCACHE="+goCache)
}
