package harness

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// ErrNoDecode is a driver that does not list the decode action in its hello: its build's
// decoder cannot be asked.
var ErrNoDecode = errors.New("the driver does not answer " + DecodeAction)

// DecodeDriver is one build's driver in one role, started only to answer decode: a
// build's decoder asked about frames another build sent, with no peer and no tap (replay).
type DecodeDriver struct {
	Name string
	d    *driver.Driver
}

// StartDecodeDriver starts build b's driver of role (the host, or the client of kind) and
// waits until it is ready. A driver that does not answer decode is stopped and the error
// wraps ErrNoDecode. logPath receives its stderr ("" discards it).
func StartDecodeDriver(ctx context.Context, b *Build, role transcript.Role, kind, logPath string) (*DecodeDriver, error) {
	argv := b.Host
	if role != transcript.Host {
		argv = b.Clients[kind]
	}
	spec := driverSpec(b, role, kind, argv, nil, logPath, 0)
	d, err := driver.Start(ctx, spec, nil)
	if err != nil {
		return nil, startError(err, b, kind, spec.Name, argv)
	}
	if _, err := d.WaitReady(ctx); err != nil {
		stopQuietly(ctx, d)
		return nil, readyError(ctx, err, d, spec.Name, driver.DefaultReadyTimeout, logPath)
	}
	if !slices.Contains(d.Hello().Actions, DecodeAction) {
		stopQuietly(ctx, d)
		return nil, fmt.Errorf("%s: %w (it announced %v)", spec.Name, ErrNoDecode, d.Hello().Actions)
	}
	return &DecodeDriver{Name: spec.Name, d: d}, nil
}

// Decode asks the driver to name frames with its build's decoder, in batches, and returns
// each frame's answer by its Index; a frame the driver did not answer has none.
func (dd *DecodeDriver) Decode(ctx context.Context, frames []transcript.Frame) (map[int]transcript.DriverDecode, error) {
	asked := make([]decodeFrame, 0, len(frames))
	for _, f := range frames {
		asked = append(asked, askAbout(f))
	}
	out := map[int]transcript.DriverDecode{}
	err := askDecode(ctx, dd.d, asked, func(answers []decodeAnswer) {
		for _, a := range answers {
			dec := out[a.ID]
			if a.Refused {
				dec.Refused, dec.Reason = true, a.Reason
			} else {
				dec.Frames = append(dec.Frames, transcript.DecodedFrame{Type: a.Type, Opcode: a.Opcode, Fields: a.Fields})
			}
			out[a.ID] = dec
		}
	})
	if err != nil {
		return nil, fmt.Errorf("%s: %w", dd.Name, err)
	}
	return out, nil
}

// Stop stops the driver.
func (dd *DecodeDriver) Stop(ctx context.Context) { stopQuietly(ctx, dd.d) }
