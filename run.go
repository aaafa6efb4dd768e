package skewtest

import (
	"context"

	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// Run runs the compatibility matrix of cfg: it selects the pins, builds the working tree
// and each pin, pairs them both ways with the references, drives every journey, checks the
// transcripts and writes the reports to cfg.ReportDir. Findings are in the run; an error
// means the run could not be made.
func Run(ctx context.Context, cfg Config) (*results.Run, error) {
	return matrix.Run(ctx, cfg.matrix())
}
