package harness_test

import (
	"compress/gzip"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/internal/testkit/proctest"
	"github.com/skewtest/skewtest/results"
)

func fakeContract(span bool) *contract.Contract {
	frames := `{"opcode":1,"name":"Output","direction":"H>C"},{"opcode":2,"name":"SnapshotStart","direction":"H>C"},
	  {"opcode":3,"name":"SnapshotChunk","direction":"H>C"},{"opcode":4,"name":"SnapshotEnd","direction":"H>C"},
	  {"opcode":7,"name":"Input","direction":"C>H"},{"opcode":9,"name":"Subscribe","direction":"C>H"},
	  {"opcode":10,"name":"Unsubscribe","direction":"C>H"},
	  {"type":"ready","name":"ready","direction":"H>C"},{"type":"subscribed","name":"subscribed","direction":"H>C"}`
	if span {
		frames += `,{"opcode":15,"name":"OutputSpan","direction":"H>C"}`
	}
	return parseFake(frames, "")
}

// answeringContract is fakeContract with a reply to Subscribe: subscribeDone, which the fake
// host sends in mode slow-reply, carries the Subscribe's /streamId, and a correlation
// invariant ties them, with answered (once, or "").
func answeringContract(answered string) *contract.Contract {
	frames := `{"opcode":1,"name":"Output","direction":"H>C"},{"opcode":2,"name":"SnapshotStart","direction":"H>C"},
	  {"opcode":3,"name":"SnapshotChunk","direction":"H>C"},{"opcode":4,"name":"SnapshotEnd","direction":"H>C"},
	  {"opcode":7,"name":"Input","direction":"C>H"},{"opcode":9,"name":"Subscribe","direction":"C>H","payload":"json"},
	  {"opcode":10,"name":"Unsubscribe","direction":"C>H"},
	  {"type":"ready","name":"ready","direction":"H>C"},{"type":"subscribed","name":"subscribed","direction":"H>C"},
	  {"type":"subscribeDone","name":"subscribeDone","direction":"H>C"}`
	return parseFake(frames, `"invariants":[{"kind":"correlation","request":["Subscribe"],"reply":["subscribeDone"],
	  "pointer":"/streamId","answered":"`+answered+`"}],`)
}

// parseFake parses the fake driver's contract with frames (and, before them, more of the
// channel: invariants).
func parseFake(frames, channel string) *contract.Contract {
	c, err := contract.Parse("fake", []byte(`{"contractVersion":2,"channels":[{"name":"terminal","paths":["/terminal.multiplex"],
	  "binary":{"header":{"length":16,"fields":[{"name":"magic","offset":0,"encoding":"u8","value":116},
	    {"name":"type","offset":2,"encoding":"u8"},{"name":"stream","offset":4,"encoding":"u32le"},
	    {"name":"seq","offset":8,"encoding":"u32le-hi-lo"}]}},
	  "text":{"json":{"discriminator":"type"}},
	  "negotiation":[{"observation":"subscribed","pointer":"/capabilities"}],`+channel+`
	  "frames":[`+frames+`]}],
	  "streams":[
	    {"name":"input","sent":{"role":"client","actions":["input"]},"delivered":{"role":"host","observations":["input"]},"compare":"bytes"},
	    {"name":"screen","sent":{"role":"host","observations":["pty-output"]},
	     "delivered":{"role":"client","observations":["rendered-output","rendered-snapshot"],"pointer":"/screen"},"compare":"cumulative"},
	    {"name":"snapshots","sent":{"role":"host","observations":["snapshot-sent"]},"delivered":{"role":"client","observations":["rendered-snapshot"]},"compare":"each"}]}`))
	Expect(err).NotTo(HaveOccurred())
	return c
}

const fakeJourney = `# fake: the harness specs' journey
kind desktop
timeout 5s
-- script --
step subscribe
client subscribe
await client rendered-snapshot
step input
client input text="hi\r"
await host input text="hi\r"
step output
host emit-output text="out\r\n"
await client screen text="out\r\n"
step unsubscribe
client unsubscribe
await frame C>H Unsubscribe
-- frames --
H>C ready
C>H Subscribe
H>C subscribed
H>C SnapshotStart
H>C SnapshotChunk
H>C SnapshotEnd
C>H Input
H>C Output
C>H Unsubscribe
`

// driverDecoded is fakeContract with its binary frames named by the receiving driver.
func driverDecoded(span bool) *contract.Contract {
	c := fakeContract(span)
	c.Channels[0].Binary = &contract.Codec{Driver: true}
	return c
}

func build(label, mode string, span bool) *harness.Build {
	return &harness.Build{Label: label, Revision: label, Dir: filepath.Dir(fakeDriver),
		Host:     []string{fakeDriver, mode},
		Clients:  map[string][]string{"desktop": {fakeDriver, mode}},
		Contract: fakeContract(span)}
}

// pidDir collects every pid the fake drivers start; alive lists those still running.
// pidDir marks every process the fake drivers start (they inherit the environment, through
// their guardians, into any PID namespace); alive lists those still running.
func pidDir() string {
	marker := proctest.Marker()
	name, value, _ := strings.Cut(marker, "=")
	GinkgoT().Setenv(name, value)
	return marker
}

func alive(marker string) []int {
	var out []int
	for _, p := range proctest.Find(marker) {
		if p.PID != os.Getpid() {
			out = append(out, p.PID)
		}
	}
	return out
}

func kinds(p *results.Pairing) []results.Kind {
	var out []results.Kind
	for _, f := range p.Findings {
		out = append(out, f.Kind)
	}
	return out
}

var _ = Describe("Run", func() {
	var j *journeys.Journey
	var pids string
	BeforeEach(func() {
		var err error
		j, err = journeys.Parse("fake.txtar", []byte(fakeJourney))
		Expect(err).NotTo(HaveOccurred())
		pids = pidDir()
	})
	AfterEach(func() {
		// SIGKILL is asynchronous: a killed grandchild takes a moment to become a zombie.
		Eventually(func() []int { return alive(pids) }).WithTimeout(3*time.Second).Should(BeEmpty(), "no process may outlive its pairing")
	})

	run := func(ctx context.Context, host, client *harness.Build, opts harness.Options) *results.Pairing {
		if opts.Dir == "" {
			opts.Dir = GinkgoT().TempDir()
		}
		p, _ := harness.Run(ctx, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: j}, opts)
		return p
	}

	It("passes a compatible pairing and keeps its transcript", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		p := run(ctx, build("a", "ok", false), build("b", "ok", false), harness.Options{Dir: dir, Repro: "skewtest repro x"})
		Expect(p.Findings).To(BeEmpty())
		Expect(p.Status).To(Equal(results.StatusPass))
		Expect(p.CompletedSteps).To(Equal([]string{"subscribe", "input", "output", "unsubscribe"}))
		Expect(p.StepsTotal).To(Equal(4))
		Expect(p.Repro).To(Equal("skewtest repro x"))
		// The journey's frames; what crosses while the pairing is torn down depends on which
		// side notices the end first (a host may answer the tap's going-away close).
		// Each direction in its order (the two directions interleave as they happen to).
		journeyFrames := map[string][]string{}
		for _, e := range p.Timeline {
			if e.Step != transcript.TeardownStep {
				journeyFrames[e.Dir] = append(journeyFrames[e.Dir], e.Name)
			}
		}
		Expect(journeyFrames).To(Equal(map[string][]string{
			"H>C": {"ready", "subscribed", "SnapshotStart", "SnapshotChunk", "SnapshotEnd", "Output"},
			"C>H": {"Subscribe", "Input", "Unsubscribe"}}))
		f, err := os.Open(filepath.Join(dir, "transcript.json.gz"))
		Expect(err).NotTo(HaveOccurred())
		defer f.Close()
		zr, err := gzip.NewReader(f)
		Expect(err).NotTo(HaveOccurred())
		var t transcript.Transcript
		Expect(json.NewDecoder(zr).Decode(&t)).To(Succeed())
		Expect(t.Frames).To(HaveLen(len(p.Frames)))
		Expect(t.Observed(transcript.Host, "input")).NotTo(BeEmpty())
		Expect(filepath.Join(dir, "host.log")).To(BeAnExistingFile())
		Expect(filepath.Join(dir, "client-desktop.log")).To(BeAnExistingFile())
	}, NodeTimeout(60*time.Second))

	It("leaves nothing of a passing pairing with DiscardPassing, and keeps a failing one's transcript", func(ctx SpecContext) {
		dir := filepath.Join(GinkgoT().TempDir(), "pairing")
		p := run(ctx, build("a", "ok", false), build("b", "ok", false), harness.Options{Dir: dir, DiscardPassing: true})
		Expect(p.Status).To(Equal(results.StatusPass))
		Expect(p.Transcript).To(BeEmpty())
		Expect(p.Logs).To(BeEmpty())
		Expect(dir).NotTo(BeAnExistingFile())

		j.Steps[2].Commands = j.Steps[2].Commands[:1] // the barrier would stall: keep only the action
		p = run(ctx, build("a", "ok", false), build("b", "lose-output", false), harness.Options{Dir: dir, DiscardPassing: true})
		Expect(p.Status).To(Equal(results.StatusFail))
		Expect(filepath.Join(dir, p.Transcript)).To(BeAnExistingFile())
		Expect(filepath.Join(dir, "host.log")).To(BeAnExistingFile())
	}, NodeTimeout(60*time.Second))

	It("counts a frame that trails a step's last barrier in that step, once the exchange settled", func(ctx SpecContext) {
		// The host writes Output 300ms after the input barrier is met (not in the golden), while
		// the next step idles.
		j.Frames = nil
		j.Steps[2].Commands = append([]journeys.Command{{Line: 1, Verb: "idle", Args: []journeys.Arg{{Key: "for", Value: "1s"}}}}, j.Steps[2].Commands...)
		stepOfLate := func(settle time.Duration) string {
			p, t := harness.Run(ctx, harness.Pairing{Host: build("a", "trailing", false), Client: build("b", "ok", false), Kind: "desktop", Journey: j},
				harness.Options{Dir: GinkgoT().TempDir(), Settle: settle})
			Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
			for _, f := range t.Frames {
				if f.Dir == "H>C" && strings.Contains(string(f.Data), "late") {
					return f.Step
				}
			}
			return "(none)"
		}
		// A step waits for no frame to cross the tap for the settle period (here long enough
		// for the trailing frame, within the bound of a second)...
		Expect(stepOfLate(2 * time.Second)).To(Equal("input"))
		// ... and without settling it ends at its barrier: the frame lands in the next step.
		Expect(stepOfLate(-1)).To(Equal("output"))
	}, NodeTimeout(60*time.Second))

	It("keeps the quiet period only where a step's frames may still come late", func(ctx SpecContext) {
		// As above: the host writes Output 300ms after the input barrier is met, while the next
		// step idles; the settle period (2s, bounded by a second) would hold step input for it.
		j.Frames = nil
		j.Steps[2].Commands = append([]journeys.Command{{Line: 1, Verb: "idle", Args: []journeys.Arg{{Key: "for", Value: "1s"}}}}, j.Steps[2].Commands...)
		reference := func(label string) *transcript.Transcript {
			p, t := harness.Run(ctx, harness.Pairing{Host: build(label, "ok", false), Client: build(label, "ok", false), Kind: "desktop", Journey: j},
				harness.Options{Dir: GinkgoT().TempDir()})
			Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
			return t
		}
		hostRef, clientRef := reference("a"), reference("b")
		stepOfLate := func(refs bool) string {
			opts := harness.Options{Dir: GinkgoT().TempDir(), Settle: 2 * time.Second}
			if refs {
				opts.HostReference, opts.Reference = hostRef, clientRef
			}
			p, t := harness.Run(ctx, harness.Pairing{Host: build("a", "trailing", false), Client: build("b", "ok", false), Kind: "desktop", Journey: j}, opts)
			Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
			for _, f := range t.Frames {
				if f.Dir == "H>C" && strings.Contains(string(f.Data), "late") {
					return f.Step
				}
			}
			return "(none)"
		}
		// Every frame either build's reference shows in step input has arrived: the step is
		// over, and the trailing Output (which no reference shows there) lands in the next.
		Expect(stepOfLate(true)).To(Equal("output"))
		// Control: without references, what the step may carry is not known, and the quiet
		// period holds it.
		Expect(stepOfLate(false)).To(Equal("input"))
	}, NodeTimeout(60*time.Second))

	It("waits up to the barrier timeout for an answer every request is owed, and names a request never answered", func(ctx SpecContext) {
		// The fake host in mode slow-reply answers Subscribe 2.5s late (subscribeDone): after the
		// settle bound of a second and after the journey's other steps are done. An answer the
		// contract says every request gets is waited for, so it counts however busy the
		// machine is; one that never comes is a finding naming the request.
		j.Frames = nil
		pairing := func(mode, answered string) *results.Pairing {
			host, client := build("a", mode, false), build("b", "ok", false)
			host.Contract, client.Contract = answeringContract(answered), answeringContract(answered)
			p, _ := harness.Run(ctx, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: j}, harness.Options{Dir: GinkgoT().TempDir()})
			return p
		}
		late := pairing("slow-reply", "once")
		Expect(late.Status).To(Equal(results.StatusPass), "%v", late.Findings)

		never := pairing("ok", "once")
		Expect(never.Status).To(Equal(results.StatusFail))
		Expect(never.Findings).To(ConsistOf(SatisfyAll(HaveField("Kind", results.InvariantViolation), HaveField("Step", "subscribe"),
			HaveField("Direction", "C>H"), HaveField("Message", MatchRegexp(`^C>H Subscribe #\d+ was never answered: no reply \(subscribeDone\) carried its /streamId 1$`)))))

		// Control: without answered once, nothing is owed.
		Expect(pairing("ok", "").Status).To(Equal(results.StatusPass))
	}, NodeTimeout(60*time.Second))

	It("stops waiting for an owed answer once a frame of the step was refused, and waits the barrier timeout without one", func(ctx SpecContext) {
		// Every Subscribe is owed an answer (answered once) that no fake host in these modes
		// sends; in mode no-input-op the host also refuses the step's Input.
		jj, err := journeys.Parse("owed.txtar", []byte("kind desktop\n-- script --\nstep open\nclient subscribe\nclient input text=\"hi\\r\"\n"+
			"step bye\nclient unsubscribe\nawait frame C>H Unsubscribe\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(jj)).To(Succeed())
		var t *transcript.Transcript
		open := func(mode string, timeout time.Duration) *results.Pairing {
			host, client := build("a", mode, false), build("b", "ok", false)
			host.Contract, client.Contract = answeringContract("once"), answeringContract("once")
			var p *results.Pairing
			p, t = harness.Run(ctx, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: jj},
				harness.Options{Dir: GinkgoT().TempDir(), Timeout: timeout})
			Expect(p.Steps).NotTo(BeEmpty())
			return p
		}
		// The refusal fails the pairing and explains the missing answer: step open gives up on
		// it once nothing happened for an eighth of the quiet period, not after the 10 minutes
		// (the spec's own timeout would end it first).
		refused := open("no-input-op", 10*time.Minute)
		Expect(kinds(refused)).To(ContainElements(results.DecoderRefusal, results.InvariantViolation))
		Expect(refused.Steps[0].Duration).To(BeNumerically("<", 10*time.Minute))
		// Control: with no refusal the answer is waited for up to the barrier timeout, in the
		// step the Subscribe crossed the tap in (the client's action may return before its
		// frame is written: the Subscribe then lands in step bye, which waits for it).
		answered := open("ok", 3*time.Second)
		Expect(kinds(answered)).To(ConsistOf(results.InvariantViolation))
		i := slices.IndexFunc(t.Frames, func(f transcript.Frame) bool { return f.Dir == "C>H" })
		Expect(i).NotTo(BeNumerically("<", 0))
		k := slices.IndexFunc(answered.Steps, func(s results.Step) bool { return s.Name == t.Frames[i].Step })
		Expect(k).NotTo(BeNumerically("<", 0), "step %q", t.Frames[i].Step)
		Expect(answered.Steps[k].Duration).To(BeNumerically(">=", 3*time.Second))
	}, NodeTimeout(60*time.Second))

	It("ends each step but the last at once under settle none: what a step caused may cross in the next", func(ctx SpecContext) {
		// The fake host in mode slow-reply answers Subscribe 2.5s late (subscribeDone), and the
		// contract says every Subscribe is answered once: a step that settles waits for it.
		run := func(settle string) *transcript.Transcript {
			jj, err := journeys.Parse("settle.txtar", []byte("kind desktop\ntimeout 8s\n"+settle+"-- script --\nstep open\n"+
				"client subscribe\nawait client rendered-snapshot\nstep bye\nclient unsubscribe\nawait frame C>H Unsubscribe\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(jj)).To(Succeed())
			host, client := build("a", "slow-reply", false), build("b", "ok", false)
			host.Contract, client.Contract = answeringContract("once"), answeringContract("once")
			p, t := harness.Run(ctx, harness.Pairing{Host: host, Client: client, Kind: "desktop", Journey: jj}, harness.Options{Dir: GinkgoT().TempDir()})
			Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
			return t
		}
		arrivedIn := func(t *transcript.Transcript, text string) string {
			for _, f := range t.Frames {
				if strings.Contains(string(f.Data), text) {
					return f.Step
				}
			}
			return ""
		}
		// Control: the step that sent the Subscribe waits for its answer.
		Expect(arrivedIn(run(""), "subscribeDone")).To(Equal("open"))
		// settle none: step open ends once its barrier is met; the answer crosses in the last
		// step, which still settles.
		Expect(arrivedIn(run("settle none\n"), "subscribeDone")).To(Equal("bye"))
	}, NodeTimeout(60*time.Second))

	It("settles a step without references on the frames its journey's frames section gives it", func(ctx SpecContext) {
		// The tap makes every H>C frame 300ms late; the pairing has no references to learn
		// what step open owes from (as a reference pairing has none).
		run := func(frames string) *results.Pairing {
			jj, err := journeys.Parse("owes.txtar", []byte("kind desktop\ntimeout 5s\n-- script --\nstep open\ntap delay H>C 300ms\n"+
				"client subscribe\nstep bye\nclient unsubscribe\nawait frame C>H Unsubscribe\n"+frames))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(jj)).To(Succeed())
			p, _ := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("a", "ok", false), Kind: "desktop", Journey: jj},
				harness.Options{Dir: GinkgoT().TempDir()})
			Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
			return p
		}
		stepOf := func(p *results.Pairing, frame string) string {
			for _, e := range p.Timeline {
				if e.Name == frame {
					return e.Step
				}
			}
			return ""
		}
		owes := run("-- frames --\nstep open\nC>H Subscribe\nH>C ready\nH>C subscribed\nH>C SnapshotStart\nH>C SnapshotChunk\nH>C SnapshotEnd\nstep bye\nC>H Unsubscribe\n")
		Expect(stepOf(owes, "SnapshotEnd")).To(Equal("open"))
		// Control: a journey that says nothing of its frames leaves step open to its quiet
		// period, which the late snapshot does not hold up.
		Expect(stepOf(run(""), "SnapshotEnd")).NotTo(Equal("open"))
	}, NodeTimeout(60*time.Second))

	// passes runs a journey of the fake subscribe step followed by steps, and expects it to
	// pass; it returns the transcript.
	passes := func(ctx context.Context, steps string) *transcript.Transcript {
		GinkgoHelper()
		jj, err := journeys.Parse("tap.txtar", []byte("kind desktop\ntimeout 5s\n-- script --\nstep subscribe\nclient subscribe\n"+
			"await client rendered-snapshot\n"+steps))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(jj)).To(Succeed())
		p, t := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: jj},
			harness.Options{Dir: GinkgoT().TempDir()})
		Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
		return t
	}

	It("closes the connection with the code and reason a journey chooses (tap close)", func(ctx SpecContext) {
		t := passes(ctx, "step close\ntap close code=4001 reason=\"maintenance window\"\nawait client transport-closed\n")
		Expect(t.Conns).To(ContainElement(And(HaveField("Event", tap.EventCloseWith), HaveField("Detail", "4001 maintenance window"), HaveField("Step", "close"))))
		var closed []string
		for _, o := range t.Observations {
			if o.Role == transcript.Client && o.What == "transport-closed" {
				closed = append(closed, string(o.Data))
			}
		}
		Expect(closed).To(ConsistOf(And(ContainSubstring("4001"), ContainSubstring("maintenance window"))), "the client read the close frame")
	}, NodeTimeout(60*time.Second))

	It("holds a direction as a slow reader until the journey releases it (tap hold, tap release)", func(ctx SpecContext) {
		t := passes(ctx, "step held\ntap hold H>C\nhost emit-output text=\"slow\\r\\n\"\n"+
			"await host pty-output text=\"slow\\r\\n\"\nexpect client rendered-output none for=300ms\n"+
			"step released\ntap release H>C\nawait client screen text=\"slow\\r\\n\"\n")
		var output []string
		for _, f := range t.Frames {
			if f.Dir == "H>C" && strings.Contains(string(f.Data), "slow") {
				output = append(output, f.Step)
			}
		}
		Expect(output).To(Equal([]string{"released"}), "the held Output crossed the tap when the journey released it")
	}, NodeTimeout(60*time.Second))

	It("waits at the journey's end for what a declared stream still carries (tap delay)", func(ctx SpecContext) {
		// The last step has no barrier, and its Output is late by more than the settle
		// period: ended at once, the journey would call it lost (how late depends on how
		// busy the machine is, so the verdict would too).
		t := passes(ctx, "step late\ntap delay H>C 400ms jitter=100ms\nhost emit-output text=\"late\\r\\n\"\n")
		var late []string
		for _, f := range t.Frames {
			if f.Dir == "H>C" && strings.Contains(string(f.Data), "late") {
				late = append(late, f.Step)
			}
		}
		Expect(late).To(Equal([]string{"late"}), "the delayed Output arrived before the journey ended")
	}, NodeTimeout(60*time.Second))

	It("does not wait for an action's result while a direction is held, and collects it at the release", func(ctx SpecContext) {
		// wait-screen's result waits for the Output the tap holds: waited for at once, the
		// journey would hang until the action's timeout.
		t := passes(ctx, "step held\ntap hold H>C\nhost emit-output text=\"behind\\r\\n\"\nclient wait-screen text=\"behind\"\n"+
			"tap release H>C\nawait client screen text=\"behind\\r\\n\"\n")
		var waited []transcript.Action
		for _, a := range t.Actions {
			if a.Name == "wait-screen" {
				waited = append(waited, a)
			}
		}
		Expect(waited).To(ConsistOf(And(HaveField("OK", true), HaveField("Step", "held"))))
	}, NodeTimeout(60*time.Second))

	It("matches what a frame carries, and a frame with the wrong value fails the step that asks for it", func(ctx SpecContext) {
		awaits := func(where string) *results.Pairing {
			jj, err := journeys.Parse("where.txtar", []byte("kind desktop\ntimeout 2s\n-- script --\nstep subscribe\nclient subscribe\n"+
				"await frame C>H Subscribe where /streamId=1\nawait client rendered-snapshot\nstep check\n"+where+"\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(jj)).To(Succeed())
			p, _ := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: jj},
				harness.Options{Dir: GinkgoT().TempDir()})
			return p
		}
		// A JSON payload value (the Subscribe frame's), and a header field.
		ok := awaits("client input text=x\nawait frame C>H Input where stream=1 type=7")
		Expect(ok.Status).To(Equal(results.StatusPass), "%v", ok.Findings)

		bad := awaits("client input text=x\nawait frame C>H Input where stream=2")
		Expect(bad.Status).To(Equal(results.StatusFail))
		Expect(bad.Findings).To(ContainElement(SatisfyAll(HaveField("Kind", results.Stall), HaveField("Step", "check"),
			HaveField("Message", ContainSubstring(`await frame C>H Input where stream="2"`)),
			// The near miss: the Input that came, and the value that failed the where.
			HaveField("Detail", MatchRegexp(`near miss:\n  #\d+ C>H Input in step check: where failed: stream is "1" \(want "2"\)\n`)))))
	}, NodeTimeout(60*time.Second))

	It("shows a stalled observation barrier's near miss: the observations that came, and the fields that differ", func(ctx SpecContext) {
		awaits := func(line string) *results.Pairing {
			jj, err := journeys.Parse("near.txtar", []byte("kind desktop\ntimeout 2s\n-- script --\nstep subscribe\nclient subscribe\n"+line+"\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(harness.Validate(jj)).To(Succeed())
			p, _ := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: jj},
				harness.Options{Dir: GinkgoT().TempDir()})
			return p
		}
		bad := awaits("await client rendered-snapshot screen=nope")
		Expect(bad.Findings).To(ContainElement(SatisfyAll(HaveField("Kind", results.Stall),
			HaveField("Detail", MatchRegexp(`near miss:\n  client rendered-snapshot in step subscribe: screen is ".*" \(want "nope"\)\n`)))))
		// An observation nobody made: the near miss says so.
		none := awaits("await client no-such-thing")
		Expect(none.Findings).To(ContainElement(SatisfyAll(HaveField("Kind", results.Stall),
			HaveField("Detail", ContainSubstring("near miss:\n  the client driver reported no no-such-thing after the step began")))))
		// Negative control: the barrier met, no stall.
		Expect(awaits("await client rendered-snapshot").Status).To(Equal(results.StatusPass))
	}, NodeTimeout(60*time.Second))

	It("fails at the right step when the host's decoder lacks an opcode", func(ctx SpecContext) {
		p := run(ctx, build("a", "no-input-op", false), build("b", "ok", false), harness.Options{Timeout: 2 * time.Second})
		Expect(p.Status).To(Equal(results.StatusFail))
		Expect(kinds(p)).To(ContainElements(results.Stall, results.IncompleteJourney, results.DecoderRefusal, results.DataLoss))
		for _, f := range p.Findings {
			switch f.Kind {
			case results.Stall:
				Expect(f.Step).To(Equal("input"))
				Expect(f.Message).To(ContainSubstring(`await host input text="hi\r" not reached within 2s`))
				Expect(f.Detail).To(ContainSubstring("C>H Input (step input)"))
			case results.DecoderRefusal:
				Expect(f.Direction).To(Equal("C>H"))
				Expect(f.Frame.Opcode).To(Equal(7))
				Expect(f.Step).To(Equal("input"))
			}
		}
		Expect(p.CompletedSteps).To(Equal([]string{"subscribe"}))
	}, NodeTimeout(60*time.Second))

	It("gives up a barrier early when both drivers and the wire went quiet (a fast stall)", func(ctx SpecContext) {
		jj, err := journeys.Parse("quiet.txtar", []byte("kind desktop\n-- script --\nstep subscribe\nclient subscribe\nawait client rendered-snapshot\n"+
			"step output\nhost emit-output text=\"out\\r\\n\"\nawait client no-such-thing\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(harness.Validate(jj)).To(Succeed())
		p, _ := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: jj},
			harness.Options{Dir: GinkgoT().TempDir(), Timeout: time.Minute, Quiet: 300 * time.Millisecond})
		Expect(kinds(p)).To(ConsistOf(results.Stall, results.IncompleteJourney))
		f := p.Findings[slicesIndex(kinds(p), results.Stall)]
		Expect(f.Step).To(Equal("output"))
		Expect(f.Message).To(Equal(`await client no-such-thing not reached: both drivers and the wire were quiet for 300ms (given up before the 1m0s timeout)`))
		Expect(f.Detail).To(ContainSubstring("H>C Output (step output)"), "the same evidence as a timed-out stall")
	}, NodeTimeout(60*time.Second))

	It("gives up a barrier sooner once a frame of its step was refused: the pairing fails on the refusal whatever comes", func(ctx SpecContext) {
		// The host's decoder lacks the Input opcode: the awaited input never arrives, and
		// the refusal says why. An eighth of the quiet period is waited, not all of it.
		p := run(ctx, build("a", "no-input-op", false), build("b", "ok", false),
			harness.Options{Timeout: time.Minute, Quiet: 4 * time.Second})
		Expect(p.Status).To(Equal(results.StatusFail))
		Expect(kinds(p)).To(ContainElements(results.Stall, results.DecoderRefusal))
		f := p.Findings[slicesIndex(kinds(p), results.Stall)]
		Expect(f.Step).To(Equal("input"))
		Expect(f.Message).To(ContainSubstring(`await host input text="hi\r" not reached: both drivers and the wire were quiet for 500ms after a frame of the step was refused (given up before the 1m0s timeout)`))
		Expect(f.Detail).To(ContainSubstring("C>H Input (step input)"), "the same evidence as a timed-out stall")
		// The control: the same barrier with no refusal waits the whole quiet period (above).
	}, NodeTimeout(60*time.Second))

	It("reports what arrives while the journey expects nothing, and nothing when nothing does", func(ctx SpecContext) {
		// The output step's action makes the client render: asserting that it does not must fail.
		j.Steps[2].Commands = append(j.Steps[2].Commands[:1], journeys.Command{Line: 99, Verb: "expect",
			Args: []journeys.Arg{{Value: "client"}, {Value: "rendered-output"}, {Value: "none"}, {Key: "for", Value: "5s"}}})
		j.Steps[3].Commands = append([]journeys.Command{{Line: 100, Verb: "expect",
			Args: []journeys.Arg{{Value: "frame"}, {Value: "H>C"}, {Value: "Output"}, {Value: "none"}, {Key: "for", Value: "200ms"}}}},
			j.Steps[3].Commands...)
		Expect(harness.Validate(j)).To(Succeed())
		p := run(ctx, build("a", "ok", false), build("b", "ok", false), harness.Options{})
		Expect(kinds(p)).To(Equal([]results.Kind{results.UnexpectedEvent}))
		f := p.Findings[0]
		Expect(f.Step).To(Equal("output"))
		Expect(f.Message).To(Equal("fake.txtar:99: expected no client rendered-output for 5s, but it arrived"))
		Expect(f.Detail).To(HavePrefix("arrived: client rendered-output {"))
	}, NodeTimeout(60*time.Second))

	It("has the receiving driver name the frames of a driver-decoded channel, and reports what it refuses", func(ctx SpecContext) {
		ok := build("a", "ok", false)
		ok.Contract = driverDecoded(false)
		p := run(ctx, ok, build("b", "ok", false), harness.Options{})
		Expect(p.Findings).To(BeEmpty())
		Expect(p.Frames).To(ContainElements("C>H Subscribe", "H>C SnapshotStart", "C>H Input", "C>H Unsubscribe"))

		newer := build("new", "span", true)
		newer.Contract = driverDecoded(true)
		older := build("old", "ok", false)
		older.Contract = driverDecoded(false)
		p = run(ctx, newer, older, harness.Options{Timeout: 2 * time.Second})
		Expect(kinds(p)).To(ContainElement(results.DecoderRefusal))
		f := p.Findings[slicesIndex(kinds(p), results.DecoderRefusal)]
		Expect(f.Direction).To(Equal("H>C"))
		Expect(f.Step).To(Equal("output"))
		Expect(f.Message).To(ContainSubstring("the receiving driver's decoder refused it: unknown opcode 15"))
	}, NodeTimeout(60*time.Second))

	It("finds data loss when the client renders less than the process wrote", func(ctx SpecContext) {
		j.Steps[2].Commands = j.Steps[2].Commands[:1] // the barrier would stall: keep only the action
		p := run(ctx, build("a", "ok", false), build("b", "lose-output", false), harness.Options{})
		Expect(kinds(p)).To(ContainElement(results.DataLoss))
	}, NodeTimeout(60*time.Second))

	It("finds a decoder refusal when the host sends an opcode the client does not know", func(ctx SpecContext) {
		p := run(ctx, build("new", "span", true), build("old", "ok", false), harness.Options{Timeout: time.Second})
		Expect(kinds(p)).To(ContainElements(results.DecoderRefusal, results.SequenceDrift, results.Stall))
		f := p.Findings[slicesIndex(kinds(p), results.DecoderRefusal)]
		Expect(f.Direction).To(Equal("H>C"))
		Expect(f.Frame).To(Equal(&results.Frame{Opcode: 15, Name: "OutputSpan"}))
		Expect(f.Step).To(Equal("output"))
	}, NodeTimeout(60*time.Second))

	It("kills a driver that ignores stop, with its whole process group", func(ctx SpecContext) {
		p := run(ctx, build("a", "hang", false), build("b", "ok", false), harness.Options{StopGrace: 500 * time.Millisecond})
		Expect(kinds(p)).To(ContainElement(results.DriverError))
		Expect(p.Findings[slicesIndex(kinds(p), results.DriverError)].Message).To(ContainSubstring("host driver"))
	}, NodeTimeout(60*time.Second))

	It("reports a driver that crashes mid-journey and stops the other", func(ctx SpecContext) {
		p := run(ctx, build("a", "ok", false), build("b", "crash-input", false), harness.Options{})
		Expect(p.Status).To(Equal(results.StatusFail))
		Expect(kinds(p)).To(ContainElements(results.DriverError, results.IncompleteJourney))
		Expect(p.CompletedSteps).To(Equal([]string{"subscribe"}))
	}, NodeTimeout(60*time.Second))

	It("reports a driver that writes garbage", func(ctx SpecContext) {
		p := run(ctx, build("a", "garbage", false), build("b", "ok", false), harness.Options{})
		Expect(kinds(p)).To(ContainElement(results.DriverError))
		Expect(p.Findings[slicesIndex(kinds(p), results.DriverError)].Detail).To(Equal("this is not json"))
	}, NodeTimeout(60*time.Second))

	It("routes a driver that never gets ready as an error, not a finding", func(ctx SpecContext) {
		p := run(ctx, build("a", "no-ready", false), build("b", "ok", false), harness.Options{ReadyTimeout: time.Second})
		Expect(p.Status).To(Equal(results.StatusError))
		Expect(p.Error).To(ContainSubstring("never got ready"))
		Expect(p.Findings).To(BeEmpty())
	}, NodeTimeout(60*time.Second))

	It("does not wait again for a driver that did not get ready: the run's other pairings of its build and role are errors at once, saying why (R7, B15)", func(ctx SpecContext) {
		starts := GinkgoT().TempDir() // the fake drivers write a file per process they start
		GinkgoT().Setenv("FAKE_PIDDIR", starts)
		silent, ok := build("a", "no-ready", false), build("b", "ok", false)
		j2 := *j
		j2.Name = "fake2"
		// One at a time: a's reference fails first, then b's reference passes, then every
		// pairing with a's host.
		plan := harness.Number([]harness.Pairing{
			{Host: silent, Client: silent, Kind: "desktop", Journey: j},
			{Host: ok, Client: ok, Kind: "desktop", Journey: j},
			{Host: silent, Client: ok, Kind: "desktop", Journey: j},
			{Host: silent, Client: silent, Kind: "desktop", Journey: &j2},
		})
		execute := func() *results.Run {
			run := &results.Run{}
			harness.Execute(ctx, plan, run, harness.ExecuteOptions{ReportDir: GinkgoT().TempDir(), Parallel: 1,
				Pairing: harness.Options{ReadyTimeout: time.Second}})
			Expect(run.Pairings).To(HaveLen(4))
			return run
		}
		run := execute()
		first := run.Pairings[0]
		Expect(first.Status).To(Equal(results.StatusError))
		Expect(first.Error).To(ContainSubstring("host a driver never got ready: it said hello but never said ready within 1s"))
		Expect(run.Pairings[1].Status).To(Equal(results.StatusPass), "control: another build's pairings run as ever")
		for _, p := range run.Pairings[2:] {
			Expect(p.Status).To(Equal(results.StatusError), p.Label())
			Expect(p.Error).To(ContainSubstring("host a driver not started again: it did not get ready for pairing 001-a-desktop-a-fake of this run: "+
				"host a driver never got ready: it said hello but never said ready within 1s (the driver protocol's first lines; see its log host.log)"), p.Label())
		}
		Expect(run.ExitCode()).To(Equal(3))
		// a's host once, b's host and client for b's reference: a's host was not started for
		// the last two pairings (nor b's client for the third, which needs a's host first).
		Expect(started(starts)).To(HaveLen(3))

		// The record is the run's: another run starts the driver again.
		run = execute()
		Expect(run.Pairings[0].Error).To(ContainSubstring("host a driver never got ready"))
		Expect(started(starts)).To(HaveLen(6))
	}, NodeTimeout(60*time.Second))

	It("tears everything down when cancelled mid-journey (Ctrl-C)", func(ctx SpecContext) {
		cctx, cancel := context.WithCancel(ctx)
		files := GinkgoT().TempDir() // the fake drivers write a file per process they start
		GinkgoT().Setenv("FAKE_PIDDIR", files)
		// A barrier that is never reached: only the cancel ends this journey.
		j.Steps[1].Commands = append(j.Steps[1].Commands, journeys.Command{Verb: "await",
			Args: []journeys.Arg{{Value: "client"}, {Value: "never"}}})
		go func() {
			defer GinkgoRecover()
			// host, its grandchild and the client have started: cancel now.
			Eventually(func() []string { return started(files) }).WithTimeout(30 * time.Second).Should(HaveLen(3))
			cancel()
		}()
		p := run(cctx, build("a", "hang", false), build("b", "ok", false), harness.Options{StopGrace: 300 * time.Millisecond, Timeout: time.Minute})
		Expect(p.Status).To(Equal(results.StatusError))
		Expect(p.Error).To(ContainSubstring("context canceled"))
	}, NodeTimeout(60*time.Second))

	It("leaves nothing of a pairing its context's deadline cut, with DiscardCut; keeps its transcript without (negative control)", func(ctx SpecContext) {
		// A barrier that is never reached: only the deadline ends this journey.
		j.Steps[1].Commands = append(j.Steps[1].Commands, journeys.Command{Verb: "await",
			Args: []journeys.Arg{{Value: "client"}, {Value: "never"}}})
		for _, discard := range []bool{true, false} {
			// The deadline passes while the pairing runs (starting, or waiting at the barrier).
			dctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			dir := filepath.Join(GinkgoT().TempDir(), "pairing")
			p := run(dctx, build("a", "ok", false), build("b", "ok", false),
				harness.Options{Dir: dir, StopGrace: 300 * time.Millisecond, Timeout: time.Minute, DiscardCut: discard})
			cancel()
			Expect(p.Status).To(Equal(results.StatusError))
			Expect(p.Error).To(ContainSubstring("context deadline exceeded"))
			if discard {
				Expect(p.Transcript).To(BeEmpty())
				Expect(dir).NotTo(BeAnExistingFile(), "nothing written")
			} else {
				Expect(p.Transcript).NotTo(BeEmpty())
				Expect(filepath.Join(dir, p.Transcript)).To(BeAnExistingFile())
			}
		}
	}, NodeTimeout(90*time.Second))

	It("turns a panic into this pairing's error, with the stack in its directory, and stops its drivers", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		p := run(ctx, build("a", "ok", false), build("b", "ok", false), harness.Options{Dir: dir,
			Checks: func(*checks.Input) []results.Finding { panic("a check fell over") }})
		Expect(p.Status).To(Equal(results.StatusError))
		Expect(p.Error).To(Equal("skewtest panicked while testing this pairing: a check fell over (stack in panic.log)"))
		stack, err := os.ReadFile(filepath.Join(dir, "panic.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(string(stack)).To(ContainSubstring("harness_test"))
	}, NodeTimeout(60*time.Second))

	It("goes on with the other pairings after one panics, and keeps the panic as that pairing's error", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		a, b := build("a", "ok", false), build("b", "ok", false)
		// The first pairing checked panics (-j 1: that is the first of the plan), the rest pass.
		var calls atomic.Int32
		panicky := func(in *checks.Input) []results.Finding {
			if calls.Add(1) == 1 {
				panic("a decoder fell over")
			}
			return checks.Run(in)
		}
		plan := []harness.Pairing{{Host: a, Client: a, Kind: "desktop", Journey: j, Index: 1},
			{Host: b, Client: b, Kind: "desktop", Journey: j, Index: 2}}
		run := &results.Run{}
		harness.Execute(ctx, plan, run, harness.ExecuteOptions{ReportDir: dir, Parallel: 1,
			Pairing: harness.Options{Checks: panicky}})
		Expect(run.Pairings).To(HaveLen(2))
		Expect(run.Pairings[0].Status).To(Equal(results.StatusError))
		Expect(run.Pairings[0].Error).To(HavePrefix("skewtest panicked while testing this pairing: a decoder fell over"))
		Expect(run.Pairings[0].Logs).To(ContainElement(HaveSuffix("panic.log")))
		Expect(run.Pairings[1].Status).To(Equal(results.StatusPass), "the run goes on")
		Expect(calls.Load()).To(BeEquivalentTo(2))
		Expect(run.ExitCode()).To(Equal(3), "an error pairing: the harness broke, not the subject")
	}, NodeTimeout(60*time.Second))

	It("reruns a failing pairing and calls it flaky when the attempts disagree", func(ctx SpecContext) {
		GinkgoT().Setenv("FAKE_STATE", GinkgoT().TempDir())
		// Wait for the client to render, not for the screen to show it: losing output fails,
		// not stalls, and a passing attempt has surely rendered before the journey ends.
		j.Steps[2].Commands = append(j.Steps[2].Commands[:1], journeys.Command{Verb: "await",
			Args: []journeys.Arg{{Value: "client"}, {Value: "rendered-output"}}})
		dir := GinkgoT().TempDir()
		plan := []harness.Pairing{{Host: build("a", "ok", false), Client: build("b", "lose-once", false), Kind: "desktop", Journey: j, Index: 1}}
		run := &results.Run{}
		harness.Execute(ctx, plan, run, harness.ExecuteOptions{ReportDir: dir, Retries: 2})
		Expect(run.Pairings).To(HaveLen(1))
		p := run.Pairings[0]
		Expect(p.Status).To(Equal(results.StatusFlaky), "attempts %v, findings %v, error %s", p.Attempts, p.Findings, p.Error)
		Expect(p.Attempts[0]).To(Equal(results.StatusFail))
		Expect(p.Attempts).To(ContainElement(results.StatusPass), "a later attempt passed")
		Expect(p.Findings).NotTo(BeEmpty(), "the failing attempt's evidence is kept")
	}, NodeTimeout(60*time.Second))

	It("reports a failed build's pairings as errors", func(ctx SpecContext) {
		broken := &harness.Build{Label: "v9", Err: errors.New("exit status 1")}
		p := run(ctx, broken, build("b", "ok", false), harness.Options{})
		Expect(p.Status).To(Equal(results.StatusError))
		Expect(p.Error).To(Equal("build v9 failed: exit status 1"))
	})
})

func started(dir string) []string {
	entries, _ := os.ReadDir(dir)
	var out []string
	for _, e := range entries {
		out = append(out, e.Name())
	}
	return out
}

func slicesIndex(ks []results.Kind, k results.Kind) int {
	for i, x := range ks {
		if x == k {
			return i
		}
	}
	Fail(fmt.Sprintf("no %s finding in %v", k, ks))
	return -1
}
