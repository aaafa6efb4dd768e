package builds

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// keyScheme changes whenever what goes into a key, or how a tree is materialized, changes,
// so old cache entries are never mistaken for new ones. 2: overlays.
const keyScheme = 2

// cacheKey is the content address of a build: tree content, recipe, toolchain and
// overlays. tree is "git:<tree hash>" for a commit or "worktree-sha256:<digest>" for the
// working tree; overlay is "" or the overlay paths and a digest of their content.
func cacheKey(tree string, steps []string, toolchain, overlay string) string {
	in, _ := json.Marshal(struct {
		Scheme    int      `json:"scheme"`
		Tree      string   `json:"tree"`
		Steps     []string `json:"steps"`
		Toolchain string   `json:"toolchain"`
		Overlay   string   `json:"overlay"`
	}{keyScheme, tree, steps, toolchain, overlay})
	sum := sha256.Sum256(in)
	return hex.EncodeToString(sum[:])
}

// Build statuses in build.json.
const (
	statusOK     = "ok"
	statusFailed = "failed"
)

// record is build.json, written beside every published build.
type record struct {
	SchemaVersion int       `json:"schemaVersion"`
	Key           string    `json:"key"`
	Label         string    `json:"label"` // of the build that made this entry
	Revision      string    `json:"revision,omitempty"`
	Tree          string    `json:"tree"`
	Overlay       string    `json:"overlay,omitempty"`
	Toolchain     string    `json:"toolchain"`
	Steps         []string  `json:"steps"`
	Status        string    `json:"status"`
	Error         string    `json:"error,omitempty"`
	StartedAt     time.Time `json:"startedAt"`
	DurationMS    int64     `json:"durationMs"`
}

func readRecord(dir string) (*record, error) {
	data, err := os.ReadFile(filepath.Join(dir, "build.json"))
	if err != nil {
		return nil, err
	}
	var r record
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("read %s: %w", filepath.Join(dir, "build.json"), err)
	}
	return &r, nil
}

func writeRecord(dir string, r *record) error {
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "build.json"), append(data, '\n'), 0o644)
}

// cachedOK reports whether dir holds a published, successful build of key, and if so
// marks it used now (the age `skewtest cache prune --older-than` goes by).
func cachedOK(dir, key string) bool {
	r, err := readRecord(dir)
	if err != nil || r.Status != statusOK || r.Key != key {
		return false
	}
	now := time.Now()
	_ = os.Chtimes(filepath.Join(dir, "build.json"), now, now)
	return true
}

// Names inside <CacheDir>/builds besides the key directories.
const (
	stagingPrefix = ".staging-"
	lockPrefix    = ".lock-"
	holderSuffix  = ".holder" // .lock-<key>.holder names the lock's holder (Holder)
)

// tmpDirName is <CacheDir>/tmp, which holds each running build's TMPDIR and GOTMPDIR,
// <key>-<random>.
const tmpDirName = "tmp"

// lockPath is the flock file held while building key (and while pruning it).
func lockPath(buildsDir, key string) string {
	return filepath.Join(buildsDir, lockPrefix+key)
}

// removeAll removes a tree, making read-only directories writable first if it has to
// (Go's module cache, for one, writes read-only trees).
func removeAll(dir string) error {
	if err := os.RemoveAll(dir); err == nil {
		return nil
	}
	_ = filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() {
			_ = os.Chmod(p, 0o755)
		}
		return nil
	})
	if err := os.RemoveAll(dir); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}
