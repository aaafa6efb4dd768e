// Package results is skewtest's plain data model of a run: builds, pairings, steps and
// findings. The harness fills it, reports render it, and results.json is its serialization.
// It imports nothing of skewtest, so every other package can share it.
package results

import (
	"fmt"
	"strings"
	"time"
)

// WorktreeLabel is the label of the working-tree build (every other build is labelled by its
// ref). It is defined here, once; pins and builds refer to it.
const WorktreeLabel = "worktree"

// SchemaVersion is the version of results.json. Fields are only ever added.
const SchemaVersion = 1

// Status of a pairing.
type Status string

const (
	StatusPass            Status = "pass"
	StatusFail            Status = "fail"
	StatusError           Status = "error"
	StatusExpectedRefusal Status = "expected-refusal"
	// StatusFlaky is a pairing that was retried and whose attempts disagreed (see
	// Pairing.Attempts). It counts as a failure: a compatibility result that does not
	// reproduce is itself a finding about the pair.
	StatusFlaky Status = "flaky"
)

// Statuses lists every status, in the order reports show them.
var Statuses = []Status{StatusPass, StatusFail, StatusFlaky, StatusError, StatusExpectedRefusal}

// Kind of finding: what kind of incompatibility a finding reports (docs/reference.md lists
// them, under results.json).
type Kind string

const (
	DecoderRefusal        Kind = "decoder-refusal"
	SequenceDrift         Kind = "sequence-drift"
	CapabilityMismatch    Kind = "capability-mismatch"
	PublishedFieldRemoved Kind = "published-field-removed"
	DataLoss              Kind = "data-loss"
	Stall                 Kind = "stall"
	IncompleteJourney     Kind = "incomplete-journey"
	WindowViolation       Kind = "window-violation"
	DriverError           Kind = "driver-error"
	// FieldMismatch: a frame's payload breaks the receiving build's contract (a required field
	// missing, a wrong type, an unknown enum value), or the receiving product said it rejected
	// the frame for its shape.
	FieldMismatch Kind = "field-mismatch"
	// InvariantViolation: frames broke a relation the contract declares between them (a
	// reply that answers no request, an echo that reports something else, chunks out of a
	// start … end).
	InvariantViolation Kind = "invariant-violation"
	// UnexpectedEvent: something arrived while the journey asserted that nothing would
	// (expect … none), e.g. output while paused.
	UnexpectedEvent Kind = "unexpected-event"
	// ContractViolation: the static tier found that a newer build's wire contract breaks an
	// evolution rule against an older build's (docs/contract.md, "The static tier"): a frame
	// removed or renumbered, a field made required, an enum narrowed … Message says the pair
	// of builds, the rule and what broke; Detail says file:line and the JSON pointer. It
	// comes from the contracts alone, before anything is built, so it names no pairing,
	// step, direction or frame.
	ContractViolation Kind = "contract-violation"
	// IntolerantDecoder: the working tree refused, rejected or behaved differently on frames a
	// later release of its peer is allowed to send (new optional fields, new feature or
	// capability keys, new command versions: the future-peer pass, run --future-peers). It
	// compares the pairing run with those frames rewritten against the same pairing
	// unmodified; Detail shows the difference and the rewrites.
	IntolerantDecoder Kind = "intolerant-decoder"
	// CommandVersionMismatch: a frame that calls a command (the contract's calls) was sent
	// without a version both builds speak: at a version one of the builds' contracts does not
	// list for the command, or without a version (encoded implicitly) although the command
	// has more than one version in either contract. A command both contracts list with one
	// version may still be sent without one (legacy send sites).
	CommandVersionMismatch Kind = "command-version-mismatch"
	// IncompleteReference: a skew pairing's frames in a step could not be judged, because
	// a reference that would judge them (a build with its own peer) stopped before that step
	// (a stall, a crash, an end). It is not drift: the reference's own findings say what
	// went wrong there, and the step is compared once the reference completes.
	IncompleteReference Kind = "incomplete-reference"
)

// Kinds lists every kind of finding, as the constants above declare them.
var Kinds = []Kind{DecoderRefusal, SequenceDrift, CapabilityMismatch, PublishedFieldRemoved, DataLoss, Stall,
	IncompleteJourney, WindowViolation, DriverError, FieldMismatch, InvariantViolation, UnexpectedEvent,
	ContractViolation, IntolerantDecoder, CommandVersionMismatch, IncompleteReference}

// Run is one invocation of skewtest run or repro.
type Run struct {
	SchemaVersion int    `json:"schemaVersion"`
	Tool          string `json:"tool"`
	// ToolVersion is the version of the skewtest that made the run (skewtest version: make
	// build stamps it from git; go install …@v1.2.3 records v1.2.3); empty in a run saved
	// before it was recorded.
	ToolVersion string     `json:"toolVersion,omitempty"`
	Seed        int64      `json:"seed"`
	Repo        string     `json:"repo"`
	Started     time.Time  `json:"started"`
	Finished    time.Time  `json:"finished"`
	Builds      []Build    `json:"builds"`
	Pairings    []*Pairing `json:"pairings"`
	// Skipped lists pairings the plan could not run (a build without a driver of a kind).
	Skipped []Skip `json:"skipped,omitempty"`
	// Findings are about the whole run rather than one pairing: the static tier's
	// contract-violation findings, found from the contracts before anything was built.
	Findings []Finding `json:"findings,omitempty"`
	// Shard is "k/n" when this run covered only shard k of n of the plan (--shard), ""
	// for a whole plan, including one merged from shards.
	Shard string `json:"shard,omitempty"`
	// Interrupted is set when the run was stopped (Ctrl-C, a cancelled CI job) before
	// every pairing of its plan ran; NotRun counts the pairings left out.
	Interrupted bool `json:"interrupted,omitempty"`
	NotRun      int  `json:"notRun,omitempty"`
	// Coverage says which parts of the builds' contracts the run exercised (frames per
	// direction and client kind, fields, enum values, capabilities, driver actions) and
	// which it never did; nil when not computed.
	Coverage *Coverage `json:"coverage,omitempty"`
	// Campaign holds a fuzz campaign's figures (skewtest fuzz); nil for run and repro.
	Campaign *Campaign `json:"campaign,omitempty"`
	// Bisect holds a bisection's walk and answer (skewtest bisect); nil otherwise.
	Bisect *Bisect `json:"bisect,omitempty"`
	// Fixtures is the fixture tier: the committed recordings of earlier releases replayed
	// into the working tree's decoders before any pairing runs; nil when the run had none.
	Fixtures *Fixtures `json:"fixtures,omitempty"`
}

// Fixtures is what the fixture tier asked and found: every committed recording of an
// earlier release (skewtest record), its host's frames into the working tree's client of
// its kind and its client's frames into the working tree's host, through their drivers'
// decode action.
type Fixtures struct {
	// Dir is the fixtures directory, relative to the repository root.
	Dir string `json:"dir"`
	// Releases are the releases recorded there; Recordings how many recordings they hold.
	Releases   []string `json:"releases"`
	Recordings int      `json:"recordings"`
	// Frames is how many recorded frames the working tree's decoders were asked about.
	Frames int `json:"frames"`
	// Skipped says what the support policy left out, and why.
	Skipped []string `json:"skipped,omitempty"`
	// Findings are a decoder-refusal per frame a working-tree decoder refused.
	Findings []Finding `json:"findings,omitempty"`
}

// Bisect is a bisection: which change of one side's history made a pairing fail. The
// moving side walks from a good ref to a bad one, first over the release tags between them,
// then over the commits between the last good tag and the first bad one; the other side
// stays fixed.
type Bisect struct {
	Side    string `json:"side"`  // the side that moved: host or client
	Fixed   string `json:"fixed"` // the other side's build
	Kind    string `json:"clientKind"`
	Journey string `json:"journey"`
	Good    string `json:"good"` // the moving side's refs the walk started from
	Bad     string `json:"bad"`
	// Kinds are the finding kinds that make a candidate bad: those of the bad end.
	Kinds []Kind `json:"kinds"`
	// LastGoodTag and FirstBadTag bound the release where the pairing first breaks (the
	// good or bad ref itself when no tag lies between).
	LastGoodTag string `json:"lastGoodTag"`
	FirstBadTag string `json:"firstBadTag"`
	// LastGood and FirstBad are the candidates the walk ended between: FirstBad is the
	// change that did it, when Exact.
	LastGood *Candidate `json:"lastGood,omitempty"`
	FirstBad *Candidate `json:"firstBad,omitempty"`
	// Exact is false when candidates that could not be judged (skipped, flaky) lie between
	// LastGood and FirstBad: Suspects then lists every one that may be first bad.
	Exact    bool     `json:"exact"`
	Suspects []string `json:"suspects,omitempty"`
	// Brought are FirstBad's failing findings that LastGood does not have.
	Brought []Finding `json:"brought,omitempty"`
	// Candidates are every candidate tested, in the order they were.
	Candidates []Candidate `json:"candidates"`
	// Repro reruns the first bad pairing.
	Repro string `json:"repro,omitempty"`
}

// Candidate is one build of the moving side that a bisection tested.
type Candidate struct {
	Ref     string    `json:"ref"` // a tag, a commit's short hash, or worktree
	Commit  string    `json:"commit,omitempty"`
	Tag     bool      `json:"tag,omitempty"` // a release tag
	Subject string    `json:"subject,omitempty"`
	Author  string    `json:"author,omitempty"`
	Date    time.Time `json:"date,omitzero"`
	// Verdict is good, bad, skipped (it does not build, or the harness could not run it)
	// or flaky (its attempts disagreed: never taken as good or bad).
	Verdict  string    `json:"verdict"`
	Why      string    `json:"why,omitempty"`
	Findings []Finding `json:"findings,omitempty"`
	// Report is the candidate's own report directory, relative to the bisection's.
	Report string `json:"report,omitempty"`
}

// Candidate verdicts.
const (
	VerdictGood    = "good"
	VerdictBad     = "bad"
	VerdictSkipped = "skipped"
	VerdictFlaky   = "flaky"
)

// Campaign is what a fuzz campaign did: its seed and mode, how many cases ran and how
// fast, the unique findings (one per kind and pairing, with the shrunk case that shows
// it), and which generators and events the cases drew.
type Campaign struct {
	Seed int64 `json:"seed"`
	// Mode is "cases" (a fixed count, PR mode) or "budget" (a time budget, nightly).
	Mode   string        `json:"mode"`
	Budget time.Duration `json:"budgetNs,omitempty"`
	// Cases counts generated cases run; CorpusCases the corpus journeys replayed first.
	Cases       int `json:"cases"`
	CorpusCases int `json:"corpusCases"`
	// CasesNotRun counts the cases drawn but not run to a verdict: cut by the end of the
	// budget (a budget is a deadline) or by an interruption.
	CasesNotRun int `json:"casesNotRun,omitempty"`
	Pairings    int `json:"pairings"` // pairings run, references included
	// DriverProcesses counts the driver processes started for the campaign's cases: shared
	// ones serving lanes, and a pair per pairing where a driver does not serve lanes or a
	// case runs on its own (confirming, shrinking, replaying the corpus).
	DriverProcesses int `json:"driverProcesses"`
	// Packs counts the packed journeys run in lanes when the future-peer pass is on, and
	// FuturePacks those of them the pass ran on (a seeded sample: docs/explore.md).
	Packs       int           `json:"packs,omitempty"`
	FuturePacks int           `json:"futurePacks,omitempty"`
	Duration    time.Duration `json:"durationNs"`
	CasesPerMin float64       `json:"casesPerMin"`
	// Generators and Events count the cases per generator and the drawn events per
	// "generator/event".
	Generators map[string]int    `json:"generators"`
	Events     map[string]int    `json:"events"`
	Findings   []CampaignFinding `json:"findings"`
	// CaseList is every case in order: the same seed gives the same list and verdicts.
	CaseList []CampaignCase `json:"caseList"`
	// Timeline is the run's coverage as the campaign went on, a point after each batch of
	// cases (the run's own coverage is Run.Coverage).
	Timeline []CoveragePoint `json:"timeline,omitempty"`
	// History is the coverage memory's campaigns (the corpus's coverage directory), oldest
	// first, this one last; NeverReached lists what none of them reached, of what this run's
	// builds owe (docs/explore.md).
	History      []CoverageNight `json:"history,omitempty"`
	NeverReached []CoverageItem  `json:"neverReached,omitempty"`
}

// CoveragePoint is a campaign's coverage at one moment.
type CoveragePoint struct {
	After   time.Duration `json:"afterNs"`
	Cases   int           `json:"cases"`
	Covered int           `json:"covered"`
	Total   int           `json:"total"`
}

// CoverageNight is one campaign of a coverage memory: when it ran, how many cases, how many
// parts it reached and how many of those no earlier campaign of the memory had.
type CoverageNight struct {
	Name     string        `json:"name"`
	Seed     int64         `json:"seed"`
	Started  time.Time     `json:"started"`
	Duration time.Duration `json:"durationNs"`
	Cases    int           `json:"cases"`
	Reached  int           `json:"reached"`
	New      int           `json:"new"`
	// Ever is how many parts the memory had reached once this campaign was added.
	Ever int `json:"ever"`
}

// CampaignFinding is one unique finding of a campaign: a finding kind on a pairing of
// builds and client kind.
type CampaignFinding struct {
	Kind       Kind   `json:"kind"`
	Host       string `json:"host"`
	Client     string `json:"client"`
	ClientKind string `json:"clientKind"`
	// Cases counts the cases that showed it; First is the first one.
	Cases int    `json:"cases"`
	First string `json:"first"`
	// Shrunk is the minimised case's journey file (in the corpus), its events, and how
	// many candidate runs the shrinking took.
	Shrunk       string   `json:"shrunk,omitempty"`
	ShrunkEvents []string `json:"shrunkEvents,omitempty"`
	ShrinkRuns   int      `json:"shrinkRuns,omitempty"`
	// Flaky is set when the first case that showed the finding, run again on the same
	// pairing, did not show it: it was not shrunk.
	Flaky bool `json:"flaky,omitempty"`
	// Unshrunk is set when the budget's end (or an interruption) came before the case could
	// be confirmed and shrunk: Shrunk is then the case as it was drawn, kept in the corpus.
	Unshrunk bool   `json:"unshrunk,omitempty"`
	Repro    string `json:"repro,omitempty"`
	Message  string `json:"message"`
	// After is how long the campaign had run when the first case showed it (its builds
	// apart): the time to first detection.
	After time.Duration `json:"afterNs"`
	// Own is set when the finding is a release's own bug, not a skew between two releases:
	// the pairing is a build with itself (a reference pairing, not its future-peer pass), or
	// the same-build reference of either side showed it too in the same case. OwnOf names
	// that release.
	Own   bool   `json:"own,omitempty"`
	OwnOf string `json:"ownOf,omitempty"`
	// Race is set when only a perturbed schedule shows the finding: its case, run with the
	// campaign's own timing, does not. Schedule says that schedule ("settle none, H>C
	// 25ms±25ms"), and Reproduced how many of Replays runs of the case with it showed the
	// finding again.
	Race       bool   `json:"race,omitempty"`
	Schedule   string `json:"schedule,omitempty"`
	Replays    int    `json:"replays,omitempty"`
	Reproduced int    `json:"reproduced,omitempty"`
}

// CampaignCase is one case of a campaign and its verdict (the worst of its pairings).
type CampaignCase struct {
	Name   string   `json:"name"`
	Events []string `json:"events"`
	Status Status   `json:"status"`
}

// Build is one version of the subject that took part.
type Build struct {
	Label    string `json:"label"`
	Revision string `json:"revision"`
	// Dirty marks a working tree with changes its revision does not have (modified,
	// added or deleted files): its build is not that commit's.
	Dirty  bool   `json:"dirty,omitempty"`
	Status string `json:"status"` // built | cached | error
	Reason string `json:"reason,omitempty"`
	Dir    string `json:"dir,omitempty"`
	Log    string `json:"log,omitempty"`
	Error  string `json:"error,omitempty"`
	// Contract says where the build's contract came from when not from its own checkout (a
	// tag that predates skewtest, given one by a versions row of the working tree).
	Contract string `json:"contract,omitempty"`
	// Transport says how the build's host serves when not over plain WebSocket: "tcp
	// (channel rpc, lines framing)", "wss" (from its skewtest.yaml's channels).
	Transport string `json:"transport,omitempty"`
}

// Pairing is one (host build, client build, client kind, journey) and what became of it.
type Pairing struct {
	Host           string        `json:"host"`
	Client         string        `json:"client"`
	ClientKind     string        `json:"clientKind"`
	Journey        string        `json:"journey"`
	Status         Status        `json:"status"`
	CompletedSteps []string      `json:"completedSteps"`
	StepsTotal     int           `json:"stepsTotal"`
	Steps          []Step        `json:"steps,omitempty"`
	Findings       []Finding     `json:"findings"`
	Error          string        `json:"error,omitempty"`
	Repro          string        `json:"repro"`
	Duration       time.Duration `json:"durationNs"`
	Transcript     string        `json:"transcript,omitempty"` // path, relative to the report dir
	Frames         []string      `json:"frames,omitempty"`     // named frame sequence as tapped
	// Index is the pairing's 1-based position in the whole plan (not in its shard), so
	// shards merge back into plan order.
	Index int `json:"index,omitempty"`
	// Timeline is every tapped frame in order, named, for the report's frame view.
	Timeline []FrameEvent `json:"timeline,omitempty"`
	// Logs are the drivers' log files, relative to the report dir.
	Logs []string `json:"logs,omitempty"`
	// Attempts is the verdict of each attempt when the pairing was retried, in order;
	// Status is flaky when they disagree.
	Attempts []Status `json:"attempts,omitempty"`
	// Future marks the future-peer run of a pairing (run --future-peers): the same pairing
	// with the frames bound for the working tree rewritten as a later release may send
	// them, compared with its unmodified run; its findings are intolerant-decoder findings.
	Future bool `json:"future,omitempty"`
	// Replay marks a replayed decoder cell (skewtest replay): no pairing ran; one direction
	// of a recorded pairing's frames went to the receiving build's decoder.
	Replay *Replay `json:"replay,omitempty"`
}

// Replay is where a replayed cell's frames came from: the recorded pairing, the direction
// replayed (H>C into the client build, C>H into the host build) and how many frames.
type Replay struct {
	From      string `json:"from"`
	Direction string `json:"direction"`
	Frames    int    `json:"frames"`
	// Recorded is the build that received the frames in the recording: the cell whose
	// receiving build is it replays the traffic into its own decoder.
	Recorded string `json:"recorded"`
}

// FrameEvent is one tapped frame as the report shows it. A WebSocket message that carries
// several frames (a batch) gives one event per frame, each with the message's index and size.
type FrameEvent struct {
	Index int    `json:"index"` // the message's index in the transcript's frames
	Conn  int    `json:"conn"`  // tapped connection
	Dir   string `json:"dir"`   // "C>H" or "H>C"
	Name  string `json:"name"`  // frame name (opcode or type decoded with the receiver's contract)
	// Step is the journey step the frame belongs to: the one that caused it (a reply goes
	// with its request), "(teardown)" after the journey ended.
	Step string `json:"step,omitempty"`
	// Arrived is the step the frame arrived in when that is not Step.
	Arrived string `json:"arrived,omitempty"`
	// Size is the transport message's size in bytes: the whole WebSocket message, headers
	// and every frame of a batch included.
	Size int `json:"size"`
	// Payload is the frame's payload in bytes: after a binary header, the whole frame for
	// other codecs (the whole message where nothing could be read from it); nil in a
	// results.json written before skewtest kept it.
	Payload *int  `json:"payload,omitempty"`
	AtNs    int64 `json:"atNs"` // nanoseconds since the pairing started
	Control bool  `json:"control,omitempty"`
	// Fields is a short rendering of the frame's header fields and decoded value (or its
	// payload as text) for the report: compact JSON such as {"opcode":9,"stream":0,
	// "value":{"streamId":1}}, strings cut to 40 bytes, at most 512 bytes, ending in "…"
	// when cut (it is then no longer JSON). The transcript keeps more (Frame.Read).
	Fields string `json:"fields,omitempty"`
}

// Step is one journey step as it ran.
type Step struct {
	Name     string        `json:"name"`
	Done     bool          `json:"done"`
	Duration time.Duration `json:"durationNs"`
}

// Frame names a frame: its opcode (binary frames) or type (JSON frames), and its name.
type Frame struct {
	Opcode int    `json:"opcode,omitempty"`
	Type   string `json:"type,omitempty"`
	Name   string `json:"name"`
}

// Finding is one incompatibility found in a transcript.
type Finding struct {
	Kind      Kind   `json:"kind"`
	Step      string `json:"step,omitempty"`
	Direction string `json:"direction,omitempty"`
	Frame     *Frame `json:"frame,omitempty"`
	Message   string `json:"message"`
	Detail    string `json:"detail,omitempty"` // multi-line evidence: a diff, the last frames seen
	// Allowed, for a static finding the subject's skewtest.yaml lists under allow: (reviewed
	// and accepted), says where and why ("skewtest.yaml:31: the downgrade is lossless for
	// mobile"); an allowed finding is reported and fails nothing.
	Allowed string `json:"allowed,omitempty"`
	// Own, when set, is the label of a build whose own reference pairing (the build with
	// itself, same kind and journey) shows the same finding: a bug of that release, not a
	// skew between two builds. It still fails the run.
	Own string `json:"own,omitempty"`
}

// Key identifies a finding among a pairing's: its kind, step, direction and message. Two
// runs that found the same thing give the same key (bisect's "what it brought", recheck's
// gained and lost findings).
func (f Finding) Key() string {
	return string(f.Kind) + "\x00" + f.Step + "\x00" + f.Direction + "\x00" + f.Message
}

// OtherSide is the side of a pairing that is not side (host or client).
func OtherSide(side string) string {
	if side == "host" {
		return "client"
	}
	return "host"
}

// Plural says "1 pairing" or "3 pairings".
func Plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	if strings.HasSuffix(noun, "s") {
		return fmt.Sprintf("%d %ses", n, noun)
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

// Failing lists the findings that fail: every one but those allowed.
func Failing(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Allowed == "" {
			out = append(out, f)
		}
	}
	return out
}

// Label is the pairing's human name: "host v1.4.190 × desktop client v1.4.120 · terminal".
func (p *Pairing) Label() string {
	l := PairingLabel(p.Host, p.ClientKind, p.Client, p.Journey)
	if p.Future {
		l += " · future peers"
	}
	return l
}

// JourneyLabel is the journey's name as a report's journey column shows it: the name, and
// " · future peers" for a future-peer run, which reports keep apart from the pairing's own.
func (p *Pairing) JourneyLabel() string {
	if p.Future {
		return p.Journey + " · future peers"
	}
	return p.Journey
}

// PairingLabel is the one format of a pairing's name in every report and progress line.
func PairingLabel(host, kind, client, journey string) string {
	return "host " + host + " × " + kind + " client " + client + " · " + journey
}

// Skip is a pairing a plan could not run because its client build has no driver of the
// kind: coverage that is missing, said out loud.
type Skip struct {
	Host       string `json:"host"`
	Client     string `json:"client"`
	ClientKind string `json:"clientKind"`
	Journey    string `json:"journey"`
	Reason     string `json:"reason"`
}

// Counts tallies pairings by status.
func (r *Run) Counts() map[Status]int {
	c := map[Status]int{}
	for _, p := range r.Pairings {
		c[p.Status]++
	}
	return c
}

// Complete reports whether every pairing of the plan ran.
func (r *Run) Complete() bool { return !r.Interrupted && r.NotRun == 0 }

// ExitCode maps a finished run to skewtest's exit code: 3 when any pairing could not be
// tested or the run was interrupted (an infrastructure error outranks findings: the matrix
// is incomplete), else 1 when any pairing failed or was flaky, else 0.
func (r *Run) ExitCode() int {
	c := r.Counts()
	switch {
	case c[StatusError] > 0, !r.Complete():
		return 3
	case c[StatusFail] > 0, c[StatusFlaky] > 0, len(Failing(r.Findings)) > 0, r.Fixtures != nil && len(r.Fixtures.Findings) > 0:
		return 1
	}
	return 0
}
