package builds

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/gofrs/flock"
)

// Entry is one directory of the build cache, for `skewtest cache ls` and Prune.
type Entry struct {
	Key       string
	Label     string // of the build that made it
	Revision  string
	Toolchain string
	Status    string    // ok, failed, building (a staging directory whose lock is held), stale (a left-over staging directory), stale-tmp (a left-over temporary directory of a build), broken (no readable build.json)
	Size      int64     // bytes on disk
	Built     time.Time // when the build started
	Used      time.Time // when a build last found it in the cache (or it was built)
	Dir       string
}

// Entry statuses besides the build.json ones.
const (
	statusBuilding = "building"
	statusStale    = "stale"
	statusStaleTmp = "stale-tmp"
	statusBroken   = "broken"
)

// Leftover reports whether the entry is something a killed process left: a staging or a
// temporary directory that no build holds.
func (e Entry) Leftover() bool { return e.Status == statusStale || e.Status == statusStaleTmp }

// List lists the build cache in CacheDir, most recently used first, with the temporary
// directories that killed builds left (a build's temporary directory is not listed while
// it runs). A missing cache is empty.
func List(cacheDir string) ([]Entry, error) {
	buildsDir := filepath.Join(cacheDir, "builds")
	des, err := os.ReadDir(buildsDir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list the build cache: %w", err)
	}
	var out []Entry
	tmps, _ := os.ReadDir(filepath.Join(cacheDir, tmpDirName))
	for _, de := range tmps {
		e := Entry{Key: suffixedKey(de.Name()), Dir: filepath.Join(cacheDir, tmpDirName, de.Name()), Status: statusStaleTmp}
		if !de.IsDir() || held(lockPath(buildsDir, e.Key)) {
			continue
		}
		if info, err := de.Info(); err == nil {
			e.Built, e.Used = info.ModTime(), info.ModTime()
		}
		e.Size = dirSize(e.Dir)
		out = append(out, e)
	}
	for _, de := range des {
		if !de.IsDir() {
			continue
		}
		e := Entry{Key: de.Name(), Dir: filepath.Join(buildsDir, de.Name())}
		if strings.HasPrefix(e.Key, stagingPrefix) {
			e.Key = suffixedKey(strings.TrimPrefix(e.Key, stagingPrefix))
			e.Status = statusStale
			if held(lockPath(buildsDir, e.Key)) {
				e.Status = statusBuilding
			}
			if info, err := de.Info(); err == nil {
				e.Built, e.Used = info.ModTime(), info.ModTime()
			}
		} else if r, err := readRecord(e.Dir); err != nil {
			e.Status = statusBroken
		} else {
			e.Label, e.Revision, e.Toolchain, e.Status, e.Built = r.Label, r.Revision, r.Toolchain, r.Status, r.StartedAt
			e.Used = e.Built
			if info, err := os.Stat(filepath.Join(e.Dir, "build.json")); err == nil {
				e.Used = info.ModTime()
			}
		}
		e.Size = dirSize(e.Dir)
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b Entry) int { return b.Used.Compare(a.Used) })
	return out, nil
}

// suffixedKey returns the key of "<key>-<random>" (a staging directory without its
// prefix, or a temporary directory).
func suffixedKey(name string) string {
	if i := strings.LastIndex(name, "-"); i >= 0 {
		return name[:i]
	}
	return name
}

func dirSize(dir string) int64 {
	var n int64
	_ = filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}

// held reports whether another process (or Builder) holds the lock file.
func held(path string) bool {
	if _, err := os.Stat(path); err != nil {
		return false
	}
	l := flock.New(path)
	defer l.Close()
	ok, err := l.TryLock()
	if err != nil || !ok {
		return true
	}
	_ = l.Unlock()
	return false
}

// PruneOptions say what Prune removes. The zero value removes failed builds, broken
// entries, and the staging and temporary directories left by killed processes.
type PruneOptions struct {
	// OlderThan also removes successful builds not used for this long.
	OlderThan time.Duration
	// All removes every entry, and the shared GOCACHE.
	All bool
	// Now is the time ages are measured from; zero means time.Now().
	Now time.Time
}

// Pruned is what Prune did.
type Pruned struct {
	Removed []Entry
	Busy    []Entry // would have been removed, but a build of the key holds its lock
	Freed   int64   // bytes
}

// Prune removes cache entries. It takes each entry's build lock before removing it and
// leaves alone (in Busy) an entry whose lock another process holds: a build in progress,
// or a container build still running. A build removed while a run uses its drivers is
// gone for that run; prune with --older-than on machines that share the cache.
func Prune(ctx context.Context, cacheDir string, opts PruneOptions) (*Pruned, error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	entries, err := List(cacheDir)
	if err != nil {
		return nil, err
	}
	buildsDir := filepath.Join(cacheDir, "builds")
	res := &Pruned{}
	for _, e := range entries {
		if err := ctx.Err(); err != nil {
			return res, err
		}
		remove := opts.All || e.Status != statusOK ||
			(opts.OlderThan > 0 && now.Sub(e.Used) > opts.OlderThan)
		if !remove || e.Status == statusBuilding {
			if remove {
				res.Busy = append(res.Busy, e)
			}
			continue
		}
		ok, err := removeLocked(buildsDir, e)
		if err != nil {
			return res, err
		}
		if !ok {
			res.Busy = append(res.Busy, e)
			continue
		}
		res.Removed = append(res.Removed, e)
		res.Freed += e.Size
	}
	if opts.All {
		held := len(res.Busy) > 0
		if !held {
			gc := filepath.Join(cacheDir, "gocache")
			size := dirSize(gc)
			if err := removeAll(gc); err != nil {
				return res, fmt.Errorf("remove %s: %w", gc, err)
			}
			res.Freed += size
		}
	}
	return res, nil
}

// removeLocked removes an entry holding its key's lock; false when another process holds
// it.
func removeLocked(buildsDir string, e Entry) (bool, error) {
	lp := lockPath(buildsDir, e.Key)
	l := flock.New(lp)
	defer l.Close()
	ok, err := l.TryLock()
	if err != nil {
		return false, fmt.Errorf("lock %s: %w", lp, err)
	}
	if !ok {
		return false, nil
	}
	defer l.Unlock()
	defer holdLock(lp)()
	if err := removeAll(e.Dir); err != nil {
		return false, fmt.Errorf("remove %s: %w", e.Dir, err)
	}
	return true, nil
}

// sweep removes what killed processes left in the cache: staging directories and build
// temporary directories whose key's lock nobody holds. It holds each key's lock while it
// removes, so it never touches what another process is building, and it reads no sizes,
// so it is cheap enough for the start of every run.
func sweep(cacheDir string) error {
	buildsDir := filepath.Join(cacheDir, "builds")
	var left []Entry
	des, _ := os.ReadDir(buildsDir)
	for _, de := range des {
		if name := de.Name(); de.IsDir() && strings.HasPrefix(name, stagingPrefix) {
			left = append(left, Entry{Key: suffixedKey(strings.TrimPrefix(name, stagingPrefix)), Dir: filepath.Join(buildsDir, name)})
		}
	}
	tmps, _ := os.ReadDir(filepath.Join(cacheDir, tmpDirName))
	for _, de := range tmps {
		if de.IsDir() {
			left = append(left, Entry{Key: suffixedKey(de.Name()), Dir: filepath.Join(cacheDir, tmpDirName, de.Name())})
		}
	}
	var errs []error
	for _, e := range left {
		if _, err := removeLocked(buildsDir, e); err != nil {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
