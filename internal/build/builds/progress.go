package builds

import (
	"fmt"
	"time"
)

// State is where one build is.
type State int

// The states a build goes through: Queued (BuildAll only), Waiting (optional), then
// Cached, or Materializing, Running (once per step), then Built or Failed.
const (
	Queued        State = iota // BuildAll has not started it yet (all workers are busy)
	Waiting                    // for another process's build of the same key
	Materializing              // writing the tree into the staging directory
	Running                    // a recipe step runs (Event.Step of Event.Steps)
	Cached                     // found in the cache: nothing was built
	Built                      // built now
	Failed                     // the recipe failed or timed out
)

var stateNames = [...]string{"queued", "waiting", "materializing", "running", "cached", "built", "failed"}

func (s State) String() string {
	if int(s) < len(stateNames) {
		return stateNames[s]
	}
	return fmt.Sprintf("State(%d)", int(s))
}

// Done reports whether the build is over.
func (s State) Done() bool { return s >= Cached }

// Event is one step of a build's progress, for Builder.Progress.
type Event struct {
	Label   string
	Key     string
	State   State
	Step    int    // Running: the step, counting from 1
	Steps   int    // Running: how many steps the recipe has
	Command string // Running: the step's command line
	Elapsed time.Duration
	LogPath string // Built, Failed: the kept build log
	Err     error  // Failed
	// Waiting: the lock file another process holds, and that process when it could be
	// told (see Holder); nil is "another process".
	LockPath string
	Holder   *Holder
}

// String is the plain progress line Builder.Log receives.
func (e Event) String() string {
	key := e.Key
	if len(key) > 12 {
		key = key[:12]
	}
	switch e.State {
	case Queued:
		return fmt.Sprintf("build %s: queued", e.Label)
	case Waiting:
		return fmt.Sprintf("build %s: waiting for another build of %s, %s", e.Label, key, e.HeldBy())
	case Materializing:
		return fmt.Sprintf("build %s: building (%s)", e.Label, key)
	case Running:
		return fmt.Sprintf("build %s: step %d/%d: %s", e.Label, e.Step, e.Steps, e.Command)
	case Cached:
		return fmt.Sprintf("build %s: cached (%s)", e.Label, key)
	case Built:
		return fmt.Sprintf("build %s: ok in %s", e.Label, e.Elapsed.Round(time.Millisecond))
	case Failed:
		return fmt.Sprintf("build %s: failed after %s, log: %s", e.Label, e.Elapsed.Round(time.Millisecond), e.LogPath)
	}
	return fmt.Sprintf("build %s: %s", e.Label, e.State)
}

// HeldBy names what a Waiting build waits for: "held by pid 4242 (skewtest run --repo
// /tmp/r) since 19:40:02; lock <path>", or "held by another process; lock <path>" when
// the holder could not be told.
func (e Event) HeldBy() string {
	who := "another process"
	if e.Holder != nil {
		who = e.Holder.String()
	}
	return fmt.Sprintf("held by %s; lock %s", who, e.LockPath)
}
