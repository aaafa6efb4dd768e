package reports

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/skewtest/skewtest/results"
)

// ErrMergeInput: a directory given to MergeDirs is not a shard's report (or its
// results.json cannot be read), or is the output.
var ErrMergeInput = errors.New("merge-reports input")

// MergeDirs merges the report directories of the shards of one plan (skewtest run
// --shard k/n) into out, as if one machine had run the whole plan: it reads each shard's
// results.json, merges them (results.Merge), brings every pairing's transcript and driver
// logs into out, and writes every report there (Write).
//
// Files keep their paths: pairing directories are named by plan position, so shards do not
// collide. Should two shards use one directory name, the later shard's goes under
// shards/<k>-of-<n>/ and its paths in results.json say so. Files are hard-linked where out
// is on the shard's file system, copied otherwise; a file a shard's results.json names but
// its directory lacks (an artifact cut short) is left named, not copied.
func MergeDirs(out string, dirs ...string) (*results.Run, error) {
	if len(dirs) == 0 {
		return nil, fmt.Errorf("%w: no report directory given", ErrMergeInput)
	}
	absOut, err := filepath.Abs(out)
	if err != nil {
		return nil, err
	}
	runs := make([]*results.Run, len(dirs))
	for i, d := range dirs {
		absDir, err := filepath.Abs(d)
		if err != nil {
			return nil, err
		}
		if absDir == absOut {
			return nil, fmt.Errorf("%w: the output %s is also a shard: merge into a new directory", ErrMergeInput, out)
		}
		p := filepath.Join(d, ResultsFile)
		if _, err := os.Stat(p); errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s has no %s: is it a run's report directory (its ReportDir, --report-dir)?", ErrMergeInput, d, ResultsFile)
		}
		if runs[i], err = results.Load(p); err != nil {
			return nil, fmt.Errorf("%w: %w", ErrMergeInput, err)
		}
	}
	merged, err := results.Merge(runs...)
	if err != nil {
		return nil, err
	}
	m := &mover{out: out, claimed: map[string]string{}, moved: map[string]string{}}
	for i, r := range runs {
		tag := fmt.Sprintf("dir-%d", i+1)
		if r.Shard != "" {
			tag = strings.ReplaceAll(r.Shard, "/", "-of-")
		}
		for _, p := range r.Pairings {
			if p.Transcript != "" {
				if p.Transcript, err = m.move(dirs[i], tag, p.Transcript); err != nil {
					return nil, err
				}
			}
			for j := range p.Logs {
				if p.Logs[j], err = m.move(dirs[i], tag, p.Logs[j]); err != nil {
					return nil, err
				}
			}
		}
	}
	if err := Write(out, merged); err != nil {
		return nil, err
	}
	return merged, nil
}

// mover brings shards' pairing directories into the merged report.
type mover struct {
	out     string
	claimed map[string]string // directory in out (slash path) → the shard directory it holds
	moved   map[string]string // shard directory (absolute) → its directory in out
}

// move brings the directory holding rel (a path relative to the shard's report dir) into
// out, once per directory, and returns rel's path in out.
func (m *mover) move(shardDir, tag, rel string) (string, error) {
	if !filepath.IsLocal(filepath.FromSlash(rel)) {
		return "", fmt.Errorf("%w: %s names %q, outside its report directory", ErrMergeInput, filepath.Join(shardDir, ResultsFile), rel)
	}
	dir, file := path.Split(rel)
	dir = strings.TrimSuffix(dir, "/")
	if dir == "" {
		// A file at the top of the report: move only that file.
		dir, file = rel, ""
	}
	src, err := filepath.Abs(filepath.Join(shardDir, filepath.FromSlash(dir)))
	if err != nil {
		return "", err
	}
	dest, ok := m.moved[src]
	if !ok {
		dest = dir
		if other, taken := m.claimed[dest]; taken && other != src {
			dest = path.Join("shards", tag, dir)
		}
		m.claimed[dest], m.moved[src] = src, dest
		if err := copyTree(src, filepath.Join(m.out, filepath.FromSlash(dest))); err != nil {
			return "", fmt.Errorf("bring %s into %s: %w", src, m.out, err)
		}
	}
	if file == "" {
		return dest, nil
	}
	return dest + "/" + file, nil
}

// copyTree links or copies src (a file or a directory tree) to dst. A missing src is
// not an error.
func copyTree(src, dst string) error {
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if errors.Is(err, fs.ErrNotExist) && p == src {
			return nil
		}
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		if !d.Type().IsRegular() {
			return nil
		}
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return err
		}
		_ = os.Remove(target)
		if os.Link(p, target) == nil {
			return nil
		}
		return copyFile(p, target)
	})
}

func copyFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = io.Copy(out, in)
	return errors.Join(err, out.Close())
}
