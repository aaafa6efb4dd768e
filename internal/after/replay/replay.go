// Package replay asks builds' decoders about a saved report's traffic (package decoders):
// each transcript's frames, one direction at a time, go to another build's driver through its
// decode action, with no peer process and no tap. It answers "would build X decode
// everything build Y sent in that journey?" for every build of the pin rules and every
// recorded transcript: a decoder matrix over all builds × recorded traffic.
//
// It is a question about decoders, not a verdict on a pairing: a frame a host sends only
// once a capability is negotiated may be refused by an older decoder that would never be
// sent it. A refusal here says the decoder cannot read the frame; whether the pairing ever
// sends it is the run's to say. A cell whose two builds are outside each other's protocol
// window, by their contracts as the run reads them, is not judged when its journey meets
// the window on purpose (the saved run has an expected refusal of that journey and client
// kind): such peers meet only to refuse each other there, as the run's own checks take it,
// so a decoder of one refusing the other's frames is what the field does.
package replay

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"time"

	"github.com/skewtest/skewtest/internal/after/decoders"
	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/build/version"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// Config is one replay.
type Config struct {
	// Saved is the report directory whose transcripts are replayed.
	Saved string
	// Repo is the subject's repository (default: the one the saved results.json names);
	// ReportDir receives the replay's reports; CacheDir is the build cache.
	Repo, ReportDir, CacheDir string
	// Pins are the pin rules of the builds to replay into, with the working tree (the
	// subject's skewtest.yaml fills what they leave, as for run).
	Pins pins.Options
	// Runner makes where recipes run (matrix.Config.Runner).
	Runner func(ctx context.Context, log io.Writer) (builds.Runner, func(), error)
	// Parallel is how many cells are asked at once (default: harness.DefaultParallel).
	Parallel int
	// Stdout gets the matrix and the totals; Stderr progress. Nil discards.
	Stdout, Stderr io.Writer
}

// Run builds the working tree and the pins, replays every saved transcript into each of
// them, and writes the reports: one cell (a results pairing with Replay set) per transcript,
// direction and receiving build, failing with a decoder-refusal finding per frame the
// receiving decoder refused and a field-mismatch finding per field it reads differently
// from the build that received it when it was recorded.
func Run(ctx context.Context, c Config) (*results.Run, error) {
	if c.Stdout == nil {
		c.Stdout = io.Discard
	}
	if c.Stderr == nil {
		c.Stderr = io.Discard
	}
	dir, err := reports.OpenSaved(c.Saved)
	if err != nil {
		return nil, err
	}
	saved := dir.Run
	if c.Repo == "" {
		c.Repo = saved.Repo
	}
	if c.ReportDir == "" {
		c.ReportDir = filepath.Join(c.Saved, "replay")
	}
	run := &results.Run{SchemaVersion: results.SchemaVersion, Tool: "skewtest", ToolVersion: version.String(), Repo: c.Repo, Seed: saved.Seed, Started: time.Now()}
	mc := matrix.Config{Repo: c.Repo, ReportDir: c.ReportDir, CacheDir: c.CacheDir, Pins: c.Pins, Runner: c.Runner,
		Stdout: c.Stdout, Stderr: c.Stderr, Command: []string{"replay"}, Seed: saved.Seed}
	if err := mc.Defaults(); err != nil {
		return nil, err
	}
	release, err := matrix.ClaimReportDir(c.ReportDir, mc.Command)
	if err != nil {
		return nil, err
	}
	defer release()
	// The run's certificate authority, made if a build serves TLS (its decode drivers start
	// with its files): removed when Run returns, after they have stopped.
	ca := harness.NewCA()
	defer ca.Close()
	built, _, err := matrix.Prepare(ctx, &mc, run, ca)
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(c.ReportDir, reports.DriversDir), 0o755); err != nil {
		return nil, err
	}
	// Which builds refuse each other: outside each other's protocol window by their
	// contracts, on a journey and kind the saved run saw end in an expected refusal.
	w := window{contracts: map[string]*contract.Contract{}, journeys: map[string]bool{}}
	for _, b := range built {
		w.contracts[b.Label] = b.Contract
	}
	for _, p := range saved.Pairings {
		if p.Status == results.StatusExpectedRefusal {
			w.journeys[p.Journey+"\x00"+p.ClientKind] = true
		}
	}
	k := &decoders.Asker{LogDir: filepath.Join(c.ReportDir, reports.DriversDir), Parallel: c.Parallel}
	defer k.Stop(ctx)
	for _, p := range saved.Pairings {
		if p.Future || p.Transcript == "" {
			continue
		}
		t, err := dir.Transcript(p.Transcript)
		if err != nil {
			return nil, err
		}
		var cells []decoders.Cell
		for _, b := range built {
			cells = append(cells, decoders.Cells(decoders.RecordingOf(p, t), b)...)
		}
		run.Pairings = append(run.Pairings, replayAll(ctx, k, cells, w)...)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	run.Finished = time.Now()
	if err := reports.Write(c.ReportDir, run); err != nil {
		return nil, fmt.Errorf("write reports: %w", err)
	}
	summarize(c.Stdout, run)
	return run, nil
}

// replayAll asks the cells of one recording and judges each answer: a decoder-refusal
// finding per frame its decoder refused, and a field-mismatch finding per field it reads
// differently from the build that received the frame when it was recorded (when that build
// is among those replayed into). A cell whose builds refuse each other (w) is an expected
// refusal, not judged.
func replayAll(ctx context.Context, k *decoders.Asker, cells []decoders.Cell, w window) []*results.Pairing {
	answers := k.Ask(ctx, cells)
	recorders := map[string]decoders.Answer{}
	for _, a := range answers {
		if a.Err == nil && a.Into.Label == a.Recorder() {
			recorders[a.Dir] = a
		}
	}
	out := make([]*results.Pairing, len(answers))
	for i, a := range answers {
		host, client, recorded := a.Into.Label, a.From.Client, a.From.Host
		if a.Dir == contract.HostToClient {
			host, client, recorded = a.From.Host, a.Into.Label, a.From.Client
		}
		p := &results.Pairing{Host: host, Client: client, ClientKind: a.From.Kind, Journey: a.From.Journey, Duration: a.Duration,
			Replay: &results.Replay{From: a.From.From, Direction: a.Dir, Frames: len(a.Frames), Recorded: recorded}}
		out[i] = p
		if a.Err != nil {
			p.Status, p.Error = results.StatusError, a.Err.Error()
			continue
		}
		if w.refusing(host, client, a.From.Kind, a.From.Journey) {
			p.Status = results.StatusExpectedRefusal
			continue
		}
		p.Findings = a.Refusals()
		if r, ok := recorders[a.Dir]; ok && r.Into != a.Into {
			p.Findings = append(p.Findings, a.Mismatches(r)...)
		}
		p.Status = results.StatusPass
		if len(p.Findings) > 0 {
			p.Status = results.StatusFail
		}
	}
	return out
}

// window tells the cells whose builds refuse each other.
type window struct {
	contracts map[string]*contract.Contract // by build label
	journeys  map[string]bool               // journey and kind that met the window on purpose
}

// refusing reports whether a host and a client of a kind are outside each other's protocol
// window by their contracts (contract.Protocol.Overlaps, as the run's window check reads
// it) on a journey that meets the window on purpose. A build whose contract is unknown (not
// among those replayed into) is outside nothing.
func (w window) refusing(host, client, kind, journey string) bool {
	h, c := w.contracts[host], w.contracts[client]
	if h == nil || c == nil || !w.journeys[journey+"\x00"+kind] {
		return false
	}
	return !h.Protocol.Overlaps(c.Protocol.Client(kind))
}

// summarize writes a line per cell that refused something, and the totals.
func summarize(w io.Writer, run *results.Run) {
	refused, cells, outside := 0, len(run.Pairings), 0
	var lines []string
	for _, p := range run.Pairings {
		switch p.Status {
		case results.StatusExpectedRefusal:
			outside++
		case results.StatusFail:
			refused++
			lines = append(lines, fmt.Sprintf("%s: %s into %s: %s", p.Replay.From, p.Replay.Direction, p.Label(), results.Plural(len(p.Findings), "frame")+" refused"))
		case results.StatusError:
			lines = append(lines, fmt.Sprintf("%s: %s into %s: error: %s", p.Replay.From, p.Replay.Direction, p.Label(), p.Error))
		}
	}
	sort.Strings(lines)
	for _, l := range slices.Compact(lines) {
		fmt.Fprintln(w, l)
	}
	fmt.Fprintf(w, "replay: %s, %d with refusals", results.Plural(cells, "decoder cell"), refused)
	if outside > 0 {
		fmt.Fprintf(w, "; %d between builds outside each other's protocol window, not judged (such peers refuse each other)", outside)
	}
	fmt.Fprintln(w)
}
