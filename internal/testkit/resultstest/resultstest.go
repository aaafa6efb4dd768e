// Package resultstest makes synthetic runs, deterministic from a seed, for the specs and
// benchmarks of the packages that read results (reports, merge-reports), the way
// net/http/httptest serves net/http's users. Nothing here runs a pairing.
package resultstest

import (
	"crypto/sha1"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// Group is one (journey, client kind) of the matrix.
type Group struct{ Journey, Kind string }

// Options shape a synthetic run. Zero values take the defaults.
type Options struct {
	// Builds is how many builds take part: "worktree" and releases v1.4.100, v1.4.101 …
	// (default 3).
	Builds int
	// Groups are the (journey, kind) pairs (default: terminal/desktop and
	// terminal-mobile/mobile).
	Groups []Group
	// Frames is about how many frames each pairing's timeline holds (default 24).
	Frames int
	// Seed fixes every choice (default 1).
	Seed int64
}

func (o *Options) defaults() {
	if o.Builds <= 0 {
		o.Builds = 3
	}
	if len(o.Groups) == 0 {
		o.Groups = []Group{{"feed", "desktop"}, {"feed-mobile", "mobile"}}
	}
	if o.Frames <= 0 {
		o.Frames = 24
	}
	if o.Seed == 0 {
		o.Seed = 1
	}
}

// Large is the matrix the HTML report is sized for: 15 builds, every build with every
// build, three groups: 675 pairings of about 100 frames each.
var Large = Options{Builds: 15, Frames: 100, Seed: 7, Groups: []Group{
	{"feed", "desktop"}, {"feed-mobile", "mobile"}, {"session", "desktop"}}}

var steps = []string{"connect", "subscribe", "snapshot", "live-output", "edit", "input", "resize", "unsubscribe"}

// frames per step: what each direction sends in it.
var stepFrames = map[string][]string{
	"connect":     {"C>H hello", "H>C serverInfo"},
	"subscribe":   {"C>H Subscribe", "H>C ready"},
	"snapshot":    {"H>C SnapshotStart", "H>C SnapshotChunk", "H>C SnapshotChunk", "H>C SnapshotEnd", "C>H Ack"},
	"live-output": {"H>C Output", "C>H Ack", "H>C Output", "H>C Metadata"},
	"edit":        {"H>C Delta", "C>H Ack"},
	"input":       {"C>H Input", "H>C Output", "C>H Ack"},
	"resize":      {"C>H Resize", "H>C Resized"},
	"unsubscribe": {"C>H Unsubscribe", "H>C close"},
}

// Label of the i-th build.
func Label(i int) string {
	if i == 0 {
		return "worktree"
	}
	return fmt.Sprintf("v1.4.%d", 99+i)
}

// Run makes a synthetic run of every build with every build, for every group: references
// pass, skew pairings mostly pass, some fail (decoder refusals, sequence drift with a diff,
// data loss, stalls), a few are errors, flaky, or expected refusals.
func Run(o Options) *results.Run {
	o.defaults()
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x5eed))
	start := time.Date(2025, 6, 1, 2, 0, 0, 0, time.UTC)
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", Seed: o.Seed,
		Repo: "/src/chatd", Started: start, Pairings: []*results.Pairing{}}
	for i := range o.Builds {
		b := results.Build{Label: Label(i), Revision: fmt.Sprintf("%x", sha1.Sum([]byte(Label(i)))), Status: "cached"}
		if i == 0 {
			b.Revision, b.Status = "worktree", "built"
		} else {
			b.Reason = "pinned: newest stable " + Label(i)
		}
		run.Builds = append(run.Builds, b)
	}
	index := 0
	for _, g := range o.Groups {
		for h := range o.Builds {
			for c := range o.Builds {
				index++
				run.Pairings = append(run.Pairings, pairing(rng, o, index, g, h, c))
			}
		}
	}
	var total time.Duration
	for _, p := range run.Pairings {
		total += p.Duration
	}
	run.Finished = start.Add(total)
	return run
}

func pairing(rng *rand.Rand, o Options, index int, g Group, h, c int) *results.Pairing {
	host, client := Label(h), Label(c)
	dir := fmt.Sprintf("pairings/%03d-%s-%s-%s-%s", index, host, g.Kind, client, g.Journey)
	p := &results.Pairing{Index: index, Host: host, Client: client, ClientKind: g.Kind, Journey: g.Journey,
		Status: results.StatusPass, StepsTotal: len(steps), CompletedSteps: []string{}, Findings: []results.Finding{},
		Repro: fmt.Sprintf("skewtest repro --repo /src/chatd --host %s --client %s --kind %s --journey %s --seed %d",
			host, client, g.Kind, g.Journey, o.Seed),
		Transcript: dir + "/transcript.json.gz",
		Logs:       []string{dir + "/host-" + host + ".log", dir + "/client-" + g.Kind + "-" + client + ".log"},
	}
	// What goes wrong: a reference always passes; skew pairings roll the dice.
	fate := "pass"
	if h != c {
		switch r := rng.IntN(100); {
		case r < 14:
			fate = "refusal"
		case r < 20:
			fate = "drift"
		case r < 24:
			fate = "stall"
		case r < 27:
			fate = "error"
		case r < 29:
			fate = "flaky"
		case r < 33:
			fate = "expected-refusal"
		}
	}
	if fate == "error" {
		p.Status = results.StatusError
		p.Error = fmt.Sprintf("the pairing could not be tested: client driver %s: not ready within 30s", client)
		p.Transcript, p.Logs = "", p.Logs[1:]
		p.Duration = 30 * time.Second
		return p
	}
	stopAt := len(steps)
	switch fate {
	case "refusal", "stall":
		stopAt = 4 // edit never completes
	case "expected-refusal":
		stopAt = 1
	}
	var at time.Duration
	perStep := max(1, o.Frames/len(steps))
	for si, name := range steps {
		if si > stopAt {
			break
		}
		stepStart := at
		sent := stepFrames[name]
		for k := 0; k < perStep; k++ {
			f := sent[k%len(sent)]
			dirn, fname, _ := strings.Cut(f, " ")
			at += time.Duration(50+rng.IntN(3000)) * time.Microsecond
			e := results.FrameEvent{Index: len(p.Timeline), Conn: 1, Dir: dirn, Name: fname,
				Step: name, Size: 16 + rng.IntN(4096), AtNs: int64(at), Control: fname == "close"}
			e.Payload, e.Fields = payload(e.Name, e.Size), fields(name, k, e.Name)
			if name == "snapshot" && k == perStep-1 && si < stopAt {
				e.Arrived = "live-output" // it arrived once the next step began
			}
			p.Timeline = append(p.Timeline, e)
			if rng.IntN(20) == 0 {
				at += time.Millisecond
				p.Timeline = append(p.Timeline, results.FrameEvent{Index: len(p.Timeline), Conn: 1, Dir: contract.ClientToHost, Name: "ping",
					Step: name, Size: 0, Payload: new(0), AtNs: int64(at), Control: true})
			}
		}
		done := si < stopAt
		if fate == "stall" && si == stopAt {
			at += 10 * time.Second
		}
		p.Steps = append(p.Steps, results.Step{Name: name, Done: done, Duration: at - stepStart})
		if done {
			p.CompletedSteps = append(p.CompletedSteps, name)
		}
	}
	p.Duration = at + 20*time.Millisecond
	for _, e := range p.Timeline {
		p.Frames = append(p.Frames, e.Dir+" "+e.Name)
	}
	lost := results.Finding{Kind: results.DataLoss, Step: "edit", Direction: contract.HostToClient,
		Message: "stream view: the last delivered value differs from everything sent (64 bytes sent, 47 delivered)",
		Detail:  "first difference at byte 47:\n  want …\"ss-version live output\\r\\ntransformed run\\r\\n\"\n  got  …\"ss-version live output\\r\\n\""}
	incomplete := results.Finding{Kind: results.IncompleteJourney, Step: "edit",
		Message: fmt.Sprintf("completed %d of %d steps; stopped at edit", stopAt, len(steps))}
	switch fate {
	case "refusal":
		p.Status = results.StatusFail
		p.Findings = append(p.Findings, results.Finding{Kind: results.DecoderRefusal, Step: "edit", Direction: contract.HostToClient,
			Frame:   &results.Frame{Opcode: 15, Name: "Delta"},
			Message: fmt.Sprintf("%s client %s refused H>C Delta (opcode 15): unknown opcode", g.Kind, client)},
			incomplete, lost)
	case "drift":
		p.Status = results.StatusFail
		p.Findings = append(p.Findings, results.Finding{Kind: results.SequenceDrift, Step: "snapshot",
			Message: "frame sequence differs from both builds' references from step snapshot",
			Detail: "H>C frames:\n  H>C ready  [subscribe]\n  H>C SnapshotStart  [snapshot]\n- H>C SnapshotChunk  [snapshot]\n" +
				"- H>C SnapshotChunk  [snapshot]\n+ H>C SnapshotChunk  [snapshot]\n  H>C SnapshotEnd  [snapshot]\n+ H>C Metadata  [snapshot]"})
	case "stall":
		p.Status = results.StatusFail
		p.Findings = append(p.Findings, results.Finding{Kind: results.Stall, Step: "edit",
			Message: "await client view text=\"edited message\\r\\n\" not reached within 10s",
			Detail:  "last frames seen:\n  #8 H>C Message (step live)\n  #9 H>C Delta (step edit)"},
			incomplete)
	case "flaky":
		p.Status = results.StatusFlaky
		p.Attempts = []results.Status{results.StatusFail, results.StatusPass, results.StatusPass}
		p.Findings = append(p.Findings, results.Finding{Kind: results.DataLoss, Step: "live-output", Direction: contract.HostToClient,
			Message: "attempt 1: stream view: the last delivered value differs from everything sent (1 attempt of 3)"})
	case "expected-refusal":
		p.Status = results.StatusExpectedRefusal
	}
	return p
}

// payload is a synthetic frame's payload size: a binary frame (a capitalised name) has a
// 16-byte header, a JSON frame is all payload, a close frame carries its code.
func payload(name string, size int) *int {
	switch {
	case name == "close":
		size = 2
	case name[0] >= 'A' && name[0] <= 'Z':
		size -= 16
	}
	return &size
}

// fields is a synthetic frame's fields, the same in every pairing for the same step, position
// and frame (as a journey's frames are), so the report interns them.
func fields(step string, k int, name string) string {
	switch {
	case name == "close":
		return ""
	case name[0] >= 'a' && name[0] <= 'z':
		return fmt.Sprintf(`{"type":%q,"value":{"type":%q,"id":%d,"step":%q}}`, name, name, k, step)
	case name == "Output" || name == "SnapshotChunk":
		return fmt.Sprintf(`{"opcode":%d,"stream":1,"seq":%d,"text":"%s output line %d\r\n"}`, len(name), 1000*k, step, k)
	}
	return fmt.Sprintf(`{"opcode":%d,"stream":1,"seq":%d,"value":{"step":%q,"k":%d}}`, len(name), 1000*k, step, k)
}

// Split divides run into n shards as skewtest run --shard k/n would: pairing i goes to
// shard (i-1) mod n + 1; each shard lists only the builds its pairings use, and has its
// own start and finish.
func Split(run *results.Run, n int) []*results.Run {
	out := make([]*results.Run, n)
	for k := range n {
		s := *run
		s.Shard = fmt.Sprintf("%d/%d", k+1, n)
		s.Pairings = []*results.Pairing{}
		s.Builds = nil
		s.Started = run.Started.Add(time.Duration(k) * time.Second)
		s.Finished = s.Started
		out[k] = &s
	}
	for _, p := range run.Pairings {
		s := out[(p.Index-1)%n]
		s.Pairings = append(s.Pairings, p)
		s.Finished = s.Finished.Add(p.Duration)
	}
	for _, s := range out {
		used := map[string]bool{}
		for _, p := range s.Pairings {
			used[p.Host], used[p.Client] = true, true
		}
		for _, b := range run.Builds {
			if used[b.Label] {
				s.Builds = append(s.Builds, b)
			}
		}
	}
	return out
}

// WriteArtifacts writes a stand-in for every file run's pairings name (transcripts and
// driver logs) under dir, so reports can link to them and merges can copy them.
func WriteArtifacts(dir string, run *results.Run) error {
	for _, p := range run.Pairings {
		files := append([]string(nil), p.Logs...)
		if p.Transcript != "" {
			files = append(files, p.Transcript)
		}
		for _, f := range files {
			path := filepath.Join(dir, filepath.FromSlash(f))
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				return err
			}
			if err := os.WriteFile(path, []byte(p.Label()+"\n"+f+"\n"), 0o644); err != nil {
				return err
			}
		}
	}
	return nil
}
