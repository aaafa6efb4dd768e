package contract_test

import (
	"bytes"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

func errorf(format string, args ...any) error { return fmt.Errorf(format, args...) }

// placedProblem is one problem of a contract Parse refused, at a line of the file.
var placedProblem = regexp.MustCompile(`^fuzz\.json: line (\d+): `)

// FuzzParse feeds contract documents to Parse: it must never panic, and a contract it
// accepts must be usable (every channel found by its paths, every frame by its name).
// Seeds: the worked examples, and testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	for _, fr := range framings {
		f.Add([]byte(fr.doc))
	}
	set := fstest.MapFS{}
	for _, name := range []string{"proto/wire.binpb"} {
		data, err := readTestdata(name)
		if err != nil {
			f.Fatal(err)
		}
		set[name] = &fstest.MapFile{Data: data}
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		c, err := contract.Parse("fuzz.json", doc, contract.WithFiles(set))
		if err != nil {
			if err.Error() == "" {
				t.Fatal("an error without a message")
			}
			// Every problem names the file and a line of it ("fuzz.json: line 3: …"), or
			// counts the problems left out.
			lines := 1 + bytes.Count(doc, []byte("\n"))
			problems := []error{err}
			if j, ok := err.(interface{ Unwrap() []error }); ok {
				problems = j.Unwrap()
			}
			for _, p := range problems {
				msg := p.Error()
				m := placedProblem.FindStringSubmatch(msg)
				if m == nil {
					if !strings.HasPrefix(msg, "fuzz.json: ") || !strings.HasSuffix(msg, " more problems") {
						t.Fatalf("a problem without a line: %q", msg)
					}
					continue
				}
				if n, _ := strconv.Atoi(m[1]); n < 1 || n > lines {
					t.Fatalf("line %d of a %d-line file: %q", n, lines, msg)
				}
			}
			return
		}
		for i := range c.Channels {
			ch := &c.Channels[i]
			for _, p := range ch.Paths {
				if c.Channel(p) == nil {
					t.Fatalf("channel %s: path %s finds no channel", ch.Name, p)
				}
			}
			for _, fr := range ch.Frames {
				if ch.Named(fr.Name, fr.Direction, "") == nil && fr.Direction != contract.Both {
					t.Fatalf("channel %s: frame %s is not found by its name", ch.Name, fr.Name)
				}
			}
			for _, isBinary := range []bool{false, true} {
				ch.NewStream(contract.HostToClient).Feed(isBinary, doc)
			}
		}
	})
}

// FuzzFeed feeds bytes through every framing, whole and split in two messages: no panic,
// every error explains itself, and a stream holds no more than it was fed. Seeds: every
// framing's samples and garbage, and testdata/fuzz/FuzzFeed.
func FuzzFeed(f *testing.F) {
	chans := make([]*contract.Channel, len(framings))
	for i, fr := range framings {
		ch, err := channelOf(fr.doc, fr.path)
		if err != nil {
			f.Fatal(err)
		}
		chans[i] = ch
		samples, err := fr.samples()
		if err != nil {
			f.Fatal(err)
		}
		for _, m := range append(samples, fr.garbage) {
			f.Add(uint8(i), uint16(len(m)/2), m)
		}
	}
	f.Fuzz(func(t *testing.T, which uint8, split uint16, data []byte) {
		i := int(which) % len(framings)
		fr := framings[i]
		cut := min(int(split), len(data))
		for _, dir := range []string{contract.HostToClient, contract.ClientToHost, ""} {
			if _, err := feedChecked(chans[i].NewStream(dir), fr.binary, data); err != nil {
				t.Fatal(err)
			}
			if _, err := feedChecked(chans[i].NewStream(dir), fr.binary, data[:cut], data[cut:]); err != nil {
				t.Fatal(err)
			}
		}
		if _, err := chans[i].Decode(fr.binary, data); err != nil && errors.Unwrap(err) == nil && err.Error() == "" {
			t.Fatal("an error without a message")
		}
	})
}

// FuzzDiff diffs pairs of contract documents both ways: it must never panic, a contract
// diffed with itself has no violation, and every violation names a rule of the table and a
// line of its file. Seeds: the rule cases and the worked examples.
func FuzzDiff(f *testing.F) {
	for _, rc := range ruleCases {
		newer := baseDoc
		for _, e := range rc.edits {
			newer = strings.Replace(newer, e.from, e.to, 1)
		}
		f.Add([]byte(baseDoc), []byte(newer))
	}
	for i, fr := range framings {
		f.Add([]byte(fr.doc), []byte(framings[(i+1)%len(framings)].doc))
	}
	set := fstest.MapFS{}
	if data, err := readTestdata("proto/wire.binpb"); err == nil {
		set["proto/wire.binpb"] = &fstest.MapFile{Data: data}
	}
	f.Fuzz(func(t *testing.T, a, b []byte) {
		older, err := contract.Parse("old.json", a, contract.WithFiles(set))
		if err != nil {
			return
		}
		if vs := contract.Diff(older, older, contract.DiffOptions{}); len(vs) > 0 {
			t.Fatalf("a contract diffed with itself: %v", vs)
		}
		newer, err := contract.Parse("new.json", b, contract.WithFiles(set))
		if err != nil {
			return
		}
		for _, vs := range [][]contract.Violation{
			contract.Diff(older, newer, contract.DiffOptions{}),
			contract.Diff(newer, older, contract.DiffOptions{}),
		} {
			for _, v := range vs {
				if contract.RuleByID(v.Rule) == nil || v.Line < 1 || v.Message == "" {
					t.Fatalf("violation without a rule, a line or a message: %+v", v)
				}
			}
		}
	})
}
