package contract

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// maxProblems bounds how many problems of one contract are reported at once.
const maxProblems = 20

// Parse reads and validates a contract document of any version this skewtest reads; name
// (the file's path) is used in errors and to find the files the contract refers to, relative
// to its directory (see WithFiles). Every problem is reported as
// "name: line N: where: what is wrong (how to fix it)".
func Parse(name string, data []byte, opts ...Option) (*Contract, error) {
	var o options
	for _, opt := range opts {
		opt(&o)
	}
	root, err := readDocument(data)
	if err != nil {
		return nil, placed(name, data, nil, err)
	}
	if root.kind != nodeObject {
		return nil, placed(name, data, root, errAt(root, "", "a contract is a JSON object, got %s", root.kind))
	}
	vn := root.member("contractVersion")
	if vn == nil {
		return nil, placed(name, data, root, errAt(root, "", `no contractVersion: begin the object with "contractVersion": %d`, Version))
	}
	var version int
	if err := decodeStrict(vn, "/contractVersion", &version); err != nil {
		return nil, placed(name, data, root, err)
	}
	var c *Contract
	var problems []error
	switch version {
	case 1:
		c, problems = parseV1(root)
	case 2:
		c, problems = parseV2(root, o.reader(name), func() ProtoSources { return o.protoSources(name) })
	default:
		return nil, fmt.Errorf("%s: line %d: contractVersion %d: %w (this skewtest reads 1 to %d)",
			name, lineOf(data, vn.off), version, ErrUnsupported, Version)
	}
	if len(problems) > 0 {
		errs := make([]error, 0, min(len(problems), maxProblems)+1)
		for i, p := range problems {
			if i == maxProblems {
				errs = append(errs, fmt.Errorf("%s: %d more problems", name, len(problems)-maxProblems))
				break
			}
			errs = append(errs, placed(name, data, root, p))
		}
		return nil, errors.Join(errs...)
	}
	c.src = &source{name: name, data: data, root: root}
	return c, nil
}

// placed prefixes an error with the file name and, for a docError, its line.
func placed(name string, data []byte, root *node, err error) error {
	var de *docError
	if !errors.As(err, &de) {
		return fmt.Errorf("%s: %w", name, err)
	}
	off := de.off
	if off < 0 && root != nil {
		off = root.placeOf(de.ptr)
	}
	return fmt.Errorf("%s: line %d: %w", name, lineOf(data, off), err)
}

// bad is a problem at ptr, placed by its pointer.
func bad(ptr, format string, args ...any) *docError {
	return &docError{off: -1, ptr: ptr, msg: fmt.Sprintf(format, args...)}
}

// reader returns how to read a file the contract refers to.
func (o options) reader(contractPath string) func(string) ([]byte, error) {
	if o.files != nil {
		return func(p string) ([]byte, error) { return fs.ReadFile(o.files, path.Clean(p)) }
	}
	dir := filepath.Dir(contractPath)
	return func(p string) ([]byte, error) {
		p = filepath.FromSlash(p)
		if !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		return os.ReadFile(p)
	}
}

// protoSources returns the tree a protobuf codec's .proto files are read from: WithSources',
// else WithFiles', else DiskSources of the contract file.
func (o options) protoSources(contractPath string) ProtoSources {
	switch {
	case o.sources != nil:
		return *o.sources
	case o.files != nil:
		return ProtoSources{Tree: o.files}
	}
	return DiskSources(contractPath)
}

// DiskSources is the tree of .proto sources of a contract file on the disk: the repository
// that holds it (the nearest directory above it with a .git), else its directory.
func DiskSources(contractPath string) ProtoSources {
	dir, err := filepath.Abs(filepath.Dir(contractPath))
	if err != nil {
		return ProtoSources{Tree: os.DirFS(filepath.Dir(contractPath))}
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return ProtoSources{Tree: os.DirFS(d)}
		}
		up := filepath.Dir(d)
		if up == d {
			return ProtoSources{Tree: os.DirFS(dir)}
		}
		d = up
	}
}
