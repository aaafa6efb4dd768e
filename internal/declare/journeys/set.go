package journeys

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/usage"
)

// Set is the journeys a subject lists in its skewtest.yaml (journeys: files and globs): the
// journeys a run covers by default, and the names --journey picks from.
type Set struct {
	byName map[string]*Journey
	names  []string // in the order the patterns listed them
}

// LoadSet reads the journeys matched by patterns (files or globs, slash-separated, relative
// to root). A pattern that matches nothing is an error, so a typo never empties the set;
// two journeys with one name are an error, naming both files.
func LoadSet(root string, patterns []string) (*Set, error) {
	s := &Set{byName: map[string]*Journey{}}
	for _, p := range patterns {
		full := filepath.Join(root, filepath.FromSlash(p))
		matches, err := filepath.Glob(full)
		if err != nil {
			return nil, fmt.Errorf("journeys pattern %q: %w", p, err)
		}
		if len(matches) == 0 {
			return nil, &FileError{Path: full, Err: fmt.Errorf("journeys pattern %q matches no file", p)}
		}
		slices.Sort(matches)
		for _, m := range matches {
			j, err := Load(m)
			if err != nil {
				return nil, err
			}
			if prev, ok := s.byName[j.Name]; ok {
				if prev.File == j.File {
					continue // listed by two patterns
				}
				return nil, &FileError{Path: j.File, Err: fmt.Errorf("journey name %q is taken by %s: journey names (file names without .txtar) must be unique", j.Name, prev.File)}
			}
			j.Listed = true
			s.byName[j.Name] = j
			s.names = append(s.names, j.Name)
		}
	}
	return s, nil
}

// All returns every journey of the set, in the order listed.
func (s *Set) All() []*Journey {
	if s == nil {
		return nil
	}
	out := make([]*Journey, 0, len(s.names))
	for _, n := range s.names {
		out = append(out, s.byName[n])
	}
	return out
}

// Names lists the set's journey names, in the order listed.
func (s *Set) Names() []string {
	if s == nil {
		return nil
	}
	return append([]string(nil), s.names...)
}

// Pick returns the journeys args name: a journey of the set by name, or a journey file by
// path (an argument with a path separator or ending in .txtar). No args: the whole set.
func (s *Set) Pick(args []string) ([]*Journey, error) {
	if len(args) == 0 {
		all := s.All()
		if len(all) == 0 {
			return nil, ErrNoJourneys
		}
		return all, nil
	}
	var out []*Journey
	for _, a := range args {
		if IsPath(a) {
			j, err := Load(a)
			if err != nil {
				return nil, err
			}
			out = append(out, j)
			continue
		}
		j, ok := s.lookup(a)
		if !ok {
			return nil, &UnknownError{Name: a, Have: s.Names()}
		}
		out = append(out, j)
	}
	return out, nil
}

func (s *Set) lookup(name string) (*Journey, bool) {
	if s == nil {
		return nil, false
	}
	j, ok := s.byName[name]
	return j, ok
}

// IsPath reports whether a --journey argument names a file rather than a journey of the set.
func IsPath(arg string) bool {
	return strings.ContainsRune(arg, filepath.Separator) || strings.ContainsRune(arg, '/') || strings.HasSuffix(arg, ".txtar")
}

// ErrNoJourneys says a run has nothing to drive: the subject lists no journeys and none was
// named.
var ErrNoJourneys = usage.New("no journeys: list the subject's journey files under journeys: in skewtest.yaml (e.g. journeys: [\"journeys/*.txtar\"]), or name a file with --journey path/to/file.txtar")

// UnknownError is a --journey name the subject does not list.
type UnknownError struct {
	Name string
	Have []string
}

func (e *UnknownError) Error() string {
	if len(e.Have) == 0 {
		return fmt.Sprintf("no journey %q: the subject's skewtest.yaml lists no journeys; name a file with --journey path/to/%s.txtar", e.Name, e.Name)
	}
	return fmt.Sprintf("no journey %q in the subject's skewtest.yaml (it lists %s); a file is named by its path (--journey ./%s.txtar)", e.Name, strings.Join(e.Have, ", "), e.Name)
}

// UserMistake marks an unknown journey as the user's to fix (usage.Mistake).
func (*UnknownError) UserMistake() {}
