package harness

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// DefaultTimeout is a step barrier's default timeout when neither the journey nor the
// options set one.
const DefaultTimeout = 10 * time.Second

// DefaultQuiet is how long nothing may happen (no frame, no observation, no connection
// event) while a barrier waits before the barrier is given up as a stall, long before its
// timeout: a pairing whose drivers both went quiet cannot meet it any more. Generous next to
// the milliseconds a step takes, so a busy machine does not turn a slow step into a stall.
const DefaultQuiet = 2 * time.Second

// DefaultSettle is how long no frame may cross the tap, once a step met its barriers and
// got the replies and frames it owes, before the step has settled and the next one starts,
// where the step's frames may still come late (a step that has every frame it may carry
// does not wait for it: see settleStep).
// A frame that arrives later than that is counted in the next step; the comparisons of
// steps tolerate it (see checks.Differential), so this only makes it rarer. A fuzz campaign,
// whose cases are hundreds of tiny steps, runs without it (see fuzz's campaign options).
const DefaultSettle = 50 * time.Millisecond

// DefaultSettleBound is the longest a step waits to settle: for the replies to its requests,
// for the frames both references send in it, and for the settle period. A step that does not
// settle by then goes on (what it lacks is the checks' business, not the settling's).
const DefaultSettleBound = time.Second

// DefaultReadyTimeout is how long a driver may take to say hello and ready.
const DefaultReadyTimeout = 30 * time.Second

// Pairing is one (host build, client build, client kind, journey).
type Pairing struct {
	Host    *Build
	Client  *Build
	Kind    string
	Journey *journeys.Journey
	// Index is the pairing's 1-based position in the whole plan (Number sets it), so a
	// shard's pairings keep the numbers a single run would give them.
	Index int
	// Helper marks a reference a shard runs only because its own pairings are checked
	// against it: another shard records it.
	Helper bool
}

// Number sets every pairing's Index to its position in plan.
func Number(plan []Pairing) []Pairing {
	for i := range plan {
		plan[i].Index = i + 1
	}
	return plan
}

// Label is the pairing's one human name, as every report prints it:
// "host v1.4.190 × desktop client v1.4.120 · terminal".
func (p Pairing) Label() string {
	return results.PairingLabel(p.Host.Label, p.Kind, p.Client.Label, p.Journey.Name)
}

// Options tune how pairings run.
type Options struct {
	// Dir is where the pairing's transcript and driver logs go.
	Dir string
	// Timeout overrides every barrier's timeout (the journey's own, or DefaultTimeout).
	Timeout time.Duration
	// Quiet overrides the fast-stall quiet period (the journey's own, or DefaultQuiet);
	// negative turns fast stalls off.
	Quiet time.Duration
	// Settle overrides how long no frame may cross the tap before a step has settled (the
	// journey's own, or DefaultSettle); negative turns the quiet period off: a step then ends
	// once it has the replies to its requests and what the references owe.
	Settle time.Duration
	// ReadyTimeout bounds driver start-up.
	ReadyTimeout time.Duration
	// StopGrace is how long a driver gets to stop politely before it is killed.
	StopGrace time.Duration
	// Repro is the one-line command that reruns this pairing.
	Repro string
	// Reference is the client build's own reference transcript for the same journey and
	// kind, for the published-field check; nil when it did not run.
	Reference *transcript.Transcript
	// HostReference is the host build's own reference transcript, for the differential
	// oracle; nil when it did not run.
	HostReference *transcript.Transcript
	// Older orders build labels (a is an older release than b); nil: no order is known.
	Older func(a, b string) bool
	// Support says what the working tree's support policy requires of a pairing of
	// these build labels; nil: no policy.
	Support func(host, client string) checks.Support
	// Checks turns the pairing into findings; nil means checks.Run (every check).
	Checks func(in *checks.Input) []results.Finding
	// Rewriter, when set, rewrites messages on their way through the wire tap (the
	// future-peer pass, RunFuture).
	Rewriter tap.Rewriter
	// DiscardPassing leaves nothing of a pairing that passes (or ends in an expected
	// refusal): no transcript, no logs, no directory; its result and in-memory transcript
	// are still returned. A fuzz campaign runs thousands of pairings and keeps the failures.
	DiscardPassing bool
	// DiscardCut leaves nothing of a pairing whose context's deadline passed while it ran
	// (an interruption keeps it as before): no transcript, no logs, no directory; its
	// result, an error, is still returned. A budgeted campaign counts such a pairing as not
	// run, and writing its transcript (megabytes of frames, encoded on a loaded machine)
	// kept a campaign past its deadline.
	DiscardCut bool
	// Pool, when set, runs the pairing in lanes of its shared driver processes where the
	// builds' drivers serve lanes (see Pool); nil: processes of the pairing's own.
	Pool *Pool
	// OnUsage, if not nil, is told of a mistake of the user's found only once drivers ran
	// (a journey action the working tree's driver does not announce): the run should stop
	// and report it as a configuration error. The pairing is an error either way.
	OnUsage func(error)

	// notReady is the run's record of drivers that did not get ready (Execute sets it; the
	// Pool's, when there is one): nil for a pairing run alone.
	notReady *notReady
}

func (o *Options) validate() error {
	if o.Dir == "" {
		return errors.New("harness: Options.Dir is required")
	}
	if o.ReadyTimeout <= 0 {
		o.ReadyTimeout = DefaultReadyTimeout
	}
	return nil
}

// errAbort stops a journey after a problem that is already recorded.
var errAbort = errors.New("journey aborted")

// errEnd stops a journey that ended early on purpose (end expected-refusal).
var errEnd = errors.New("journey ended")

// Run runs one pairing to completion and returns its result and transcript. It never
// returns with a process of the pairing still alive.
//
// A panic while running or checking the pairing (a bug in skewtest, or input nothing else
// caught) makes the pairing an error, with the stack in panic.log in its directory; the
// pairing's processes are stopped on the way out and every other pairing still runs.
func Run(ctx context.Context, p Pairing, opts Options) (res *results.Pairing, t *transcript.Transcript) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		stack := debug.Stack()
		res = &results.Pairing{Index: p.Index, Host: p.Host.Label, Client: p.Client.Label, ClientKind: p.Kind,
			Journey: p.Journey.Name, Repro: opts.Repro, CompletedSteps: []string{}, Findings: []results.Finding{},
			StepsTotal: len(p.Journey.Steps), Status: results.StatusError,
			Error: fmt.Sprintf("skewtest panicked while testing this pairing: %v", r)}
		if opts.Dir != "" && os.MkdirAll(opts.Dir, 0o755) == nil {
			log := filepath.Join(opts.Dir, panicLog)
			if os.WriteFile(log, fmt.Appendf(nil, "panic: %v\n\n%s", r, stack), 0o644) == nil {
				res.Error += " (stack in " + panicLog + ")"
				res.Logs = append(res.Logs, panicLog)
			}
		}
	}()
	return run0(ctx, p, opts)
}

// panicLog is where a pairing that panicked keeps the stack.
const panicLog = "panic.log"

func run0(ctx context.Context, p Pairing, opts Options) (*results.Pairing, *transcript.Transcript) {
	start := time.Now()
	res := &results.Pairing{Index: p.Index, Host: p.Host.Label, Client: p.Client.Label, ClientKind: p.Kind, Journey: p.Journey.Name,
		Repro: opts.Repro, CompletedSteps: []string{}, Findings: []results.Finding{}, StepsTotal: len(p.Journey.Steps)}
	if err := opts.validate(); err != nil {
		res.Status, res.Error = results.StatusError, err.Error()
		return res, nil
	}
	if err := Validate(p.Journey); err != nil {
		res.Status, res.Error = results.StatusError, err.Error()
		return res, nil
	}
	for _, b := range []*Build{p.Host, p.Client} {
		if b.Err != nil {
			res.Status, res.Error = results.StatusError, fmt.Sprintf("build %s failed: %v", b.Label, b.Err)
			return res, nil
		}
	}
	// Conditions are decided from the contracts: a line whose channel they cannot decide
	// is the journey's to fix before anything starts (a plan checks it for every build).
	if _, err := checks.ConditionChannels(p.Journey, p.Host.Contract, p.Client.Contract); err != nil {
		if opts.OnUsage != nil {
			opts.OnUsage(err)
		}
		res.Status, res.Error = results.StatusError, err.Error()
		return res, nil
	}
	t := &transcript.Transcript{
		Host:    transcript.Build{Label: p.Host.Label, Revision: p.Host.Revision},
		Client:  transcript.Build{Label: p.Client.Label, Revision: p.Client.Revision},
		Kind:    p.Kind,
		Journey: p.Journey.Name,
	}
	rec := newRecorder(t)
	err := run(ctx, p, opts, rec)
	t.Seal() // every process of the pairing has stopped: nothing is recorded any more
	if errors.Is(err, errSharedExited) && ctx.Err() == nil {
		// Which lane made the shared process exit is unknown: run the pairing again with
		// processes of its own, so a crash is found on the pairing that makes it.
		opts.Pool = nil
		return run0(ctx, p, opts)
	}
	res.Duration = time.Since(start)
	for _, l := range []string{opts.logPath(transcript.Host, ""), opts.logPath(transcript.Client, p.Kind)} {
		if _, err := os.Stat(l); err == nil {
			res.Logs = append(res.Logs, filepath.Base(l))
		}
	}
	for _, l := range rec.shared {
		// A lane's log is its shared process's, outside the pairing's directory.
		if rel, err := filepath.Rel(opts.Dir, l); err == nil {
			res.Logs = append(res.Logs, rel)
		}
	}
	var ue *usage.Error
	if errors.As(err, &ue) && opts.OnUsage != nil {
		opts.OnUsage(ue.Err)
	}
	in := &checks.Input{Transcript: t, Journey: p.Journey, Host: p.Host.Contract, Client: p.Client.Contract, Reference: opts.Reference, HostReference: opts.HostReference,
		ClientOlder: opts.Older != nil && opts.Older(p.Client.Label, p.Host.Label)}
	if rec.names != nil {
		checks.KeepNamed(in, rec.names(t)) // the journey named the frames as they arrived
	}
	if opts.DiscardCut && errors.Is(ctx.Err(), context.DeadlineExceeded) && !errors.As(err, new(*usage.Error)) {
		res.Status, res.Logs = results.StatusError, nil
		res.Error = "interrupted: the run was stopped before this pairing ended (" + errors.Join(err, ctx.Err()).Error() + ")"
		_ = os.RemoveAll(opts.Dir)
		return res, t
	}
	if err != nil || ctx.Err() != nil {
		// The infrastructure, the harness or a journey the vocabulary does not cover
		// broke: the pairing was not tested, so it is an error, never a pass.
		KeepRead(t, checks.NameFrames(in))
		if werr := writeTranscript(opts.Dir, t); werr != nil {
			err = errors.Join(err, fmt.Errorf("write transcript: %w", werr))
		} else {
			res.Transcript = filepath.Base(transcriptFile)
		}
		res.Status = results.StatusError
		res.Error = "the pairing could not be tested: " + errors.Join(err, ctx.Err()).Error()
		if ctx.Err() != nil && !errors.As(err, new(*usage.Error)) {
			res.Error = "interrupted: the run was stopped before this pairing ended (" + errors.Join(err, ctx.Err()).Error() + ")"
		}
		return res, t
	}
	in.Streams = rec.streams
	if opts.Support != nil {
		in.Support = opts.Support(p.Host.Label, p.Client.Label)
	}
	check := opts.Checks
	if check == nil {
		check = checks.Run
	}
	res.Findings = checks.Bound(check(in)) // a campaign's or future pass's own checks too
	// Its streams' values, decoded, are no one's from here on: a reference is kept for its
	// frames and final state while the pairings checked against it run.
	t.ForgetDerived()
	res.CompletedSteps = t.CompletedSteps()
	for _, s := range t.Steps {
		res.Steps = append(res.Steps, results.Step{Name: s.Name, Done: s.Done, Duration: s.Ended.Sub(s.Started)})
	}
	named := checks.NameFrames(in)
	for _, n := range named {
		res.Frames = append(res.Frames, n.Label())
		step := n.StepLabel()
		h, text := readHeader(n), readText(n)
		res.Timeline = append(res.Timeline, results.FrameEvent{Index: n.Index, Conn: n.Conn, Dir: n.Dir, Name: n.Name,
			Step: step, Arrived: n.Arrived, Size: len(n.Data), Payload: new(payloadSize(n)), AtNs: n.At.Sub(start).Nanoseconds(),
			Control: n.Control != "", Fields: transcript.ShortLimits.Fields(h, n.Decoded.Value, text)})
	}
	res.Status = Verdict(res.Findings, t)
	if opts.DiscardPassing && (res.Status == results.StatusPass || res.Status == results.StatusExpectedRefusal) {
		// Nothing of a passing pairing is kept: a campaign runs thousands.
		res.Logs = nil
		if rerr := os.RemoveAll(opts.Dir); rerr != nil {
			res.Status, res.Error = results.StatusError, "remove the passing pairing's directory: "+rerr.Error()
		}
		return res, t
	}
	KeepRead(t, named)
	if werr := writeTranscript(opts.Dir, t); werr != nil {
		res.Status, res.Error = results.StatusError, "write transcript: "+werr.Error()
		return res, t
	}
	res.Transcript = filepath.Base(transcriptFile)
	return res, t
}

// Verdict is the status of a pairing that ran to its end, from its findings and its
// transcript: fail with findings, expected-refusal when the product refused the pairing
// on purpose, else pass.
func Verdict(findings []results.Finding, t *transcript.Transcript) results.Status {
	switch {
	case len(findings) > 0:
		return results.StatusFail
	case t.End != nil && t.End.Reason == "expected-refusal":
		return results.StatusExpectedRefusal
	}
	return results.StatusPass
}

// transcriptFile is the transcript's name in a pairing's directory. It is gzipped: a
// terminal journey's frames and screens repeat a lot (about 1.2 MB raw, a few dozen KB
// compressed), and a full matrix keeps hundreds of them. Read it with zcat or gzip -dc, or
// skewtest transcript (transcript.Load).
const transcriptFile = transcript.File

// KeepRead gives each of t's frames what the receiving contract read from it (named, the
// frames NameFrames found): their names, header fields, bounded values, payload sizes,
// the step each belongs to and why one could not be read. Only for a transcript that is
// kept, before Run returns: a reference transcript is read by other pairings' checks
// afterwards, and must not change then.
func KeepRead(t *transcript.Transcript, named []checks.Named) {
	at := make(map[int]int, len(t.Frames)) // frame index → position in t.Frames
	for i, f := range t.Frames {
		at[f.Index] = i
	}
	limits := transcript.ReadLimits
	t.ReadLimits = &limits
	for _, n := range named {
		i, ok := at[n.Index]
		if !ok {
			continue
		}
		var err error
		r := transcript.ReadFrame{Name: n.Name, Header: readHeader(n), Text: limits.CutString(readText(n)), Payload: payloadSize(n)}
		if n.Arrived != "" {
			r.Step = n.Step
		}
		if n.Err != nil {
			r.Error = n.Err.Error()
		}
		r.Value, r.Truncated, err = limits.JSON(n.Decoded.Value)
		if err != nil {
			r.Error = strings.Join(slices.DeleteFunc([]string{r.Error, "the decoded value is not JSON: " + err.Error()},
				func(s string) bool { return s == "" }), "; ")
		}
		t.Frames[i].Read = append(t.Frames[i].Read, r)
	}
}

// readHeader is a named frame's header fields.
func readHeader(n checks.Named) transcript.Header {
	d := n.Decoded
	h := transcript.Header{Type: d.Type, Named: d.Header}
	if d.HasOpcode {
		h.Opcode = &d.Opcode
	}
	if d.HasStream {
		h.Stream = &d.Stream
	}
	if d.HasSeq {
		h.Seq = &d.Seq
	}
	return h
}

// readText is a named frame's payload as text, when the contract read no value from it and
// it is text; "" otherwise.
func readText(n checks.Named) string {
	d := n.Decoded
	if d.Value != nil || d.Driver || n.Control != "" || len(d.Payload) == 0 || !utf8.Valid(d.Payload) {
		return ""
	}
	return string(d.Payload)
}

// payloadSize is a named frame's payload in bytes: what its codec split from the message,
// or the whole message where nothing was (a control frame, a frame of no channel, one its
// receiving driver did not name).
func payloadSize(n checks.Named) int {
	if n.Control != "" || n.Undecoded || (n.Decoded.Payload == nil && n.Err != nil) {
		return len(n.Data)
	}
	return len(n.Decoded.Payload)
}

func writeTranscript(dir string, t *transcript.Transcript) error {
	return transcript.Write(filepath.Join(dir, transcriptFile), t, gzip.BestSpeed)
}

// run owns the pairing's processes and lanes: every one started or opened here is stopped or
// closed before it returns. It returns errSharedExited when a shared process of the pool
// exited while the pairing ran in one of its lanes.
func run(ctx context.Context, p Pairing, opts Options, rec *recorder) (err error) {
	if err := os.MkdirAll(opts.Dir, 0o755); err != nil {
		return err
	}
	var dec *decoder
	if usesDriverDecoding(p.Host.Contract, p.Client.Contract) {
		dec = newDecoder(rec, p)
		rec.update(func(*transcript.Transcript, string) { rec.decoder = dec })
		dctx, cancel := context.WithCancel(ctx)
		go dec.run(dctx)
		defer dec.wg.Wait()
		defer cancel()
	}

	host, err := openSide(ctx, p, p.Host, transcript.Host, "", p.Host.Host, "", opts, rec)
	if err != nil {
		return err
	}
	defer host.end(ctx, opts, rec, &err)
	if dec != nil {
		dec.attach(transcript.Host, host.d)
	}

	tapOpts, err := tapOptions(p)
	if err != nil {
		return err
	}
	proxy, err := tap.Start(ctx, host.url, rec, append(tapOpts, tap.WithRewriter(opts.Rewriter))...)
	if err != nil {
		return fmt.Errorf("start wire tap: %w", err)
	}
	defer proxy.Close()

	argv, ok := p.Client.Clients[p.Kind]
	if !ok {
		return fmt.Errorf("client %s has no %s driver", p.Client, p.Kind)
	}
	client, err := openSide(ctx, p, p.Client, transcript.Client, p.Kind, argv, proxy.URL(), opts, rec)
	if err != nil {
		return err
	}
	defer client.end(ctx, opts, rec, &err)
	// Runs first: what arrives while the drivers stop belongs to no step.
	defer rec.endJourney()
	if dec != nil {
		dec.attach(transcript.Client, client.d)
		// Before the journey ends, every frame it tapped gets its receiving driver's name.
		defer dec.drain(ctx, max(opts.Timeout, DefaultTimeout))
	}

	// Every line's channel, decided from the contracts before the first step (run0 checked
	// that each frame condition has one).
	channels, err := checks.ConditionChannels(p.Journey, p.Host.Contract, p.Client.Contract)
	if err != nil {
		return &usage.Error{Err: err}
	}
	j := &journey{p: p, opts: opts, rec: rec, host: host.peer, client: client.peer, proxy: proxy, channels: channels,
		owing: checks.NewOwing(&checks.Input{Transcript: &transcript.Transcript{Host: transcript.Build{Label: p.Host.Label}, Client: transcript.Build{Label: p.Client.Label}, Kind: p.Kind},
			Journey: p.Journey, Host: p.Host.Contract, Client: p.Client.Contract, Reference: opts.Reference, HostReference: opts.HostReference})}
	if dec == nil {
		rec.names = j.named // its checks take the frames as the journey named them
	}
	rec.streams = &j.streams // and continue the journey's folds of cumulative streams
	defer j.letGo()          // a journey that ends holding a direction lets it go
	for _, s := range p.Journey.Steps {
		rec.setStep(s.Name)
		err := j.step(ctx, s)
		rec.endStep(err == nil || errors.Is(err, errEnd))
		if err != nil {
			if errors.Is(err, errAbort) || errors.Is(err, errEnd) {
				return nil
			}
			return err
		}
	}
	return nil
}

// side is one side of a running pairing: a driver process of its own, or a lane of a
// shared process of the pool.
type side struct {
	role transcript.Role
	peer peer
	d    *driver.Driver // the process (a lane's shared one): the decoder asks it
	lane *lanePeer      // nil for a process of its own
	url  string         // a host's URL
}

// openSide starts b's driver in role (a client of kind, reaching the host at hostURL), or
// opens a lane in the pool's process of it when the pool has one that serves lanes.
func openSide(ctx context.Context, p Pairing, b *Build, role transcript.Role, kind string, argv []string, hostURL string,
	opts Options, rec *recorder) (*side, error) {
	name := driverName(b, role, kind)
	if len(argv) == 0 {
		return nil, fmt.Errorf("%s: no driver command", name)
	}
	// A driver that did not get ready for another pairing of the run is not waited for again.
	if err := opts.notReady.check(b, role, kind); err != nil {
		return nil, err
	}
	if opts.Pool != nil {
		sp, err := opts.Pool.process(b, role, kind, argv)
		if err != nil {
			opts.notReady.record(ctx, b, role, kind, opts.Dir, err)
			return nil, err
		}
		if sp != nil {
			l, url, err := sp.openLane(ctx, hostURL, rec.onMessage(role))
			if err != nil {
				if isDone(sp.d.Exited()) && ctx.Err() == nil {
					return nil, fmt.Errorf("%w: %v", errSharedExited, err)
				}
				return nil, err
			}
			s := &side{role: role, peer: l, d: sp.d, lane: l, url: url}
			rec.hello(role, sp.d.Hello())
			rec.shared = append(rec.shared, sp.log)
			rec.alsoActive(sp.lastActive)
			if err := checkStarted(p, b, role, name, s.peer, url, rec); err != nil {
				s.end(ctx, opts, rec, new(error))
				return nil, err
			}
			return s, nil
		}
	}
	var env []string
	if hostURL != "" {
		env = []string{"SKEWTEST_HOST_URL=" + hostURL}
	}
	d, url, err := startDriver(ctx, b, p.Journey, role, kind, argv, env, opts, rec)
	if err != nil {
		opts.notReady.record(ctx, b, role, kind, opts.Dir, err)
		return nil, err
	}
	return &side{role: role, peer: d, d: d, url: url}, nil
}

// end stops the side's driver, or closes its lane. What stopping found is a problem of the
// pairing's, unless the driver's end is already one. A lane whose shared process exited
// before it closed sets *err to errSharedExited.
func (s *side) end(ctx context.Context, opts Options, rec *recorder, err *error) {
	// Teardown must finish even when ctx is cancelled (Ctrl-C): it gets its own deadline.
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 4*max(opts.StopGrace, 3*time.Second))
	defer cancel()
	if s.lane != nil {
		cerr := s.lane.close(sctx)
		switch {
		case cerr == nil:
		case s.lane.exited():
			if *err == nil {
				*err = errSharedExited
			}
		default:
			rec.problem(s.role, fmt.Sprintf("could not close its lane: %v", cerr), "")
		}
		return
	}
	serr := s.d.Stop(sctx)
	if serr == nil {
		return
	}
	// A crash during the journey is already a problem of its step; report only what
	// stopping itself found (a driver that ignored stop, or died unnoticed).
	reported := false
	rec.view(func(t *transcript.Transcript) {
		for _, p := range t.Problems {
			reported = reported || p.Role == s.role
		}
	})
	if errors.Is(serr, driver.ErrExited) && reported {
		return
	}
	rec.problem(s.role, serr.Error(), "")
}

// logPath is where a driver's log goes in the pairing's directory.
func (o *Options) logPath(role transcript.Role, kind string) string {
	name := string(role)
	if kind != "" {
		name += "-" + kind
	}
	return filepath.Join(o.Dir, unsafeName.ReplaceAllString(name, "_")+".log")
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// driverSpec is how b's driver in role (and kind) is started.
func driverSpec(b *Build, role transcript.Role, kind string, argv, env []string, logPath string, stopGrace time.Duration) driver.Spec {
	return driver.Spec{
		Argv:    b.argv(argv),
		Dir:     b.Dir,
		LogPath: logPath,
		Name:    driverName(b, role, kind),
		Env: append([]string{
			"SKEWTEST_DRIVER_PROTOCOL=1",
			"SKEWTEST_ROLE=" + string(role),
			"SKEWTEST_KIND=" + kind,
			"SKEWTEST_BUILD_LABEL=" + b.Label,
			"SKEWTEST_BUILD_REVISION=" + b.Revision,
		}, append(append(tlsEnv(b), b.Env...), env...)...),
		StopGrace: stopGrace,
	}
}

// startError says why a driver did not start, naming it as the user wrote it.
func startError(err error, b *Build, kind, name string, argv []string) error {
	if errors.Is(err, fs.ErrNotExist) && b.DriverAt != nil {
		// Name the driver as the user wrote it, not its path in the build cache.
		return fmt.Errorf("start %s driver: %q (%s) does not exist in the build's output: the recipe must write it to $SKEWTEST_OUT, or fix the driver's argv there",
			name, argv[0], b.DriverAt(kind))
	}
	return fmt.Errorf("start %s driver: %w", name, err)
}

// readyError says why a started driver never got ready (a *notReadyError).
func readyError(ctx context.Context, err error, d *driver.Driver, name string, timeout time.Duration, logPath string) error {
	if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
		// Say what was awaited and for how long, not a bare deadline.
		what := "it never said hello"
		if d.Hello().Type != "" {
			what = "it said hello but never said ready"
		}
		return &notReadyError{fmt.Errorf("%s driver never got ready: %s within %s (the driver protocol's first lines; see its log %s)",
			name, what, timeout, filepath.Base(logPath))}
	}
	return &notReadyError{fmt.Errorf("%s driver never got ready: %w", name, err)}
}

// stopQuietly stops a driver whose start went wrong; its error is not the news.
func stopQuietly(ctx context.Context, d *driver.Driver) {
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	_ = d.Stop(sctx)
}

// checkStarted checks a driver (or lane) that just got ready: the working tree's driver
// must announce the journey's actions (a usage error otherwise), a driver of another
// protocol version is a problem, and a host must report a URL of its transport.
func checkStarted(p Pairing, b *Build, role transcript.Role, name string, d peer, url string, rec *recorder) error {
	if b.Journeys {
		if err := CheckActions(p.Journey, string(role), name, d.Hello().Actions); err != nil {
			return &usage.Error{Err: err}
		}
	}
	if h := d.Hello(); h.Protocol != 1 {
		rec.problem(role, fmt.Sprintf("announced driver protocol %d; this skewtest speaks 1 and drives it as 1", h.Protocol), "")
	}
	if role == transcript.Host {
		return b.checkHostURL(name, url)
	}
	return nil
}

func startDriver(ctx context.Context, b *Build, j *journeys.Journey, role transcript.Role, kind string, cmd []string, env []string,
	opts Options, rec *recorder) (*driver.Driver, string, error) {
	spec := driverSpec(b, role, kind, cmd, env, opts.logPath(role, kind), opts.StopGrace)
	d, err := driver.Start(ctx, spec, rec.onMessage(role))
	if err != nil {
		return nil, "", startError(err, b, kind, spec.Name, cmd)
	}
	rctx, cancel := context.WithTimeout(ctx, opts.ReadyTimeout)
	defer cancel()
	ready, err := d.WaitReady(rctx)
	if err != nil {
		stopQuietly(ctx, d)
		return nil, "", readyError(ctx, err, d, spec.Name, opts.ReadyTimeout, spec.LogPath)
	}
	if err := checkStarted(Pairing{Journey: j}, b, role, spec.Name, d, ready.URL, rec); err != nil {
		stopQuietly(ctx, d)
		return nil, "", err
	}
	return d, ready.URL, nil
}
