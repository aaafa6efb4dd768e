package harness

import (
	"encoding/json"
	"sync"
	"time"

	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// recorder is the one writer of a pairing's transcript. Drivers and the tap report to it
// from their goroutines; barriers wait on its change signal.
type recorder struct {
	mu       sync.Mutex
	t        *transcript.Transcript
	step     string
	teardown bool          // the journey ended: what arrives now belongs to no step
	changed  chan struct{} // closed and replaced on every change
	// active is when a driver or the tap last did something (a frame other than a control
	// frame, an observation, a driver message, a connection event): fast stalls measure
	// quiet from it.
	active time.Time
	open   int // connections open through the tap
	// lastFrame is when the tap last forwarded a frame other than a control frame: a step
	// settles once none has crossed for the settle period.
	lastFrame time.Time
	// others are further sources of activity: the shared processes the pairing has lanes in.
	others []func() time.Time
	// decoder, when set, is handed every frame its receiving driver must name.
	decoder *decoder
	// names, when set, names the transcript's frames as the journey did as they arrived,
	// catching up with the rest (called by the pairing's goroutine once the pairing ended).
	names func(t *transcript.Transcript) []checks.Named
	// streams is the journey's stream reader, for the checks (same goroutine, afterwards).
	streams *checks.StreamReader
	// shared lists the logs of the shared processes the pairing ran in lanes of (set by the
	// pairing's goroutine before it returns, read after).
	shared []string
}

func newRecorder(t *transcript.Transcript) *recorder {
	return &recorder{t: t, changed: make(chan struct{}), active: time.Now()}
}

// activity returns when a driver or the tap last did something, and how many connections
// are open. A shared process busy with other lanes counts as activity: this lane's work may
// wait behind theirs, so its quiet is no sign that nothing is left to meet its barrier.
func (r *recorder) activity() (time.Time, int) {
	r.mu.Lock()
	active, open, others := r.active, r.open, r.others
	r.mu.Unlock()
	for _, f := range others {
		if t := f(); t.After(active) {
			active = t
		}
	}
	return active, open
}

// alsoActive adds a source of activity that counts as this pairing's (a shared process's).
func (r *recorder) alsoActive(f func() time.Time) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.others = append(r.others, f)
}

// signal wakes every waiter. Callers hold mu.
func (r *recorder) signal() {
	close(r.changed)
	r.changed = make(chan struct{})
}

// view runs f on the transcript under the lock and returns the channel that is closed on
// the next change, so a waiter can check a condition and sleep without missing an update.
func (r *recorder) view(f func(t *transcript.Transcript)) <-chan struct{} {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r.t)
	return r.changed
}

func (r *recorder) update(f func(t *transcript.Transcript, step string)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	f(r.t, r.step)
	r.signal()
}

func (r *recorder) setStep(name string) {
	r.update(func(t *transcript.Transcript, _ string) {
		r.step = name
		t.Steps = append(t.Steps, transcript.Step{Name: name, Started: time.Now()})
	})
}

func (r *recorder) endStep(done bool) {
	r.update(func(t *transcript.Transcript, _ string) {
		s := &t.Steps[len(t.Steps)-1]
		s.Ended, s.Done = time.Now(), done
	})
}

// endJourney marks everything recorded from now on as teardown.
func (r *recorder) endJourney() {
	r.update(func(*transcript.Transcript, string) { r.teardown = true })
}

func (r *recorder) problem(role transcript.Role, msg, detail string) {
	r.update(func(t *transcript.Transcript, step string) {
		t.Problems = append(t.Problems, transcript.Problem{Role: role, Step: step, Message: msg, Detail: detail})
	})
}

// onMessage returns the driver callback for role.
func (r *recorder) onMessage(role transcript.Role) func(driver.Message) {
	return func(m driver.Message) {
		r.update(func(t *transcript.Transcript, step string) {
			r.active = time.Now()
			switch m.Type {
			case "observe":
				data := m.Data
				if len(data) == 0 {
					data = json.RawMessage("null")
				}
				o := transcript.Observation{Role: role, What: m.What, Data: data, At: m.At, Step: step, Teardown: r.teardown}
				if m.Decoded && len(m.Data) > 0 {
					o = o.WithValue(m.Value) // decoded with its line
				} else {
					o = o.Memoized()
				}
				t.Observations = append(t.Observations, o)
			case "hello":
				setHello(t, role, m)
			case "invalid":
				t.Problems = append(t.Problems, transcript.Problem{Role: role, Step: step,
					Message: "wrote a line that is not a driver protocol message", Detail: m.Line})
			}
		})
	}
}

// hello records what a driver announced: a lane's pairing gets its shared process's hello.
func (r *recorder) hello(role transcript.Role, m driver.Message) {
	r.update(func(t *transcript.Transcript, _ string) { setHello(t, role, m) })
}

func setHello(t *transcript.Transcript, role transcript.Role, m driver.Message) {
	if t.Hello == nil {
		t.Hello = map[transcript.Role]transcript.Hello{}
	}
	t.Hello[role] = transcript.Hello{Protocol: m.Protocol, Actions: m.Actions, Params: m.Params}
}

// Frame implements tap.Recorder.
func (r *recorder) Frame(f tap.Frame) {
	r.update(func(t *transcript.Transcript, step string) {
		if f.Control == "" { // keepalives are no progress
			r.active = time.Now()
			r.lastFrame = r.active
		}
		fr := transcript.FrameOf(f)
		fr.Index, fr.Step, fr.Teardown = len(t.Frames)+1, step, r.teardown
		t.Frames = append(t.Frames, fr)
		if r.decoder != nil && !r.teardown && r.decoder.needs(fr) {
			r.decoder.enqueue(fr)
		}
	})
}

// Conn implements tap.Recorder.
func (r *recorder) Conn(e tap.ConnEvent) {
	r.update(func(t *transcript.Transcript, step string) {
		r.active = time.Now()
		switch e.Event {
		case tap.EventOpen:
			r.open++
		case tap.EventClose:
			r.open--
		}
		ce := transcript.ConnEventOf(e)
		ce.Step = step
		t.Conns = append(t.Conns, ce)
	})
}
