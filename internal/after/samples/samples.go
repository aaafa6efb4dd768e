// Package samples tries a contract on sample frames, offline: no build, no run. Frames come
// as hex, base64, text or JSON lines, or as a recorded transcript (skewtest contract decode);
// each is named and decoded with the contract as a pairing's receiver would read it, or
// says why it could not be.
package samples

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Defaults are a sample line's direction and WebSocket path when it names none.
type Defaults struct {
	Dir, Path string
}

// Read reads sample frames from path: a pairing's directory or a transcript file (a
// recording), a file of sample lines (Parse), or standard input for "-".
func Read(path string, stdin io.Reader, d Defaults) ([]transcript.Frame, error) {
	if path == "-" {
		data, err := io.ReadAll(stdin)
		if err != nil {
			return nil, err
		}
		return Parse("standard input", data, d)
	}
	fi, err := os.Stat(path)
	if err != nil {
		return nil, usage.Errorf("%w", err)
	}
	if fi.IsDir() {
		t, err := transcript.Load(path)
		if err != nil {
			return nil, usage.Errorf("%w", err)
		}
		return unread(t), nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data, d)
}

// unread is a recording's frames, without what was read from them when it was recorded.
func unread(t *transcript.Transcript) []transcript.Frame {
	frames := make([]transcript.Frame, 0, len(t.Frames))
	for _, f := range t.Frames {
		f.Read, f.Decoded = nil, nil
		frames = append(frames, f)
	}
	return frames
}

// DefaultsFor fills what d leaves of the path with c's only WebSocket path, when it has one.
func DefaultsFor(c *contract.Contract, d Defaults) Defaults {
	if d.Path != "" {
		return d
	}
	var paths []string
	for _, ch := range c.Channels {
		paths = append(paths, ch.Paths...)
	}
	if len(paths) == 1 {
		d.Path = paths[0]
	}
	return d
}

// Parse reads sample frames from data, named name in errors: a recorded transcript
// (transcript.json.gz, or its JSON), else one frame per line:
//
//	[H>C|C>H] [/PATH] PAYLOAD
//
// where PAYLOAD is hex:…, base64:… (a binary message), text:… (a text message as written),
// bare hex digits (binary), or a JSON value (a text message). Blank lines and lines starting
// with # are skipped. A line that is none of these is a usage error naming name:line.
func Parse(name string, data []byte, d Defaults) ([]transcript.Frame, error) {
	if t, err := transcript.Decode(bytes.NewReader(data)); err == nil {
		return unread(t), nil
	} else if bytes.HasPrefix(data, []byte{0x1f, 0x8b}) {
		return nil, usage.Errorf("%s: %w", name, err)
	}
	var out []transcript.Frame
	conns := map[string]int{} // a connection per path: a connection is read as its path's channel
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 64*1024*1024)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		f, err := parseLine(text, d)
		if err != nil {
			return nil, usage.Errorf("%s:%d: %w", name, line, err)
		}
		if conns[f.Path] == 0 {
			conns[f.Path] = len(conns) + 1
		}
		f.Index, f.Conn, f.Step = len(out), conns[f.Path], fmt.Sprintf("line %d", line)
		out = append(out, f)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(out) == 0 {
		return nil, usage.Errorf("%s: no frame: give one per line (hex:…, base64:…, text:…, or a JSON message), or a recorded transcript", name)
	}
	return out, nil
}

// parseLine reads one sample line.
func parseLine(text string, d Defaults) (transcript.Frame, error) {
	f := transcript.Frame{Dir: d.Dir, Path: d.Path}
	for {
		word, rest, _ := strings.Cut(text, " ")
		switch {
		case word == contract.HostToClient || word == contract.ClientToHost:
			f.Dir = word
		case strings.HasPrefix(word, "/"):
			f.Path = word
		default:
			return payload(f, text)
		}
		text = strings.TrimSpace(rest)
	}
}

func payload(f transcript.Frame, text string) (transcript.Frame, error) {
	var err error
	switch {
	case f.Dir == "":
		return f, errors.New("no direction: start the line with H>C or C>H, or give --dir")
	case f.Path == "":
		return f, errors.New("no WebSocket path: put /PATH before the payload, or give --path")
	case strings.HasPrefix(text, "hex:"):
		f.Binary = true
		f.Data, err = hex.DecodeString(strings.ReplaceAll(strings.TrimPrefix(text, "hex:"), " ", ""))
	case strings.HasPrefix(text, "base64:"):
		f.Binary = true
		f.Data, err = base64.StdEncoding.DecodeString(strings.TrimPrefix(text, "base64:"))
	case strings.HasPrefix(text, "text:"):
		f.Data = []byte(strings.TrimPrefix(text, "text:"))
	case json.Valid([]byte(text)):
		f.Data = []byte(text)
	case isHex(text):
		f.Binary = true
		f.Data, err = hex.DecodeString(strings.ReplaceAll(text, " ", ""))
	default:
		return f, fmt.Errorf("%q is no frame: give hex:…, base64:…, text:… or a JSON message", clip(text))
	}
	if err != nil {
		return f, fmt.Errorf("%q: %v", clip(text), err)
	}
	return f, nil
}

func isHex(s string) bool {
	s = strings.ReplaceAll(s, " ", "")
	if s == "" || len(s)%2 != 0 {
		return false
	}
	for _, r := range s {
		if !strings.ContainsRune("0123456789abcdefABCDEF", r) {
			return false
		}
	}
	return true
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// OneChannel is c, or, when c has one channel, does not serve "/" and some frames are filed
// under "/", a copy of c whose channel serves "/" too: skewtest tap files a byte stream
// recorded without --path under "/", and a contract of one channel says what the stream
// carries. A contract of several channels is left as it is (a frame's path says which
// channel it is on), and so is a frame under any other path: a WebSocket path a contract
// does not serve is one it does not read.
func OneChannel(c *contract.Contract, frames []transcript.Frame) *contract.Contract {
	const root = "/"
	if c == nil || len(c.Channels) != 1 || c.Channel(root) != nil {
		return c
	}
	if !slices.ContainsFunc(frames, func(f transcript.Frame) bool {
		p, _, _ := strings.Cut(f.Path, "?")
		return p == root && f.Control == ""
	}) {
		return c
	}
	cp := *c
	cp.Channels = slices.Clone(c.Channels)
	cp.Channels[0].Paths = append(slices.Clone(c.Channels[0].Paths), root)
	return &cp
}

// Decode reads frames with c (leaving them as they are), as the receiving build of a pairing whose builds both speak
// c would (both directions are read with c), and returns them as a transcript whose frames
// carry what was read (transcript.Frame.Read; reports.Transcript prints it), with the frames
// c could not read, and why: bytes without the channel's framing, or a frame c does not
// list for that direction (and kind). kind is the client kind, for contracts whose frames
// depend on it ("" when none does).
//
// A contract of one channel reads the frames filed under "/", when it does not serve "/",
// with that channel: skewtest tap files a byte stream recorded without --path there
// (OneChannel).
func Decode(c *contract.Contract, frames []transcript.Frame, kind string) (t *transcript.Transcript, unread []string) {
	c = OneChannel(c, frames)
	t = &transcript.Transcript{Host: transcript.Build{Label: "contract"}, Client: transcript.Build{Label: "contract"}, Kind: kind,
		Journey: "samples", Frames: slices.Clone(frames)} // what is read is the copy's, not the caller's
	named := checks.NameFrames(&checks.Input{Transcript: t, Host: c, Client: c})
	harness.KeepRead(t, named)
	for _, n := range named {
		why := ""
		switch {
		case n.Control != "" || n.Undecoded:
		case n.Err != nil:
			why = n.Err.Error()
		case !n.Known:
			why = "the contract lists no such frame " + map[string]string{contract.HostToClient: "from host to client", contract.ClientToHost: "from client to host"}[n.Dir]
			if kind != "" && n.Dir == contract.HostToClient {
				why += " for a " + kind + " client"
			}
		}
		if why != "" {
			unread = append(unread, fmt.Sprintf("#%d %s %s: %s", n.Index, n.Dir, n.Name, why))
		}
	}
	if t.Kind == "" {
		t.Kind = "any" // for its label: "host contract × any client contract · samples"
	}
	return t, unread
}
