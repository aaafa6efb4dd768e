package campaign

import (
	"context"
	"errors"
	"sync"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
)

var _ = Describe("the settler", func() {
	// execute is what a job does while its pairings run: it lets go of the mutex.
	execute := func(mu *sync.Mutex, until <-chan struct{}) {
		mu.Unlock()
		<-until
		mu.Lock()
	}

	It("settles findings one after another, in the order they were found, while the stream that found them goes on", func() {
		var mu sync.Mutex
		mu.Lock()
		st := startSettler(context.Background(), &mu, func() { Fail("no job failed") })
		var order []string
		running, release := make(chan struct{}), make(chan struct{})
		st.add(func(context.Context) error {
			order = append(order, "first")
			close(running)
			execute(&mu, release)
			return nil
		})
		st.add(func(context.Context) error { order = append(order, "second"); return nil })
		// The first job runs its pairings; the stream holds the mutex meanwhile and records.
		mu.Unlock()
		Eventually(running).Should(BeClosed())
		mu.Lock()
		order = append(order, "stream")
		close(release)
		Expect(st.wait()).To(Succeed())
		Expect(order).To(Equal([]string{"first", "stream", "second"}))
		mu.Unlock()
	})

	It("stops the streams on a job's error and returns it, but not on the cut's (negative control)", func() {
		var mu sync.Mutex
		mu.Lock()
		stopped := 0
		boom := errors.New("the harness broke")
		st := startSettler(context.Background(), &mu, func() { stopped++ })
		st.add(func(context.Context) error { return boom })
		st.add(func(context.Context) error { return nil })
		Expect(st.wait()).To(MatchError(boom))
		Expect(stopped).To(Equal(1))
		mu.Unlock()

		// Cut: every queued job still runs (and keeps its finding as found), with the ended
		// context, and what they return is the cut's, no error.
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		mu.Lock()
		st = startSettler(ctx, &mu, func() { stopped++ })
		ran := 0
		for range 3 {
			st.add(func(ctx context.Context) error { ran++; return ctx.Err() })
		}
		Expect(st.wait()).To(Succeed())
		Expect(ran).To(Equal(3))
		Expect(stopped).To(Equal(1))
		mu.Unlock()
	})
})
