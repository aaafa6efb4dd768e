package proctest

import (
	"runtime"
	"sync"
)

// Saturate keeps every core busy with a spinning goroutine each, until the returned stop
// is called: for specs that prove a verdict does not depend on how busy the machine is.
func Saturate() (stop func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	for range runtime.NumCPU() {
		wg.Go(func() {
			for n := 0; ; n++ {
				if n%1024 == 0 {
					select {
					case <-done:
						return
					default:
					}
				}
			}
		})
	}
	return func() { close(done); wg.Wait() }
}
