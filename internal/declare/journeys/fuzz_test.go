package journeys_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
)

// FuzzParse feeds journey files to Parse, and what it accepts to the harness's vocabulary
// check (harness.Validate), as skewtest run does: neither may panic, every error is a
// *journeys.SyntaxError naming the file and a line of it, and a journey Parse accepts has
// a step and a kind. Seeds: the example subjects' journeys, and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, glob := range []string{"../../../examples/*/journeys/*.txtar"} {
		files, err := filepath.Glob(glob)
		if err != nil {
			f.Fatal(err)
		}
		for _, file := range files {
			data, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(data)
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		lines := 1 + bytes.Count(data, []byte("\n"))
		placed := func(err error) {
			t.Helper()
			var se *journeys.SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("%T without a position: %v", err, err)
			}
			if se.File != "fuzz.txtar" || se.Line < 1 || se.Line > lines || se.Msg == "" {
				t.Fatalf("error at %s:%d (the file has %d lines): %q", se.File, se.Line, lines, se.Msg)
			}
		}
		j, err := journeys.Parse("fuzz.txtar", data)
		if err != nil {
			placed(err)
			return
		}
		if len(j.Steps) == 0 || len(j.Kinds) == 0 {
			t.Fatalf("accepted a journey without a step or a kind: %+v", j)
		}
		if err := harness.Validate(j); err != nil {
			placed(err)
		}
	})
}
