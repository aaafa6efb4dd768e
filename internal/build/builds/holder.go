package builds

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"syscall"
	"time"

	"github.com/skewtest/skewtest/internal/build/shell"
)

// Holder is the process that holds a build lock, as it wrote itself into the lock's
// holder file (<lock>.holder) after taking the lock. The file is only ever a name for
// the wait's message: the flock alone decides who builds, so a stale or missing file
// blocks nothing.
type Holder struct {
	PID     int       `json:"pid"`
	Command string    `json:"command"` // its command line, shell-quoted
	Since   time.Time `json:"since"`   // when it took the lock
}

// String is "pid 4242 (skewtest run --repo /tmp/r) since 19:40:02".
func (h *Holder) String() string {
	since := h.Since.Local()
	format := time.TimeOnly
	if since.Format(time.DateOnly) != time.Now().Format(time.DateOnly) {
		format = time.DateTime
	}
	return fmt.Sprintf("pid %d (%s) since %s", h.PID, h.Command, since.Format(format))
}

func holderPath(lockPath string) string { return lockPath + holderSuffix }

// holdLock writes this process into the holder file of the lock it has just taken, and
// returns what removes it again, to be called before the lock is released. Writing is
// best effort: a lock without a holder file is only named less well.
func holdLock(lockPath string) (release func()) {
	path := holderPath(lockPath)
	data, err := json.Marshal(Holder{PID: os.Getpid(), Command: shell.Join(os.Args), Since: time.Now().UTC()})
	if err != nil {
		return func() {}
	}
	// Written whole under another name and renamed, so a waiter never reads half of it;
	// only the lock's holder writes either name.
	tmp := path + ".tmp"
	if os.WriteFile(tmp, append(data, '\n'), 0o644) != nil || os.Rename(tmp, path) != nil {
		_ = os.Remove(tmp)
		return func() {}
	}
	return func() { _ = os.Remove(path) }
}

// lockHolder reads who holds the lock; nil when it cannot tell: no holder file (a
// skewtest that writes none, or one that has taken the lock and not yet written it),
// an unreadable one, or one a killed process left (its pid is gone).
func lockHolder(lockPath string) *Holder {
	data, err := os.ReadFile(holderPath(lockPath))
	if err != nil {
		return nil
	}
	var h Holder
	if err := json.Unmarshal(data, &h); err != nil || h.PID <= 0 || h.Command == "" {
		return nil
	}
	if err := syscall.Kill(h.PID, 0); errors.Is(err, syscall.ESRCH) {
		return nil
	}
	return &h
}
