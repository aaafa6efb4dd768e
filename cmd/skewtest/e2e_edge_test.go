package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/testkit/testlabels"
	"github.com/skewtest/skewtest/results"
)

// edgeControl is a negative control that only an edge input reaches: a switch of the
// working tree (REMOTETERM_FEATURES) that every journey of the reference subject misses and a
// hand-written edge journey finds.
type edgeControl struct {
	host, client, kind string
	features           string // REMOTETERM_FEATURES for the working tree
	journey            string // the edge journey's text
	want               results.Kind
	// or, when set, is the kind the same bug shows instead where timing decides which
	// (the machine's load): either one at step is the finding.
	or    results.Kind
	step  string
	check func(f results.Finding)
}

// The reference subject's journeys never write a multi-byte character across the chunk cap,
// megabytes to one stream, a reveal of more than 50 rows or progress events out of order: a
// bug that only such an input reaches passes every journey. Each switch below plants one
// (one per family of fuzz generators); each is shown to pass every journey, to be found by an
// edge journey written here, and that edge journey to pass without it.
var _ = Describe("edge-input negative controls on the reference subject", Ordered, Label(testlabels.E2E, testlabels.Slow), func() {
	var repo, cache string

	BeforeAll(func() {
		repo = referenceHistory()
		cache = sharedCache
	})

	// skewtest runs the CLI's repro on the reference subject's history and returns its exit
	// code, its output and its results.json.
	skewtest := func(ctx context.Context, args ...string) (int, string, *results.Run) {
		dir := GinkgoT().TempDir()
		var stdout, stderr bytes.Buffer
		args = append(args, "--repo", repo, "--cache-dir", cache, "--report-dir", dir, "--seed", "42")
		code := exitCode(dispatch(ctx, args, &stdout, &stderr), &stderr)
		GinkgoWriter.Printf("skewtest %s -> %d\n%s%s", strings.Join(args, " "), code, stdout.String(), stderr.String())
		data, err := os.ReadFile(filepath.Join(dir, "results.json"))
		if err != nil {
			return code, stdout.String() + stderr.String(), nil
		}
		var run results.Run
		Expect(json.Unmarshal(data, &run)).To(Succeed())
		return code, stdout.String() + stderr.String(), &run
	}

	skew := func(run *results.Run, c edgeControl) *results.Pairing {
		GinkgoHelper()
		for _, p := range run.Pairings {
			if p.Host == c.host && p.Client == c.client && p.ClientKind == c.kind {
				return p
			}
		}
		Fail(fmt.Sprintf("no pairing %s × %s %s", c.host, c.kind, c.client))
		return nil
	}

	DescribeTable("a switch every journey misses and an edge journey finds",
		func(ctx SpecContext, c edgeControl) {
			pair := []string{"repro", "--host", c.host, "--client", c.client}
			withSwitch := []string{"--env", "worktree:REMOTETERM_FEATURES=" + c.features}

			By("every journey of the subject passes with the switch on")
			code, out, run := skewtest(ctx, append(append([]string{}, pair...), withSwitch...)...)
			Expect(code).To(Equal(0), out)
			journeys := map[string]bool{}
			for _, p := range run.Pairings {
				Expect(p.Status).To(Equal(results.StatusPass), p.Label())
				journeys[p.Journey] = true
			}
			Expect(journeys).To(HaveLen(3), "terminal, terminal-mobile and session")

			By("the edge journey finds it")
			file := filepath.Join(GinkgoT().TempDir(), "edge.txtar")
			Expect(os.WriteFile(file, []byte(c.journey), 0o644)).To(Succeed())
			edge := append(append([]string{}, pair...), "--kind", c.kind, "--journey", file)
			code, out, run = skewtest(ctx, append(append([]string{}, edge...), withSwitch...)...)
			Expect(code).To(Equal(1), out)
			p := skew(run, c)
			Expect(p.Status).To(Equal(results.StatusFail))
			f, ok := findingAt(p, c.want, c.step)
			if !ok && c.or != "" {
				f, ok = findingAt(p, c.or, c.step)
			}
			Expect(ok).To(BeTrue(), "no %s finding at step %s in %v", c.want, c.step, p.Findings)
			if c.check != nil {
				c.check(f)
			}
			Expect(p.Repro).To(ContainSubstring("--journey " + file))

			By("the edge journey passes without the switch")
			code, out, run = skewtest(ctx, edge...)
			Expect(code).To(Equal(0), out)
			for _, p := range run.Pairings {
				Expect(p.Findings).To(BeEmpty(), p.Label())
			}
		},
		Entry("code points across the chunk cap: a host whose chunker loses the head of a code point across 48 KiB (data-loss, mobile)", edgeControl{
			host: "worktree", client: "v1.4.190", kind: "mobile", features: `{"chunkCutsCodePoints":true}`,
			journey: edgeCodePointJourney, want: results.DataLoss, step: "code-point-across-the-cap",
			check: func(f results.Finding) {
				Expect(f.Message).To(HavePrefix("stream screen: "))
			}}),
		Entry("long streams: a host whose ack ledger wraps past 1 MiB (stall, desktop)", edgeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", features: `{"ackLedgerWraps":true}`,
			journey: edgeLongStreamJourney, want: results.Stall, step: "long-stream",
			// Where the client's acks come late (a busy machine), the wrapped position is not
			// yet below the acknowledged one when the output passes 1 MiB: the host sends on
			// and refuses the acks that follow as excessive instead of parking the stream.
			or: results.DriverError,
		}),
		Entry("snapshot sizes: a host whose reveal keeps at most 50 rows (data-loss, desktop)", edgeControl{
			host: "worktree", client: "v1.4.190", kind: "desktop", features: `{"snapshotRowsCapped":true}`,
			journey: edgeSnapshotRowsJourney, want: results.DataLoss, step: "reveal-100-rows",
			check: func(f results.Finding) {
				Expect(f.Message).To(HavePrefix("stream snapshot-rows: "))
			}}),
		Entry("session event order: a client that merges progress events as they arrive (stall, session)", edgeControl{
			host: "v1.4.190", client: "worktree", kind: "session", features: `{"roundProgressArrivalOrder":true}`,
			journey: edgeProgressOrderJourney, want: results.Stall, step: "duplicated-progress",
			check: func(f results.Finding) {
				Expect(f.Message).To(ContainSubstring(`phase="composed"`))
			}}),
	)
})

// edgeCodePointJourney writes '€' (3 bytes) at offsets 49,150–49,152: across the chunk cap.
const edgeCodePointJourney = `# edge: a multi-byte character across the 48 KiB chunk cap.
kind mobile
timeout 10s

-- script --
step subscribe
client subscribe path=/terminal.subscribe terminal=t1 cols=120 rows=40
await client rendered-snapshot

step code-point-across-the-cap
host emit-output terminal=t1 text="a"*49150+"€"+"TAIL\r\n"
await client screen text="TAIL\r\n"
`

// edgeSnapshotRowsJourney asks for a reveal of 100 rows of a terminal that holds 200 lines.
const edgeSnapshotRowsJourney = `# edge: a reveal asks for more rows than any journey does.
kind desktop
timeout 10s

-- script --
step subscribe
client subscribe path=/terminal.multiplex terminal=t1 cols=120 rows=40
await client rendered-snapshot

step scroll
host emit-output terminal=t1 text="scrolled line\r\n"*200
await client screen text="scrolled line\r\n"*200

step reveal-100-rows
client request-snapshot terminal=t1 scrollbackRows=100
await client rendered-snapshot requested=true

# The reveal leaves the client with the rows it asked for; a resubscribe brings back the
# whole buffer (the screen stream compares the last screen with everything written).
step transport-drop
tap drop
await client transport-closed

step resubscribe
client resubscribe terminal=t1
await client rendered-snapshot

-- frames --
ignore C>H Ack
`

// edgeProgressOrderJourney sends a review's first progress event again after the last, and
// another review's events in reverse order: a client that merges by seq stays at composed.
const edgeProgressOrderJourney = `# edge: progress events duplicated and reordered.
kind session
timeout 10s

-- script --
step hello
client hello
await client session event=server-info

step duplicated-progress
host round-progress review=r1 events=[{"phase":"dispatched"},{"phase":"composed"},{"seq":1,"event":{"phase":"dispatched"}}]
await client session event=round-progress phase=composed count=2

step reordered-progress
host round-progress review=r2 events=[{"seq":2,"event":{"phase":"composed"}},{"seq":1,"event":{"phase":"dispatched"}}]
await client session event=round-progress phase=composed count=2
`

// edgeLongStreamJourney writes 1.25 MiB to one stream in one step: past 1 MiB, below the
// 2 MiB a ledger lets a host send ahead of its client's acks, so a correct host never parks
// the stream however slow the client, and a host whose ledger wraps at 1 MiB always does.
const edgeLongStreamJourney = `# edge: a long stream, 1.25 MiB to one terminal.
kind desktop
timeout 10s

-- script --
step subscribe
client subscribe path=/terminal.multiplex terminal=t1 cols=120 rows=40
await client rendered-snapshot

step long-stream
host emit-output terminal=t1 text="1"+"x"*262142+"\r\n"
host emit-output terminal=t1 text="2"+"x"*262142+"\r\n"
host emit-output terminal=t1 text="3"+"x"*262142+"\r\n"
host emit-output terminal=t1 text="4"+"x"*262142+"\r\n"
host emit-output terminal=t1 text="5"+"x"*262142+"\r\n"
host emit-output terminal=t1 text="END\r\n"
await client screen text="END\r\n"

-- frames --
ignore C>H Ack
`
