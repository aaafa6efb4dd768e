package matrix

import (
	"bytes"
	"fmt"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
)

var _ = Describe("build progress", func() {
	events := []builds.Event{
		{Label: "worktree", Key: "aaaaaaaaaaaaaaaa", State: builds.Materializing},
		{Label: "v1.4.190", Key: "bbbbbbbbbbbbbbbb", State: builds.Cached},
		{Label: "worktree", Key: "aaaaaaaaaaaaaaaa", State: builds.Running, Step: 1, Steps: 2, Command: "go build ./cmd/driver"},
		{Label: "worktree", Key: "aaaaaaaaaaaaaaaa", State: builds.Running, Step: 2, Steps: 2, Command: "cp contract.json $SKEWTEST_OUT"},
		{Label: "worktree", Key: "aaaaaaaaaaaaaaaa", State: builds.Built, Elapsed: 1500 * time.Millisecond},
	}

	It("prints plain lines when the output is not a terminal, steps only with -v", func() {
		var out bytes.Buffer
		p := newBuildProgress(&out, false)
		for _, e := range events {
			p.Event(e)
		}
		p.Close()
		Expect(out.String()).To(Equal("build worktree: building (aaaaaaaaaaaa)\n" +
			"build v1.4.190: cached (bbbbbbbbbbbb)\n" +
			"build worktree: ok in 1.5s\n"))

		out.Reset()
		p = newBuildProgress(&out, true)
		for _, e := range events {
			p.Event(e)
		}
		p.Close()
		Expect(out.String()).To(ContainSubstring("build worktree: step 1/2: go build ./cmd/driver\n"))
	})

	It("redraws one live line per build on a terminal and prints text above them", func() {
		var out bytes.Buffer
		p := startProgress(&out, true, false, func() int { return 60 }, 0)
		p.Event(events[0])
		p.Event(events[1])
		p.Event(events[2])
		fmt.Fprintf(p, "build v1.4.180: failed\n    undefined: Frobnicate\n")
		p.Event(events[4])
		p.Close()

		screen := render(out.String())
		Expect(screen).To(HaveLen(4))
		Expect(screen[0]).To(Equal("build v1.4.180: failed"))
		Expect(screen[1]).To(Equal("    undefined: Frobnicate"))
		Expect(screen[2]).To(MatchRegexp(`^  ✓ worktree \s+1\.5s  built$`))
		Expect(screen[3]).To(MatchRegexp(`^  · v1\.4\.190\s+cached$`))
		Expect(out.String()).To(ContainSubstring("step 1/2 go build"), "the step was shown while it ran")
		for _, l := range strings.Split(out.String(), "\n") {
			Expect(len([]rune(stripANSI(l)))).To(BeNumerically("<", 60), "lines fit the terminal: %q", l)
		}
	})
})

// render replays the cursor-up and erase-below sequences the live display uses and
// returns the lines left on screen.
func render(s string) []string {
	var screen []string
	for len(s) > 0 {
		if strings.HasPrefix(s, "\x1b[") {
			end := strings.IndexAny(s, "AJ")
			if s[end] == 'A' {
				var n int
				fmt.Sscanf(s[2:end], "%d", &n)
				screen = screen[:len(screen)-n]
			}
			s = s[end+1:]
			continue
		}
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			break
		}
		screen = append(screen, s[:i])
		s = s[i+1:]
	}
	return screen
}

func stripANSI(s string) string {
	for {
		i := strings.Index(s, "\x1b[")
		if i < 0 {
			return s
		}
		j := strings.IndexAny(s[i:], "AJ")
		s = s[:i] + s[i+j+1:]
	}
}
