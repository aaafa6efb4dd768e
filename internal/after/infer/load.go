package infer

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/after/fixtures"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Recording is one recorded transcript and the file it was read from.
type Recording struct {
	Path string
	T    *transcript.Transcript
}

// Load reads the recordings each path holds: a report directory (every
// pairings/*/transcript.json.gz), a pairing's directory, a transcript file, a fixtures
// directory (RELEASE/*.json.gz, as skewtest record writes them) or one release's directory of
// it. A path that holds none, or a file that is no transcript, is a *usage.Error.
func Load(paths ...string) ([]Recording, error) {
	var out []Recording
	for _, p := range paths {
		files, err := recordingFiles(p)
		if err != nil {
			return nil, err
		}
		if len(files) == 0 {
			return nil, usage.Errorf("%s holds no recording: give a report directory (its pairings/*/%s), a pairing's directory, a transcript file or a fixtures directory (RELEASE/*%s)",
				p, transcript.File, fixtures.Ext)
		}
		for _, f := range files {
			t, err := transcript.Load(f)
			if err != nil {
				return nil, usage.Errorf("%w", err)
			}
			out = append(out, Recording{Path: f, T: t})
		}
	}
	return out, nil
}

// recordingFiles lists the transcript files under p, the first layout that matches.
func recordingFiles(p string) ([]string, error) {
	fi, err := os.Stat(p)
	if err != nil {
		return nil, usage.Errorf("%w", err)
	}
	if !fi.IsDir() {
		return []string{p}, nil
	}
	if _, err := os.Stat(filepath.Join(p, transcript.File)); err == nil {
		return []string{p}, nil // a pairing's directory
	} else if !errors.Is(err, fs.ErrNotExist) {
		return nil, err
	}
	for _, pattern := range []string{
		filepath.Join("pairings", "*", transcript.File), // a report
		"*" + fixtures.Ext,                   // one release's fixtures
		filepath.Join("*", "*"+fixtures.Ext), // a fixtures directory
	} {
		files, err := filepath.Glob(filepath.Join(p, pattern))
		if err != nil {
			return nil, err
		}
		files = slices.DeleteFunc(files, func(f string) bool {
			fi, err := os.Stat(f)
			return err != nil || fi.IsDir()
		})
		if len(files) > 0 {
			return files, nil
		}
	}
	return nil, nil
}

// message is one recorded WebSocket message, as its sender wrote it.
type message struct {
	rec    int    // the recording it is in
	conn   int    // its connection in the recording
	path   string // its WebSocket path, without the query
	dir    string
	binary bool
	data   []byte
	kind   string // the client kind of its pairing
}

// messages are the recordings' WebSocket messages (control frames are no contract's), each
// as its sender wrote it: the future-peer pass rewrites frames on their way (Frame.Original
// keeps what was sent), and a draft describes what builds send.
func messages(recs []Recording) []message {
	var out []message
	for i, r := range recs {
		for _, f := range r.T.Frames {
			if f.Control != "" {
				continue
			}
			out = append(out, message{rec: i, conn: f.Conn, path: stripQuery(f.Path), dir: f.Dir, binary: f.Binary, data: sent(f), kind: r.T.Kind})
		}
	}
	return out
}

// sent is the message as its sender wrote it.
func sent(f transcript.Frame) []byte {
	if f.Rewrite != "" && f.Original != nil {
		return f.Original
	}
	return f.Data
}

func stripQuery(path string) string {
	p, _, _ := strings.Cut(path, "?")
	return p
}

// BySender splits recordings by the build that sent each frame: a pairing's H>C frames are
// its host build's, its C>H frames its client build's. Each build's recordings hold only the
// frames it sent, so a draft of them says what that build speaks. Labels come sorted.
func BySender(recs []Recording) (labels []string, by map[string][]Recording) {
	by = map[string][]Recording{}
	for _, r := range recs {
		for _, side := range []struct{ label, dir string }{{r.T.Host.Label, contract.HostToClient}, {r.T.Client.Label, contract.ClientToHost}} {
			t := transcript.Transcript{Host: r.T.Host, Client: r.T.Client, Kind: r.T.Kind, Journey: r.T.Journey}
			for _, f := range r.T.Frames {
				if f.Dir == side.dir && f.Control == "" {
					t.Frames = append(t.Frames, f)
				}
			}
			if len(t.Frames) == 0 {
				continue
			}
			if _, ok := by[side.label]; !ok {
				labels = append(labels, side.label)
			}
			by[side.label] = append(by[side.label], Recording{Path: r.Path, T: &t})
		}
	}
	slices.Sort(labels)
	return labels, by
}
