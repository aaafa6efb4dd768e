package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// transcriptOptions are the flags of transcript.
type transcriptOptions struct {
	JSON bool
	Path string // a pairing's directory, or a transcript file
}

func parseTranscript(args []string, stderr io.Writer) (*transcriptOptions, error) {
	o := &transcriptOptions{}
	flags := newFlagSet("transcript", stderr, "transcript [--json] PAIRING_DIR\n\n"+
		"Prints a pairing's frames (PAIRING_DIR is pairings/NNN-… in a report directory, or a transcript.json.gz),\n"+
		"one per line: index, direction, name, step, connection, message and payload sizes, then the header\n"+
		"fields and value the receiving build's contract read from it.")
	flags.BoolVar(&o.JSON, "json", false, "write the frames and their decoded values as one JSON document")
	paths, err := parse(flags, args, anyArgs)
	if err != nil {
		return nil, err
	}
	switch len(paths) {
	case 0:
		return nil, usagef("transcript: give a pairing's directory (pairings/NNN-… in a report directory) or a transcript file")
	case 1:
		o.Path = paths[0]
		return o, nil
	}
	return nil, usagef("transcript: give one pairing's directory, not %d", len(paths))
}

// cmdTranscript prints a pairing's frames with what the receiving contracts read from them.
func cmdTranscript(_ context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseTranscript(args, stderr)
	if err != nil {
		return err
	}
	t, err := transcript.Load(o.Path)
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, transcript.ErrNotTranscript):
		return usagef("transcript: %v", err)
	case err != nil:
		return fmt.Errorf("transcript: %w", err)
	}
	return reports.Transcript(stdout, t, reports.TranscriptOptions{JSON: o.JSON})
}
