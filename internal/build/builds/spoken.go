package builds

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/build/proc"
)

// DefaultContractTimeout bounds a contract command when SpeakContract is given no timeout.
const DefaultContractTimeout = 30 * time.Second

// ErrNoContractCommand means the subject's skewtest.yaml names no contractCommand.
var ErrNoContractCommand = errors.New("no contractCommand")

// ContractCommandArgv is the argv of the build's contractCommand, with a "./" first word made
// absolute in dir (the build's output directory), like a driver's; nil when there is none.
func (c *Config) ContractCommandArgv(dir string) []string {
	if len(c.ContractCommand) == 0 {
		return nil
	}
	return resolveArgv(dir, c.ContractCommand)
}

// SpeakContract runs the build's contractCommand in its output directory dir and returns what
// it prints on stdout: the contract the build's code really speaks. The command runs under a
// guardian like a build step (nothing it starts outlives it), and it may take timeout (zero:
// DefaultContractTimeout). A command that fails gives an error with its stderr's last lines.
func (c *Config) SpeakContract(ctx context.Context, dir string, timeout time.Duration) ([]byte, error) {
	argv := c.ContractCommandArgv(dir)
	if argv == nil {
		return nil, ErrNoContractCommand
	}
	if timeout <= 0 {
		timeout = DefaultContractTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := proc.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Grace = waitDelay
	// When Run returns, nothing the command started is left (package proc).
	if err := cmd.Run(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (after %s)", ctx.Err(), timeout)
		}
		tail := strings.TrimSpace(stderr.String())
		if i := strings.LastIndexByte(tail[:max(0, len(tail)-2000)], '\n'); i >= 0 {
			tail = tail[i+1:]
		}
		if tail != "" {
			err = fmt.Errorf("%w; stderr:\n%s", err, tail)
		}
		return nil, fmt.Errorf("contractCommand %s: %w", strings.Join(c.ContractCommand, " "), err)
	}
	return stdout.Bytes(), nil
}
