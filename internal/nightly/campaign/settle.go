package campaign

import (
	"context"
	"sync"
)

// settler confirms and shrinks a budgeted campaign's new findings (campaign.settle), one
// after another in the order they were found, on a goroutine of its own, while the streams
// go on running cases. A new finding's case is run again, replayed for a race's rate and
// shrunk, a run at a time, for up to an eighth of the budget, and in the stream that found
// it the cases waited for all of it (inputTruncated planted, 3 minutes: 16 heavy cases
// against 72, its other pairings' findings registered at 76 to 118 s against 32). A finding is
// registered when its case fails, so the cases after it that show it again are counted,
// not settled again. The settler holds the campaign's mutex as a stream does: while it
// runs its pairings (execute), the others run theirs. When the budget ends, what is still
// queued is cut as a finding cut while confirmed always was: kept as found (keepUnshrunk).
type settler struct {
	cond   *sync.Cond // on the campaign's mutex, which guards the fields below
	jobs   []func(context.Context) error
	closed bool
	err    error // the first job's error that was not the cut's
	done   chan struct{}
}

// startSettler starts a settler whose jobs run under ctx; stop stops the streams when a job
// fails (the harness broke). The caller holds mu.
func startSettler(ctx context.Context, mu *sync.Mutex, stop func()) *settler {
	st := &settler{cond: sync.NewCond(mu), done: make(chan struct{})}
	go st.run(ctx, stop)
	return st
}

func (st *settler) run(ctx context.Context, stop func()) {
	defer close(st.done)
	st.cond.L.Lock()
	defer st.cond.L.Unlock()
	for {
		for len(st.jobs) == 0 && !st.closed {
			st.cond.Wait()
		}
		if len(st.jobs) == 0 {
			return
		}
		job := st.jobs[0]
		st.jobs = st.jobs[1:]
		if err := job(ctx); err != nil && ctx.Err() == nil && st.err == nil {
			st.err = err
			stop()
		}
	}
}

// add queues a job. The caller holds the mutex.
func (st *settler) add(job func(context.Context) error) {
	st.jobs = append(st.jobs, job)
	st.cond.Signal()
}

// wait runs what is queued to its end (cut, if the jobs' context has ended) and returns the
// first error a job met. The caller holds the mutex, and holds it again when wait returns.
func (st *settler) wait() error {
	st.closed = true
	st.cond.Signal()
	st.cond.L.Unlock()
	<-st.done
	st.cond.L.Lock()
	return st.err
}
