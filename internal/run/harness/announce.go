package harness

import (
	"context"
	"fmt"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Announce starts one driver of build b (the host for role "host", else the client of
// kind), waits for its hello and ready, stops it, and returns its hello: the vocabulary it
// announces and describes (explore draws journeys from it). logPath receives the driver's
// stderr ("" discards it). A description the harness cannot use is an error.
func Announce(ctx context.Context, b *Build, role, kind, logPath string) (driver.Message, error) {
	r, argv := transcript.Host, b.Host
	if role != string(transcript.Host) {
		r, argv = transcript.Client, b.Clients[kind]
	}
	spec := driverSpec(b, r, kind, argv, nil, logPath, 0)
	d, err := driver.Start(ctx, spec, nil)
	if err != nil {
		return driver.Message{}, startError(err, b, kind, spec.Name, argv)
	}
	defer stopQuietly(ctx, d)
	if _, err := d.WaitReady(ctx); err != nil {
		return driver.Message{}, readyError(ctx, err, d, spec.Name, driver.DefaultReadyTimeout, logPath)
	}
	h := d.Hello()
	if err := driver.CheckParams(h); err != nil {
		return h, &usage.Error{Err: fmt.Errorf("%s driver's hello: %w", spec.Name, err)}
	}
	return h, nil
}
