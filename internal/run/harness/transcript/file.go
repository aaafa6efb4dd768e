package transcript

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// File is a transcript's name in its pairing's directory: gzipped JSON (read it with zcat,
// or skewtest transcript).
const File = "transcript.json.gz"

// ErrNotTranscript means a file is not a transcript: not JSON (gzipped or not), or JSON
// that names no pairing.
var ErrNotTranscript = errors.New("not a transcript")

// Load reads the transcript at path: a pairing's directory (its File) or a transcript file,
// gzipped or plain JSON. A path that does not exist gives an error that wraps
// fs.ErrNotExist; a file that is not a transcript, one that wraps ErrNotTranscript.
func Load(path string) (*Transcript, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, &MissingError{path + " does not exist"}
	}
	if err != nil {
		return nil, err
	}
	if fi.IsDir() {
		file := filepath.Join(path, File)
		if _, err := os.Stat(file); errors.Is(err, fs.ErrNotExist) {
			return nil, &MissingError{path + " has no " + File + ": give a pairing's directory (pairings/NNN-… in a report directory) or a transcript file"}
		}
		path = file
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	t, err := Decode(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return t, nil
}

// MissingError is a transcript that is not where Load was told to look: the path does not
// exist, or the directory holds no File. It wraps fs.ErrNotExist.
type MissingError struct{ Msg string }

func (e *MissingError) Error() string { return e.Msg }
func (e *MissingError) Unwrap() error { return fs.ErrNotExist }

// Decode reads a transcript from r, gzipped or plain JSON. What is not one gives an error
// that wraps ErrNotTranscript.
func Decode(r io.Reader) (*Transcript, error) {
	br := bufio.NewReader(r)
	magic, err := br.Peek(2)
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, err
	}
	var in io.Reader = br
	if bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%w: %v", ErrNotTranscript, err)
		}
		defer zr.Close()
		in = zr
	}
	var t Transcript
	if err := json.NewDecoder(in).Decode(&t); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("%w: it is empty", ErrNotTranscript)
		}
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			return nil, fmt.Errorf("%w: it is not JSON (at byte %d: %s)", ErrNotTranscript, se.Offset, strings.TrimPrefix(se.Error(), "json: "))
		case errors.As(err, &te) && te.Field == "":
			return nil, fmt.Errorf("%w: it is a JSON %s, not an object", ErrNotTranscript, te.Value)
		case errors.As(err, &te):
			return nil, fmt.Errorf("%w: its %s is a JSON %s", ErrNotTranscript, te.Field, te.Value)
		}
		return nil, fmt.Errorf("%w: %v", ErrNotTranscript, err)
	}
	if t.Journey == "" && t.Host.Label == "" && t.Client.Label == "" {
		return nil, fmt.Errorf("%w: it names no journey and no builds", ErrNotTranscript)
	}
	return &t, nil
}

// Write writes t to path as gzipped JSON (File), compressed at level (gzip.BestSpeed for a
// run's transcripts, gzip.BestCompression for what is committed). The same transcript
// gives the same bytes.
func Write(path string, t *Transcript, level int) error {
	var b bytes.Buffer
	zw, err := gzip.NewWriterLevel(&b, level)
	if err != nil {
		return err
	}
	enc := json.NewEncoder(zw)
	enc.SetEscapeHTML(false) // frame directions read "H>C"
	enc.SetIndent("", " ")
	if err := enc.Encode(t); err != nil {
		return err
	}
	if err := zw.Close(); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
