// Package bundle says which files of the skewtest repository `skewtest example` reads —
// every example subject's directory and the driver kit the subjects' drivers import — and
// packs them into the zip archive built into the skewtest binary (example/sources.zip), so
// the command works from a binary installed anywhere. It holds the table of example
// subjects.
package bundle

import (
	"archive/zip"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// subjects is the table of example subjects: directories of the skewtest repository, each
// with a history.yaml; a subject is named by its directory's last element, and the first
// is the default. Adding a subject is adding its directory here and running
// `go generate ./internal/adopt/example`.
var subjects = [...]string{
	"examples/remoteterm",
	"examples/notesd",
}

// Subjects returns the subjects' directories, the default first.
func Subjects() []string { return slices.Clone(subjects[:]) }

// Paths of the driver kit in the repository: the main module's go.mod (the archive keeps
// only its module path and go directive), the kit's package, and the kit for Node.js
// drivers inside it (JavaScript and its type declarations).
const (
	ModFile    = "go.mod"
	KitDir     = "driverkit"
	NodeKitDir = "driverkit/node"
)

// read returns a file as the archive holds it: ModFile reduced to its module and go lines
// (the kit needs no more, and the archive need not change with every requirement), every
// other file as it is.
func read(root fs.FS, name string) ([]byte, error) {
	data, err := fs.ReadFile(root, name)
	if err != nil || name != ModFile {
		return data, err
	}
	mf, err := modfile.ParseLax(name, data, nil)
	if err != nil {
		return nil, err
	}
	if mf.Module == nil || mf.Go == nil {
		return nil, fmt.Errorf("%s: no module path or go directive", name)
	}
	return fmt.Appendf(nil, "module %s\n\ngo %s\n", mf.Module.Mod.Path, mf.Go.Version), nil
}

// Files lists, sorted, every file of the repository at root that the archive holds: every
// regular file under each subject's directory except directories whose names start with a
// dot and compiled test binaries (*.test); ModFile (reduced, see read); and the kit's
// sources (KitFiles).
func Files(root fs.FS) ([]string, error) {
	files := []string{ModFile}
	for _, dir := range subjects {
		sub, err := SubjectFiles(root, dir)
		if err != nil {
			return nil, err
		}
		for _, f := range sub {
			files = append(files, path.Join(dir, f))
		}
	}
	kit, err := KitFiles(root)
	if err != nil {
		return nil, err
	}
	files = append(files, kit...)
	slices.Sort(files)
	return files, nil
}

// SubjectFiles lists, relative to dir and sorted, the files of a subject's directory:
// regular files, not under a directory whose name starts with a dot, and no *.test.
func SubjectFiles(root fs.FS, dir string) ([]string, error) {
	var files []string
	err := fs.WalkDir(root, dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != dir && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !d.Type().IsRegular() || strings.HasSuffix(p, ".test") {
			return nil
		}
		files = append(files, strings.TrimPrefix(p, dir+"/"))
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list %s: %w", dir, err)
	}
	slices.Sort(files)
	return files, nil
}

// KitFiles lists, sorted and relative to root, the driver kit's sources: the .go files
// under KitDir, without _test.go files and testdata, and the Node.js kit's .js and .d.ts
// files under NodeKitDir, without testdata.
func KitFiles(root fs.FS) ([]string, error) {
	var files []string
	err := fs.WalkDir(root, KitDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if p != KitDir && (d.Name() == "testdata" || strings.HasPrefix(d.Name(), ".") || strings.HasPrefix(d.Name(), "_")) {
				return fs.SkipDir
			}
			return nil
		}
		if d.Type().IsRegular() && isKitSource(p) {
			files = append(files, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("list the driver kit: %w", err)
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("list the driver kit: no Go files in %s", KitDir)
	}
	slices.Sort(files)
	return files, nil
}

// isKitSource reports whether p, a file under KitDir, is one of the kit's sources.
func isKitSource(p string) bool {
	if strings.HasSuffix(p, ".go") {
		return !strings.HasSuffix(p, "_test.go")
	}
	return strings.HasPrefix(p, NodeKitDir+"/") && (strings.HasSuffix(p, ".js") || strings.HasSuffix(p, ".d.ts"))
}

// comment is the archive's zip comment.
const comment = "Written by `go generate ./internal/adopt/example` from the skewtest repository. Do not edit."

// Write writes the archive of the repository at root to w: Files, stored uncompressed,
// in order, without timestamps, so the same files make the same bytes.
func Write(w io.Writer, root fs.FS) error {
	files, err := Files(root)
	if err != nil {
		return err
	}
	zw := zip.NewWriter(w)
	for _, f := range files {
		data, err := read(root, f)
		if err != nil {
			return err
		}
		fw, err := zw.CreateHeader(&zip.FileHeader{Name: f, Method: zip.Store})
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	if err := zw.SetComment(comment); err != nil {
		return err
	}
	return zw.Close()
}

// Open reads an archive written by Write.
func Open(archive []byte) (*zip.Reader, error) {
	zr, err := zip.NewReader(bytes.NewReader(archive), int64(len(archive)))
	if err != nil {
		return nil, fmt.Errorf("read the example archive: %w", err)
	}
	return zr, nil
}

// ErrStale says the archive does not hold what the repository would put in it.
var ErrStale = errors.New("the example archive is stale: run `go generate ./internal/adopt/example`")

// Diff compares an archive with the repository at root and returns an error wrapping
// ErrStale that names every file added, removed or changed since the archive was written.
func Diff(archive []byte, root fs.FS) error {
	zr, err := Open(archive)
	if err != nil {
		return err
	}
	want, err := Files(root)
	if err != nil {
		return err
	}
	var have []string
	for _, f := range zr.File {
		have = append(have, f.Name)
	}
	slices.Sort(have)
	var diffs []string
	for _, f := range want {
		if _, found := slices.BinarySearch(have, f); !found {
			diffs = append(diffs, "added "+f)
			continue
		}
		a, err := fs.ReadFile(zr, f)
		if err != nil {
			return err
		}
		b, err := read(root, f)
		if err != nil {
			return err
		}
		if !bytes.Equal(a, b) {
			diffs = append(diffs, "changed "+f)
		}
	}
	for _, f := range have {
		if _, found := slices.BinarySearch(want, f); !found {
			diffs = append(diffs, "removed "+f)
		}
	}
	if len(diffs) > 0 {
		return fmt.Errorf("%w (%s)", ErrStale, strings.Join(diffs, ", "))
	}
	return nil
}
