package reports

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"html/template"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/results"
)

// The page's parts, embedded so report.html is one self-contained file: no network, no
// files beside it except the transcripts and logs it links to.
var (
	//go:embed html/report.html.tmpl
	pageTemplate string
	//go:embed html/report.css
	pageCSS string
	//go:embed html/report.js
	pageJS string
)

var page = template.Must(template.New("report").Funcs(template.FuncMap{
	"inc": func(i int) int { return i + 1 },
	"short": func(s string) string {
		if len(s) > 12 {
			return s[:12]
		}
		return s
	},
	"stamp": func(t time.Time) string {
		if t.IsZero() {
			return ""
		}
		return t.UTC().Format("2006-01-02 15:04:05 UTC")
	},
	"duration": func(a, b time.Time) string {
		if a.IsZero() || b.IsZero() {
			return ""
		}
		return b.Sub(a).Round(time.Second).String()
	},
}).Parse(pageTemplate))

// HTML renders run as one self-contained HTML page: the header, a matrix per journey and
// client kind, filters, and a pairing view drawn on demand from data embedded once as
// JSON (a 675-pairing matrix stays a few megabytes and opens at once).
func HTML(w io.Writer, run *results.Run) error {
	data, err := json.Marshal(pageDataOf(run)) // escapes <, > and &: safe inside <script>
	if err != nil {
		return err
	}
	v := pageView{
		Coverage: coverageView(run.Coverage),
		Timeline: timelineOf(run),
		Run:      run,
		Exit:     run.ExitCode(),
		Kinds:    findingKinds(run),
		Groups:   matrices(run),
		Own:      ownBugs(run),
		CSS:      template.CSS(pageCSS),
		JS:       template.JS(pageJS),
		Data:     template.JS(data),
	}
	c := run.Counts()
	for _, s := range results.Statuses {
		v.Counts = append(v.Counts, statusCount{s, c[s]})
	}
	return page.Execute(w, v)
}

type pageView struct {
	Coverage []coverageGroup
	Timeline []results.CoveragePoint // a campaign's, thinned
	Run      *results.Run
	Exit     int
	Counts   []statusCount
	Kinds    []results.Kind
	Groups   []matrix
	Own      []ownBug // the releases' own bugs, a section of their own
	CSS      template.CSS
	JS       template.JS
	Data     template.JS
}

// coverageGroup is one category of the run's contract coverage, as the page shows it.
type coverageGroup struct {
	Category       string
	Covered, Total int
	Never          []string
}

func coverageView(c *results.Coverage) []coverageGroup {
	if c == nil {
		return nil
	}
	var out []coverageGroup
	for _, cat := range results.CoverageCategories {
		covered, total := c.Count(cat)
		if total == 0 {
			continue
		}
		g := coverageGroup{Category: cat, Covered: covered, Total: total}
		for _, it := range c.Missing(cat) {
			g.Never = append(g.Never, it.Item)
		}
		out = append(out, g)
	}
	return out
}

func timelineOf(run *results.Run) []results.CoveragePoint {
	if run.Campaign == nil {
		return nil
	}
	return Thin(run.Campaign.Timeline, timelineRows)
}

type statusCount struct {
	Status results.Status
	N      int
}

// matrix is one journey and client kind: host builds down, client builds across.
type matrix struct {
	Journey, Kind string
	Clients       []string
	Rows          []matrixRow
}

type matrixRow struct {
	Host  string
	Cells []cell
}

type cell struct {
	ID       int // the pairing's id in the page (see pairingIDs); 0: not planned
	Status   results.Status
	Findings int
	Kinds    string // finding kinds, space-separated, for the kind filter
	Ref      bool   // a reference: host and client are the same build
	Skipped  bool   // the plan could not run it (Title says why)
	Title    string
}

// Text is the cell's short label.
func (c cell) Text() string {
	switch c.Status {
	case results.StatusExpectedRefusal:
		return "refused"
	case results.StatusFail, results.StatusFlaky:
		return fmt.Sprintf("%s %d", c.Status, c.Findings)
	}
	return string(c.Status)
}

// pairingIDs names each pairing in the page (anchors #p<ID>) by its plan index, so links
// survive a merge; a run without indexes (older results.json) uses positions.
// A pairing's future-peer run (same index) is numbered after the plan: the plan's largest
// index plus its pairing's.
func pairingIDs(run *results.Run) []int {
	ids := make([]int, len(run.Pairings))
	top := 0
	for _, p := range run.Pairings {
		if !p.Future {
			top = max(top, p.Index)
		}
	}
	seen := map[int]bool{}
	for i, p := range run.Pairings {
		id := p.Index
		if p.Future {
			id += top
		}
		if p.Index <= 0 || seen[id] {
			for i := range ids {
				ids[i] = i + 1
			}
			return ids
		}
		seen[id] = true
		ids[i] = id
	}
	return ids
}

// buildOrder is the run's build labels, then any label only its pairings name.
func buildOrder(run *results.Run) []string {
	var out []string
	for _, b := range run.Builds {
		out = append(out, b.Label)
	}
	add := func(ls ...string) {
		for _, l := range ls {
			if !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	for _, p := range run.Pairings {
		add(p.Host, p.Client)
	}
	for _, sk := range run.Skipped {
		add(sk.Host, sk.Client)
	}
	return out
}

func matrices(run *results.Run) []matrix {
	type key struct{ journey, kind string }
	var order []key
	byKey := map[key]map[[2]string]cell{}
	ids := pairingIDs(run)
	for i, p := range run.Pairings {
		k := key{p.JourneyLabel(), p.ClientKind}
		if p.Replay != nil {
			// Replayed cells: one matrix per direction, the receiving build on its side.
			k.journey += " · " + p.Replay.Direction + " replayed"
		}
		if byKey[k] == nil {
			order = append(order, k)
			byKey[k] = map[[2]string]cell{}
		}
		var kinds []string
		for _, f := range p.Findings {
			if !slices.Contains(kinds, string(f.Kind)) {
				kinds = append(kinds, string(f.Kind))
			}
		}
		title := p.Label() + ": " + string(p.Status)
		if len(kinds) > 0 {
			title += " (" + strings.Join(kinds, ", ") + ")"
		}
		c := cell{ID: ids[i], Status: p.Status, Findings: len(p.Findings), Kinds: strings.Join(kinds, " "), Ref: p.Host == p.Client, Title: title}
		hc := [2]string{p.Host, p.Client}
		if prev, ok := byKey[k][hc]; ok {
			c = merged(prev, c)
		}
		byKey[k][hc] = c
	}
	for _, sk := range run.Skipped {
		k := key{sk.Journey, sk.ClientKind}
		if byKey[k] == nil {
			order = append(order, k)
			byKey[k] = map[[2]string]cell{}
		}
		hc := [2]string{sk.Host, sk.Client}
		if _, ran := byKey[k][hc]; !ran {
			byKey[k][hc] = cell{Skipped: true, Title: skipLabel(sk) + ": skipped: " + sk.Reason}
		}
	}
	labels := buildOrder(run)
	var out []matrix
	for _, k := range order {
		cells := byKey[k]
		used := func(host bool) []string {
			var ls []string
			for _, l := range labels {
				for hc := range cells {
					if (host && hc[0] == l) || (!host && hc[1] == l) {
						ls = append(ls, l)
						break
					}
				}
			}
			return ls
		}
		m := matrix{Journey: k.journey, Kind: k.kind, Clients: used(false)}
		for _, h := range used(true) {
			row := matrixRow{Host: h}
			for _, c := range m.Clients {
				cl := cells[[2]string{h, c}]
				cl.Ref = h == c
				row.Cells = append(row.Cells, cl)
			}
			m.Rows = append(m.Rows, row)
		}
		out = append(out, m)
	}
	return out
}

// severity orders statuses for merged: the worst shows.
var severity = map[results.Status]int{results.StatusPass: 0, results.StatusExpectedRefusal: 1, results.StatusFlaky: 2, results.StatusFail: 3, results.StatusError: 4}

// merged is one matrix position that holds several pairings (replayed cells of several
// recordings land on the same host × client): the worst one's status and link, every
// finding counted, every kind listed, and each title.
func merged(a, b cell) cell {
	worst := a
	if severity[b.Status] > severity[a.Status] {
		worst = b
	}
	kinds := strings.Fields(a.Kinds)
	for _, k := range strings.Fields(b.Kinds) {
		if !slices.Contains(kinds, k) {
			kinds = append(kinds, k)
		}
	}
	worst.Findings, worst.Kinds = a.Findings+b.Findings, strings.Join(kinds, " ")
	worst.Title = a.Title + "\n" + b.Title
	return worst
}

func findingKinds(run *results.Run) []results.Kind {
	var out []results.Kind
	for _, p := range run.Pairings {
		for _, f := range p.Findings {
			if !slices.Contains(out, f.Kind) {
				out = append(out, f.Kind)
			}
		}
	}
	slices.Sort(out)
	return out
}

// pageData is what the page's script reads: every pairing once, compact. Strings that
// repeat (frame and step names, and a frame's fields: the pairings of one journey send the
// same frames) are interned in S; a timeline is a flat list of numbers, timelineWidth per
// frame.
type pageData struct {
	S []string      `json:"s"`
	P []pagePairing `json:"p"`
}

// timelineWidth numbers per frame: index, conn, dir (0 C>H, 1 H>C, 2 other), name (S),
// step (S, -1 none), size (the message's), microseconds since the pairing started, control
// (0/1), payload size (-1 unknown: an older results.json), the step it arrived in when not
// its step (S, -1), its fields (S, -1 none).
const timelineWidth = 11

type pagePairing struct {
	ID         int              `json:"id"`
	Host       string           `json:"h"`
	Client     string           `json:"c"`
	Kind       string           `json:"k"`
	Journey    string           `json:"j"`
	Status     results.Status   `json:"st"`
	Attempts   []results.Status `json:"at,omitempty"`
	Micros     int64            `json:"us"`
	Completed  int              `json:"cs"`
	Total      int              `json:"n"`
	Repro      string           `json:"r"`
	Error      string           `json:"e,omitempty"`
	Transcript string           `json:"t,omitempty"`
	Logs       []string         `json:"l,omitempty"`
	Steps      [][3]int64       `json:"sp,omitempty"` // name (S), done (0/1), microseconds
	Findings   []pageFinding    `json:"f,omitempty"`
	Timeline   []int64          `json:"tl,omitempty"`
}

type pageFinding struct {
	Kind      results.Kind `json:"k"`
	Step      string       `json:"s,omitempty"`
	Direction string       `json:"d,omitempty"`
	Frame     string       `json:"fr,omitempty"` // the frame's name
	FrameID   string       `json:"fi,omitempty"` // "opcode 15", "type hello"
	Message   string       `json:"m"`
	Detail    string       `json:"x,omitempty"`
	Own       string       `json:"o,omitempty"` // the build whose own bug it is
}

func pageDataOf(run *results.Run) pageData {
	var d pageData
	intern := map[string]int64{}
	str := func(s string) int64 {
		i, ok := intern[s]
		if !ok {
			i = int64(len(d.S))
			intern[s] = i
			d.S = append(d.S, s)
		}
		return i
	}
	ids := pairingIDs(run)
	d.P = make([]pagePairing, 0, len(run.Pairings))
	for i, p := range run.Pairings {
		pp := pagePairing{ID: ids[i], Host: p.Host, Client: p.Client, Kind: p.ClientKind, Journey: p.JourneyLabel(),
			Status: p.Status, Attempts: p.Attempts, Micros: p.Duration.Microseconds(), Completed: len(p.CompletedSteps),
			Total: p.StepsTotal, Repro: p.Repro, Error: p.Error, Transcript: p.Transcript, Logs: p.Logs}
		for _, s := range p.Steps {
			done := int64(0)
			if s.Done {
				done = 1
			}
			pp.Steps = append(pp.Steps, [3]int64{str(s.Name), done, s.Duration.Microseconds()})
		}
		for _, f := range p.Findings {
			pf := pageFinding{Kind: f.Kind, Step: f.Step, Direction: f.Direction, Message: f.Message, Detail: f.Detail, Own: f.Own}
			if f.Frame != nil {
				pf.Frame = f.Frame.Name
				switch {
				case f.Frame.Type != "":
					pf.FrameID = "type " + f.Frame.Type
				case f.Frame.Opcode != 0:
					pf.FrameID = fmt.Sprintf("opcode %d", f.Frame.Opcode)
				}
			}
			pp.Findings = append(pp.Findings, pf)
		}
		if len(p.Timeline) > 0 {
			pp.Timeline = make([]int64, 0, timelineWidth*len(p.Timeline))
		}
		for _, e := range p.Timeline {
			dir := int64(2)
			switch e.Dir {
			case contract.ClientToHost:
				dir = 0
			case contract.HostToClient:
				dir = 1
			}
			step := int64(-1)
			if e.Step != "" {
				step = str(e.Step)
			}
			ctl := int64(0)
			if e.Control {
				ctl = 1
			}
			payload, arrived, fields := int64(-1), int64(-1), int64(-1)
			if e.Payload != nil {
				payload = int64(*e.Payload)
			}
			if e.Arrived != "" {
				arrived = str(e.Arrived)
			}
			if e.Fields != "" {
				fields = str(e.Fields)
			}
			pp.Timeline = append(pp.Timeline, int64(e.Index), int64(e.Conn), dir, str(e.Name), step, int64(e.Size), e.AtNs/1000, ctl,
				payload, arrived, fields)
		}
		d.P = append(d.P, pp)
	}
	return d
}
