package builds_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/skewtest/skewtest/internal/build/builds"
)

// FuzzParseConfig feeds skewtest.yaml documents to ParseConfig: it must never panic, and
// every error it returns is a *builds.ConfigError naming the file and, when it has one, a
// line of it, with no YAML tags or Go types in its words. Seeds: the example subjects'
// skewtest.yaml, and testdata/fuzz/FuzzParseConfig.
func FuzzParseConfig(f *testing.F) {
	files, err := filepath.Glob("../../../examples/*/skewtest.yaml")
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
	f.Fuzz(func(t *testing.T, data []byte) {
		_, err := builds.ParseConfig("skewtest.yaml", data)
		if err == nil {
			return
		}
		// YAML breaks lines at \n, \r\n and a lone \r.
		lines := 1 + bytes.Count(bytes.ReplaceAll(data, []byte("\r\n"), []byte("\n")), []byte("\n")) + bytes.Count(bytes.ReplaceAll(data, []byte("\r\n"), nil), []byte("\r"))
		for _, e := range unjoin(err) {
			var ce *builds.ConfigError
			if !errors.As(e, &ce) {
				t.Fatalf("%T is not a ConfigError: %v", e, e)
			}
			if ce.File != "skewtest.yaml" || ce.Line < 0 || ce.Line > lines || ce.Msg == "" {
				t.Fatalf("error at %s:%d (the file has %d lines): %q", ce.File, ce.Line, lines, ce.Msg)
			}
			if strings.Contains(ce.Msg, "cannot unmarshal") {
				t.Fatalf("YAML jargon in %q", ce.Msg)
			}
		}
	})
}

// unjoin returns the errors an errors.Join holds, or err alone.
func unjoin(err error) []error {
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
