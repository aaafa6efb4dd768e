package pins_test

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

// FuzzParseLock feeds skewtest.lock files to ParseLock: it must never panic, every error is
// a *pins.LockError at a line of the file, and a lock it accepts formats to a file it reads
// back as the same lock. Seeds: a written lock, the trial's corruptions, and
// testdata/fuzz/FuzzParseLock.
func FuzzParseLock(f *testing.F) {
	f.Add([]byte("# skewtest.lock\nv1.4.190 62b3033ac4546c5e0f4d2a8d0c1b2a3f4e5d6c7b\nv1.4.185 7991b1f2e3d4c5b6a7980112233445566778899a\n"))
	f.Add([]byte("v1.4.146 not-a-hash extra\n"))
	f.Add([]byte("\x00\xff\xfegarbage\n"))
	f.Add([]byte("v1 0000000000000000000000000000000000000000\nv1 0000000000000000000000000000000000000000\n"))
	f.Add([]byte("v1 0000000000000000000000000000000000000000\n" + strings.Repeat("x", 70_000) + "\n")) // longer than bufio's token
	f.Fuzz(func(t *testing.T, data []byte) {
		l, err := pins.ParseLock("skewtest.lock", data)
		if err != nil {
			var le *pins.LockError
			lines := 1 + bytes.Count(data, []byte("\n"))
			if !errors.As(err, &le) || le.File != "skewtest.lock" || le.Line < 1 || le.Line > lines || le.Msg == "" {
				t.Fatalf("an error without a line of the file (%d lines): %#v", lines, err)
			}
			return
		}
		again, err := pins.ParseLock("skewtest.lock", l.Format())
		if err != nil {
			t.Fatalf("a lock it accepted does not read back: %v\n%s", err, l.Format())
		}
		if len(again.Tags) != len(l.Tags) {
			t.Fatalf("read back %d tags, had %d", len(again.Tags), len(l.Tags))
		}
		for tag, h := range l.Tags {
			if again.Tags[tag] != h {
				t.Fatalf("tag %s: read back %s, had %s", tag, again.Tags[tag], h)
			}
		}
	})
}
