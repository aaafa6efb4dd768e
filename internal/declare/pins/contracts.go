package pins

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// ErrNoContract means a build's contract file cannot be found: its skewtest.yaml names none,
// or the file it names is not there.
var ErrNoContract = errors.New("no contract")

// ContractFile is one build's wire contract file as stored, ready for contract.Parse.
type ContractFile struct {
	// Name names the file in messages: the working tree file's path, or git's "REF:PATH"
	// for a file read from a commit.
	Name string
	Data []byte
	// Files holds the files beside it (the protobuf descriptor sets it refers to), rooted at
	// its directory: pass it with contract.WithFiles.
	Files fs.FS
	// Sources is the tree of the build the contract describes, where a protobuf codec's
	// .proto files are compiled from: the working tree, a commit's files, or (through
	// subject.ContractFile) a tag's files with its versions row's overlays laid over. A
	// row's contract is read from the row's file, its .proto files from the tag's own tree.
	Sources contract.ProtoSources
	// From says where a build's contract came from when not from its own checkout: the
	// versions row that gave it ("skewtest.yaml:41 (versions row \"<v1.4.150\"): …"); ""
	// otherwise.
	From string
}

// Options are the contract.Parse options that read the files cf refers to: descriptor sets
// beside it (Files), .proto files from its build's tree (Sources).
func (cf ContractFile) Options() []contract.Option {
	var opts []contract.Option
	if cf.Files != nil {
		opts = append(opts, contract.WithFiles(cf.Files))
	}
	if cf.Sources.Tree != nil {
		opts = append(opts, contract.WithSources(cf.Sources))
	}
	return opts
}

// Contracts reads the contract files of a subject's builds without a checkout: the working
// tree's from disk, a commit's from the object database, each at the path its own
// skewtest.yaml names (for a commit that predates skewtest.yaml, the working tree's path),
// as the window rule reads protocol windows.
type Contracts struct {
	repo     *git.Repository
	dir      string // as given, for messages
	root     string // the working tree's root
	fallback string // the working tree's contract path, "" when it names none
	rows     []contractRow
}

// OpenContracts opens the repository containing repoDir for reading contracts.
func OpenContracts(repoDir string) (*Contracts, error) {
	repo, err := Open(repoDir)
	if err != nil {
		return nil, err
	}
	r, err := root(repo, repoDir)
	if err != nil {
		return nil, err
	}
	c := &Contracts{repo: repo, dir: repoDir, root: r}
	if data, err := os.ReadFile(filepath.Join(r, configFile)); err == nil {
		c.fallback, _ = contractPath(configFile, data)
		c.rows = contractRows(data)
	}
	return c, nil
}

// Worktree reads the working tree's contract, uncommitted changes included.
func (c *Contracts) Worktree() (ContractFile, error) {
	cfg := filepath.Join(c.root, configFile)
	data, err := os.ReadFile(cfg)
	if err != nil {
		return ContractFile{}, fmt.Errorf("%w in the working tree: %w", ErrNoContract, err)
	}
	rel, err := contractPath(cfg, data)
	if err != nil {
		return ContractFile{}, fmt.Errorf("%w in the working tree: %w", ErrNoContract, err)
	}
	name := filepath.Join(c.root, filepath.FromSlash(rel))
	data, err = os.ReadFile(name)
	if err != nil {
		return ContractFile{}, fmt.Errorf("%w in the working tree: %w", ErrNoContract, err)
	}
	return ContractFile{Name: name, Data: data, Files: os.DirFS(filepath.Dir(name)), Sources: c.WorktreeSources()}, nil
}

// WorktreeSources is the working tree as a tree of .proto sources.
func (c *Contracts) WorktreeSources() contract.ProtoSources {
	return contract.ProtoSources{Tree: os.DirFS(c.root)}
}

// CommitSources is a commit's files as a tree of .proto sources, labelled label.
func (c *Contracts) CommitSources(label string, commit plumbing.Hash) (contract.ProtoSources, error) {
	tree, err := c.tree(label, commit)
	if err != nil {
		return contract.ProtoSources{}, err
	}
	return contract.ProtoSources{Tree: treeFS{tree}, Label: label + ":"}, nil
}

// Ref reads the contract of a ref: WorktreeLabel for the working tree, else a tag, branch or
// commit (resolved as an explicit pin is; errors wrap ErrUnknownRef).
func (c *Contracts) Ref(ctx context.Context, ref string) (ContractFile, error) {
	if ref == WorktreeLabel {
		return c.Worktree()
	}
	h, err := resolveRef(c.repo, c.dir, ref)
	if err != nil {
		return ContractFile{}, err
	}
	return c.At(ctx, ref, h)
}

// At reads the contract of a commit, labelled label in messages: the one the working tree's
// versions table gives a tag, or a commit through the nearest stable tag below it (a row's
// contract, RowLabel), else the one its own skewtest.yaml names.
func (c *Contracts) At(ctx context.Context, label string, commit plumbing.Hash) (ContractFile, error) {
	row, err := RowLabel(ctx, c.repo, label, commit)
	if err != nil {
		return ContractFile{}, err
	}
	if cf, ok, err := c.fromRow(row); ok || err != nil {
		if err == nil {
			// The row's contract describes this commit's build: its .proto files are the
			// commit's own.
			cf.Sources, err = c.CommitSources(label, commit)
		}
		return cf, err
	}
	tree, err := c.tree(label, commit)
	if err != nil {
		return ContractFile{}, err
	}
	rel := c.fallback
	switch f, err := tree.File(configFile); {
	case errors.Is(err, object.ErrFileNotFound):
		if rel == "" {
			return ContractFile{}, fmt.Errorf("%w at %s: it has no %s, and the working tree's names no contract", ErrNoContract, label, configFile)
		}
	case err != nil:
		return ContractFile{}, fmt.Errorf("read %s:%s: %w", label, configFile, err)
	default:
		data, err := f.Contents()
		if err != nil {
			return ContractFile{}, fmt.Errorf("read %s:%s: %w", label, configFile, err)
		}
		if rel, err = contractPath(label+":"+configFile, []byte(data)); err != nil {
			return ContractFile{}, fmt.Errorf("%w at %s: %w", ErrNoContract, label, err)
		}
	}
	return readAt(tree, label, path.Clean(rel))
}

// WorktreeFile reads the working tree's file at rel (slash-separated, from the repository
// root) as a contract file, uncommitted changes included: the contract a versions row's
// overlay lays over an older checkout.
func (c *Contracts) WorktreeFile(rel string) (ContractFile, error) {
	name := filepath.Join(c.root, filepath.FromSlash(path.Clean(rel)))
	data, err := os.ReadFile(name)
	if err != nil {
		return ContractFile{}, fmt.Errorf("%w in the working tree: %w", ErrNoContract, err)
	}
	return ContractFile{Name: name, Data: data, Files: os.DirFS(filepath.Dir(name)), Sources: c.WorktreeSources()}, nil
}

// CommitFile reads the file at rel (slash-separated, from the repository root) of a commit,
// labelled label in messages, as a contract file: the contract a build's checkout holds.
func (c *Contracts) CommitFile(label string, commit plumbing.Hash, rel string) (ContractFile, error) {
	tree, err := c.tree(label, commit)
	if err != nil {
		return ContractFile{}, err
	}
	return readAt(tree, label, path.Clean(rel))
}

// AtPath reads the file at path (slash-separated, from the repository root) of a ref, as a
// contract file: git's REF:PATH.
func (c *Contracts) AtPath(ref, p string) (ContractFile, error) {
	h, err := resolveRef(c.repo, c.dir, ref)
	if err != nil {
		return ContractFile{}, err
	}
	tree, err := c.tree(ref, h)
	if err != nil {
		return ContractFile{}, err
	}
	return readAt(tree, ref, path.Clean(p))
}

func (c *Contracts) tree(label string, commit plumbing.Hash) (*object.Tree, error) {
	co, err := c.repo.CommitObject(commit)
	if err != nil {
		return nil, fmt.Errorf("commit %s of %s: %w", commit, label, err)
	}
	tree, err := co.Tree()
	if err != nil {
		return nil, fmt.Errorf("tree of %s: %w", label, err)
	}
	return tree, nil
}

func readAt(tree *object.Tree, label, rel string) (ContractFile, error) {
	name := label + ":" + rel
	f, err := tree.File(rel)
	if errors.Is(err, object.ErrFileNotFound) {
		return ContractFile{}, fmt.Errorf("%w: %s does not exist", ErrNoContract, name)
	}
	if err != nil {
		return ContractFile{}, fmt.Errorf("read %s: %w", name, err)
	}
	data, err := f.Contents()
	if err != nil {
		return ContractFile{}, fmt.Errorf("read %s: %w", name, err)
	}
	var files fs.FS = treeFS{tree}
	if dir := path.Dir(rel); dir != "." {
		if files, err = fs.Sub(files, dir); err != nil {
			return ContractFile{}, fmt.Errorf("read %s: %w", name, err)
		}
	}
	return ContractFile{Name: name, Data: []byte(data), Files: files, Sources: contract.ProtoSources{Tree: treeFS{tree}, Label: label + ":"}}, nil
}

// treeFS serves the files of a git tree (the descriptor sets a contract refers to).
type treeFS struct{ tree *object.Tree }

func (t treeFS) Open(name string) (fs.File, error) {
	data, err := t.ReadFile(name)
	if err != nil {
		return nil, err
	}
	return &treeFile{Reader: bytes.NewReader(data), name: path.Base(name), size: int64(len(data))}, nil
}

func (t treeFS) ReadFile(name string) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	f, err := t.tree.File(name)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrNotExist}
	}
	s, err := f.Contents()
	if err != nil {
		return nil, &fs.PathError{Op: "read", Path: name, Err: err}
	}
	return []byte(s), nil
}

// treeFile is a file of a treeFS, read from memory.
type treeFile struct {
	*bytes.Reader
	name string
	size int64
}

func (f *treeFile) Stat() (fs.FileInfo, error) { return f, nil }
func (f *treeFile) Close() error               { return nil }
func (f *treeFile) Name() string               { return f.name }
func (f *treeFile) Size() int64                { return f.size }
func (f *treeFile) Mode() fs.FileMode          { return 0o444 }
func (f *treeFile) ModTime() time.Time         { return time.Time{} }
func (f *treeFile) IsDir() bool                { return false }
func (f *treeFile) Sys() any                   { return nil }
