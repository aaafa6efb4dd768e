package driverproto

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/skewtest/skewtest/examples/remoteterm/observe"
)

// StopAction is the action that ends Serve after its result.
const StopAction = "stop"

// maxLine bounds one action line (large emit-output payloads travel base64).
const maxLine = 64 << 20

// Serve reads actions from in, one JSON object per line, and runs them in order, writing
// one result per action. It returns nil after the result of a "stop" action or at the end
// of in; the caller then closes what the driver opened and exits 0. An action the
// registry does not have is answered unsupported-action, naming version.
func Serve(ctx context.Context, in io.Reader, w *Writer, reg *Registry, version string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for sc.Scan() {
		line := sc.Bytes()
		if len(line) == 0 {
			continue
		}
		var a action
		if err := json.Unmarshal(line, &a); err != nil {
			w.Observe(observe.Error{Message: fmt.Sprintf("action line %q: %v", truncate(line, 200), err)})
			continue
		}
		h, ok := reg.handlers[a.Action]
		var (
			data any
			err  error
		)
		if !ok {
			err = &Error{Code: CodeUnsupportedAction, Err: fmt.Errorf("no action %q in %s", a.Action, version)}
		} else {
			data, err = h(ctx, a.Args)
		}
		if werr := w.Result(a.ID, data, err); werr != nil {
			return werr
		}
		if a.Action == StopAction {
			return nil
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read actions: %w", err)
	}
	return nil
}

func truncate(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	return b[:n]
}
