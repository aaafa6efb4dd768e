// Package coreguard guards the module's shape. It finds product words in skewtest's core:
// the core (declare, build, run, nightly, results, reports, skewtesting) must know no
// product, so the reference subject's vocabulary may appear in its comments and tests, never
// in its code or its strings. And it holds the layer table (Architecture) that the import
// graph is checked against (Check) and docs/architecture.svg is drawn from (Diagram).
package coreguard

import (
	"fmt"
	"go/scanner"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// CoreDirs are the packages (with their sub-packages) that must know no product.
var CoreDirs = []string{"internal/declare", "internal/build", "internal/run", "internal/nightly", "results", "internal/after/reports", "skewtesting"}

// ReferenceWords are the reference subject's observation, frame and product names. The
// checks once read them directly (data loss from pty-output and rendered-output, the echo
// from subscribed, the window from session server-info and refused-peer); a product now
// declares such names in its contract, so none of them belongs in the core again.
var ReferenceWords = []string{
	"pty-output", "rendered-output", "rendered-snapshot", "snapshot-sent", "server-info",
	"refused-peer", "subscribed", "screen", "scrollback", "OutputSpan", "remoteterm", "terminal",
}

// Hit is one product word in code or a string literal.
type Hit struct {
	File string
	Line int
	Word string
	Text string // the token it was found in
}

func (h Hit) String() string { return fmt.Sprintf("%s:%d: %q in %s", h.File, h.Line, h.Word, h.Text) }

// Scan reads every non-test Go file under root/dir for each dir (testdata left out) and
// returns the identifiers and string literals that contain one of words as a whole word,
// case-insensitively. Comments are not read: they may explain history.
func Scan(root string, dirs, words []string) ([]Hit, error) {
	pats := make([]*regexp.Regexp, len(words))
	for i, w := range words {
		pats[i] = regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_-])` + regexp.QuoteMeta(w) + `($|[^A-Za-z0-9_-])`)
	}
	var hits []Hit
	for _, d := range dirs {
		if _, err := os.Stat(filepath.Join(root, d)); os.IsNotExist(err) {
			continue
		}
		err := filepath.WalkDir(filepath.Join(root, d), func(p string, e fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return err
			case e.IsDir() && e.Name() == "testdata":
				return filepath.SkipDir
			case e.IsDir() || !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go"):
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			rel, _ := filepath.Rel(root, p)
			fset := token.NewFileSet()
			var s scanner.Scanner
			s.Init(fset.AddFile(rel, -1, len(src)), src, nil, 0) // comments are skipped
			for {
				pos, tok, lit := s.Scan()
				if tok == token.EOF {
					return nil
				}
				if tok != token.IDENT && tok != token.STRING && tok != token.CHAR {
					continue
				}
				for i, re := range pats {
					if re.MatchString(lit) {
						hits = append(hits, Hit{File: rel, Line: fset.Position(pos).Line, Word: words[i], Text: lit})
					}
				}
			}
		})
		if err != nil {
			return nil, err
		}
	}
	return hits, nil
}
