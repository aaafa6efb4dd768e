package example

import (
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"golang.org/x/mod/modfile"

	"github.com/skewtest/skewtest/internal/adopt/example/internal/bundle"
)

//go:generate go run ./internal/mkarchive -root ../../.. -o sources.zip

// archive holds the example sources: every subject's directory and the driver kit.
//
//go:embed sources.zip
var archive []byte

// historyFile is the file that makes a directory a subject's source.
const historyFile = "history.yaml"

// builtIn is what Source.From says for the archive built into skewtest.
const builtIn = "the copy built into skewtest"

// ErrUnknownSubject is a subject name that is not in the table.
var ErrUnknownSubject = errors.New("unknown example subject")

// Source is what Write reads for one subject: the subject's directory and the skewtest
// module whose driver kit it writes into the trees.
type Source struct {
	// Name names the subject in messages, e.g. "remoteterm".
	Name string
	// From says where the subject's files come from: a directory, or the copy built into
	// skewtest.
	From string

	subject fs.FS // the subject's directory
	kit     fs.FS // a skewtest repository: go.mod and driverkit/
}

// Subjects returns the example subjects' names, the default first.
func Subjects() []string {
	var names []string
	for _, d := range bundle.Subjects() {
		names = append(names, path.Base(d))
	}
	return names
}

// subjectDir returns the directory of the named subject ("" is the default).
func subjectDir(name string) (string, error) {
	dirs := bundle.Subjects()
	if name == "" {
		return dirs[0], nil
	}
	for _, d := range dirs {
		if path.Base(d) == name {
			return d, nil
		}
	}
	return "", fmt.Errorf("%w %q: the example subjects are %s", ErrUnknownSubject, name, strings.Join(Subjects(), ", "))
}

// FindSource finds the named example subject ("" is the default): in the skewtest checkout
// around the working directory or the skewtest binary, else the copy built into skewtest.
func FindSource(name string) (*Source, error) {
	dir, err := subjectDir(name)
	if err != nil {
		return nil, err
	}
	var starts []string
	if wd, err := os.Getwd(); err == nil {
		starts = append(starts, wd)
	}
	if exe, err := os.Executable(); err == nil {
		starts = append(starts, filepath.Dir(exe))
	}
	for _, s := range starts {
		if root, ok := findRoot(s); ok {
			sub := filepath.Join(root, filepath.FromSlash(dir))
			if _, err := os.Stat(filepath.Join(sub, historyFile)); err == nil {
				return &Source{Name: path.Base(dir), From: sub, subject: os.DirFS(sub), kit: os.DirFS(root)}, nil
			}
		}
	}
	return Embedded(name)
}

// Embedded returns the named example subject ("" is the default) as built into skewtest.
func Embedded(name string) (*Source, error) {
	dir, err := subjectDir(name)
	if err != nil {
		return nil, err
	}
	zr, err := bundle.Open(archive)
	if err != nil {
		return nil, err
	}
	sub, err := fs.Sub(zr, dir)
	if err != nil {
		return nil, err
	}
	if _, err := fs.Stat(sub, historyFile); err != nil {
		return nil, fmt.Errorf("skewtest was built without the %s subject's sources: run `go generate ./internal/adopt/example` and rebuild", path.Base(dir))
	}
	return &Source{Name: path.Base(dir), From: builtIn, subject: sub, kit: zr}, nil
}

// SourceDir returns the subject whose source is dir (a directory with a history.yaml),
// named after dir. Its driver kit comes from the skewtest checkout dir is in, else from
// the copy built into skewtest.
func SourceDir(dir string) (*Source, error) {
	if _, err := os.Stat(filepath.Join(dir, historyFile)); err != nil {
		return nil, fmt.Errorf("%s is not an example subject's source (no %s)", dir, historyFile)
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	s := &Source{Name: filepath.Base(abs), From: dir, subject: os.DirFS(dir)}
	if root, ok := findRoot(abs); ok {
		s.kit = os.DirFS(root)
		return s, nil
	}
	zr, err := bundle.Open(archive)
	if err != nil {
		return nil, err
	}
	s.kit = zr
	return s, nil
}

// findRoot looks for the skewtest repository at start or above it: a directory whose
// go.mod is the module github.com/skewtest/skewtest and that holds the driver kit.
func findRoot(start string) (string, bool) {
	for d := start; ; d = filepath.Dir(d) {
		if data, err := os.ReadFile(filepath.Join(d, bundle.ModFile)); err == nil && modfile.ModulePath(data) == kitModule {
			if _, err := os.Stat(filepath.Join(d, bundle.KitDir)); err == nil {
				return d, true
			}
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}
