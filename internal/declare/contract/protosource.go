package contract

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"
	"sync"

	"github.com/bufbuild/protocompile"
	"github.com/bufbuild/protocompile/reporter"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
)

// ProtoSources are .proto source files to compile, read from a tree of files: the tree a
// build is made from (its commit's files, a working tree), so that every build's contract
// reads its messages from its own .proto files.
type ProtoSources struct {
	// Tree holds the files, rooted at the repository's root.
	Tree fs.FS
	// Label prefixes paths in messages: "v1.2.0:" for a commit's files, "" for a directory.
	Label string
}

// CompileProto compiles the .proto files (slash-separated paths from the tree's root) as
// protoc -I IMPORTPATH… FILE… does, and returns them and everything they import as a
// FileDescriptorSet (protoc --include_imports). Each file must lie inside one of
// importPaths (default: the tree's root); imports are looked up in importPaths in order,
// then among protoc's standard imports (google/protobuf/…). A file that does not compile
// is an error that names it as tree path:line:column.
func CompileProto(ctx context.Context, src ProtoSources, importPaths, files []string) (*descriptorpb.FileDescriptorSet, error) {
	if src.Tree == nil {
		return nil, errors.New("no tree to read .proto files from")
	}
	if len(importPaths) == 0 {
		importPaths = []string{"."}
	}
	ips := make([]string, len(importPaths))
	for i, ip := range importPaths {
		ips[i] = path.Clean(ip)
		if !fs.ValidPath(ips[i]) {
			return nil, fmt.Errorf("import path %q is not a relative path inside the repository", ip)
		}
	}
	var names []string
	for _, f := range files {
		f = path.Clean(f)
		if !fs.ValidPath(f) || f == "." {
			return nil, fmt.Errorf("file %q is not a relative path inside the repository", f)
		}
		if _, err := fs.Stat(src.Tree, f); err != nil {
			return nil, fmt.Errorf("%s%s: %w", src.Label, f, notExist(err))
		}
		name, ok := protoName(ips, f)
		if !ok {
			return nil, fmt.Errorf("%s%s is inside none of the importPaths %q: each file must lie inside an import path, as protoc requires", src.Label, f, importPaths)
		}
		names = append(names, name)
	}
	var where sync.Map // a proto file's name → its path in the tree, for messages
	resolve := protocompile.ResolverFunc(func(name string) (protocompile.SearchResult, error) {
		for _, ip := range ips {
			p := path.Join(ip, name)
			data, err := fs.ReadFile(src.Tree, p)
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid) {
				continue
			}
			if err != nil {
				return protocompile.SearchResult{}, fmt.Errorf("read %s%s: %w", src.Label, p, err)
			}
			where.Store(name, p)
			return protocompile.SearchResult{Source: bytes.NewReader(data)}, nil
		}
		return protocompile.SearchResult{}, fmt.Errorf("%s is in none of the importPaths %q: %w", name, importPaths, fs.ErrNotExist)
	})
	c := protocompile.Compiler{Resolver: protocompile.WithStandardImports(resolve)}
	out, err := c.Compile(ctx, names...)
	if err != nil {
		var ewp reporter.ErrorWithPos
		if errors.As(err, &ewp) {
			pos := ewp.GetPosition()
			p := pos.Filename
			if w, ok := where.Load(p); ok {
				p = w.(string)
			}
			return nil, fmt.Errorf("%s%s:%d:%d: %w", src.Label, p, pos.Line, pos.Col, ewp.Unwrap())
		}
		return nil, err
	}
	set := &descriptorpb.FileDescriptorSet{}
	seen := map[string]bool{}
	var add func(fd protoreflect.FileDescriptor)
	add = func(fd protoreflect.FileDescriptor) { // imports first, as protoc writes them
		if seen[fd.Path()] {
			return
		}
		seen[fd.Path()] = true
		for i := range fd.Imports().Len() {
			add(fd.Imports().Get(i).FileDescriptor)
		}
		set.File = append(set.File, protodesc.ToFileDescriptorProto(fd))
	}
	for _, f := range out {
		add(f)
	}
	return set, nil
}

// protoName is a file's name as protoc knows it: its path inside the first import path that
// holds it.
func protoName(importPaths []string, file string) (string, bool) {
	for _, ip := range importPaths {
		if ip == "." {
			return file, true
		}
		if rest, ok := strings.CutPrefix(file, ip+"/"); ok {
			return rest, true
		}
	}
	return "", false
}

// notExist says "does not exist" for a missing file, else the error.
func notExist(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return errors.New("no such file")
	}
	return err
}
