// Package compat audits a product's compatibility shims (skewtest compat): the code it keeps
// only so older peers still work, marked where it lives with a greppable comment and the
// condition that makes it removable:
//
//	// COMPAT(legacy-seq): desktop clients before protocol 2 count seq from 1; rebase it.
//	// Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least 2.
//	// Turn off: REMOTETERM_FEATURES={"legacyDesktopSeqRebase":false}
//
// The audit reads every marker of the working tree's tracked files and sorts the shims into
// removable now (the working tree's contract, or its support policy, makes the shim
// unreachable), overdue (removable already at the newest release, and still shipped), and
// still needed (and by which supported releases). With a marker's "Turn off:" switch, Prove
// runs the pairings the support policy requires with the shim off and says which break.
package compat

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/matrix"
	"github.com/skewtest/skewtest/results"
)

// Marker is one COMPAT comment.
type Marker struct {
	// Name is the shim's name; File and Line where its marker is (relative to the root).
	Name string
	File string
	Line int
	// Text is what the comment says of the shim, the removal condition included.
	Text string
	// MinCompatible, when set, is the condition "Remove when MIN_COMPATIBLE_PROTOCOL_VERSION
	// is at least N"; Predates, with Role, the condition "Remove when no supported client
	// (or host) predates vX.Y.Z".
	MinCompatible  int
	Role, Predates string
	// Switch is the "Turn off:" setting (ENV=VALUE) that runs a build without the shim.
	Switch string
}

// Condition is the marker's removal condition as written, or why it has none skewtest reads.
func (m Marker) Condition() string {
	switch {
	case m.MinCompatible > 0:
		return fmt.Sprintf("MIN_COMPATIBLE_PROTOCOL_VERSION is at least %d", m.MinCompatible)
	case m.Predates != "":
		return fmt.Sprintf("no supported %s predates %s", m.Role, m.Predates)
	}
	return ""
}

var (
	markerRe  = regexp.MustCompile(`COMPAT\(([^)\s]+)\):?\s*(.*)$`)
	minRe     = regexp.MustCompile(`(?i)remove when (?:MIN_COMPATIBLE_PROTOCOL_VERSION|the minimum compatible (?:protocol )?version|minCompatible) is at least (\d+)`)
	predateRe = regexp.MustCompile(`(?i)remove when no supported (client|host)s? predates? (v\d+\.\d+\.\d+)`)
	switchRe  = regexp.MustCompile(`(?i)turn off:\s*(\S+=\S+)`)
)

// commentPrefixes begin the comment lines a marker continues on.
var commentPrefixes = []string{"//", "#", "--", ";", "*", "/*"}

func commentText(line string) (string, bool) {
	t := strings.TrimSpace(line)
	for _, p := range commentPrefixes {
		if strings.HasPrefix(t, p) {
			return strings.TrimSpace(strings.TrimPrefix(t, p)), true
		}
	}
	return "", false
}

// Scan reads the markers of one file's text (named file), in line order. A marker's
// comment continues on the comment lines that follow it, up to a blank comment line,
// another marker or code.
func Scan(file string, data []byte) []Marker {
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 64*1024), 4*1024*1024)
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	var out []Marker
	for i, l := range lines {
		m := markerRe.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		text := []string{strings.TrimSpace(m[2])}
		for j := i + 1; j < len(lines) && j <= i+8; j++ {
			t, ok := commentText(lines[j])
			if !ok || t == "" || markerRe.MatchString(lines[j]) {
				break
			}
			text = append(text, t)
		}
		mk := Marker{Name: m[1], File: file, Line: i + 1, Text: strings.Join(text, " ")}
		if c := minRe.FindStringSubmatch(mk.Text); c != nil {
			mk.MinCompatible, _ = strconv.Atoi(c[1])
		}
		if c := predateRe.FindStringSubmatch(mk.Text); c != nil {
			mk.Role, mk.Predates = strings.ToLower(c[1]), c[2]
		}
		if c := switchRe.FindStringSubmatch(mk.Text); c != nil {
			mk.Switch = strings.TrimRight(c[1], ".")
		}
		out = append(out, mk)
	}
	return out
}

// Verdict sorts a shim.
type Verdict string

const (
	// Removable: the working tree's contract or support policy makes it unreachable.
	Removable Verdict = "removable"
	// Overdue: removable already at the newest stable release, which shipped it anyway (its
	// tree holds the marker).
	Overdue Verdict = "overdue"
	// Needed: some release the working tree must still work with needs it.
	Needed Verdict = "needed"
	// Unknown: the marker states no condition skewtest can read.
	Unknown Verdict = "unknown"
)

// Shim is a marker and what the audit found of it.
type Shim struct {
	Marker
	Verdict Verdict
	// Why says what decided the verdict; NeededBy, for a needed shim, the releases that
	// need it.
	Why      string
	NeededBy []string
}

// Audit is every shim of a subject, in file and line order.
type Audit struct {
	Shims []Shim
	// Releases are the releases the working tree must still work with (the support policy,
	// else every stable tag its protocol window accepts).
	Releases []string
}

// Shim is the audited shim named name; a name no marker has is a usage error listing them.
func (a *Audit) Shim(name string) (*Shim, error) {
	var names []string
	for i := range a.Shims {
		if a.Shims[i].Name == name {
			return &a.Shims[i], nil
		}
		names = append(names, a.Shims[i].Name)
	}
	return nil, usage.Errorf("compat: no COMPAT(%s) marker (markers: %s)", name, strings.Join(names, ", "))
}

// Write writes the audit to w, the shims grouped by verdict, overdue first, and a count; it
// returns how many are overdue (dead weight shipped in a release already).
func (a *Audit) Write(w io.Writer) (overdue int, err error) {
	if len(a.Shims) == 0 {
		_, err := fmt.Fprintln(w, "compat: no COMPAT(name) marker in the working tree's tracked files")
		return 0, err
	}
	groups := []struct {
		v     Verdict
		title string
	}{
		{Overdue, "overdue: removable already at the newest release, and still here"},
		{Removable, "removable now"},
		{Needed, "still needed"},
		{Unknown, "no removal condition skewtest can read"},
	}
	var b strings.Builder
	count := map[Verdict]int{}
	for _, g := range groups {
		var lines []string
		for _, s := range a.Shims {
			if s.Verdict != g.v {
				continue
			}
			count[g.v]++
			line := fmt.Sprintf("  %s:%d COMPAT(%s)", s.File, s.Line, s.Name)
			if cond := s.Condition(); cond != "" {
				line += ": remove when " + cond
			}
			line += "\n    " + s.Why
			if len(s.NeededBy) > 0 {
				line += ": " + strings.Join(s.NeededBy, ", ")
			}
			lines = append(lines, line)
		}
		if len(lines) > 0 {
			fmt.Fprintf(&b, "%s:\n%s\n", g.title, strings.Join(lines, "\n"))
		}
	}
	fmt.Fprintf(&b, "compat: %d shims: %d overdue, %d removable, %d needed, %d without a readable condition (supported releases: %s)\n",
		len(a.Shims), count[Overdue], count[Removable], count[Needed], count[Unknown], strings.Join(a.Releases, ", "))
	_, err = io.WriteString(w, b.String())
	return count[Overdue], err
}

// Run audits the shims of the subject in repo.
func Run(ctx context.Context, repo string) (*Audit, error) {
	s, err := subject.Open(repo)
	if err != nil {
		return nil, err
	}
	markers, err := scanTracked(s)
	if err != nil {
		return nil, err
	}
	a := &auditor{s: s}
	if err := a.load(ctx); err != nil {
		return nil, err
	}
	out := &Audit{Releases: a.supported("")}
	for _, m := range markers {
		out.Shims = append(out.Shims, a.judge(m))
	}
	return out, nil
}

// scanTracked reads the markers of the working tree's tracked files.
func scanTracked(s *subject.Subject) ([]Marker, error) {
	idx, err := s.Repo.Storer.Index()
	if err != nil {
		return nil, err
	}
	wt, err := s.Repo.Worktree()
	if err != nil {
		return nil, err
	}
	root := wt.Filesystem.Root()
	var out []Marker
	for _, e := range idx.Entries {
		if !ours(e.Name) {
			continue // others' code
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(e.Name)))
		if err != nil || len(data) > 4<<20 || bytes.IndexByte(data, 0) >= 0 || !bytes.Contains(data, []byte("COMPAT(")) {
			continue // gone from the working tree, too large, binary, or without a marker
		}
		out = append(out, Scan(e.Name, data)...)
	}
	slices.SortStableFunc(out, func(a, b Marker) int {
		if c := strings.Compare(a.File, b.File); c != 0 {
			return c
		}
		return a.Line - b.Line
	})
	return out, nil
}

// auditor holds what judging needs: the working tree's contract and policy, the stable
// tags and their contracts.
type auditor struct {
	s        *subject.Subject
	worktree *contract.Contract
	policy   *pins.Support
	stable   []string
	protocol map[string]contract.Protocol // each stable tag's protocol window
	// shipped are the markers' names in the newest stable release's tree: a shim is
	// overdue only if that release shipped it.
	shipped map[string]bool
}

func (a *auditor) load(ctx context.Context) error {
	cs, err := a.s.Contracts()
	if err != nil {
		return err
	}
	cf, err := cs.Worktree()
	if err != nil {
		return subject.InputError(err)
	}
	if a.worktree, err = subject.ParseContractFile(cf); err != nil {
		return err
	}
	cfg, err := a.s.WorktreeConfig()
	if err != nil {
		return err
	}
	if cfg != nil && !cfg.Support.Empty() {
		a.policy = &cfg.Support
	}
	tags, err := a.s.StableTags(ctx)
	if err != nil {
		return err
	}
	a.protocol = map[string]contract.Protocol{}
	for _, t := range tags {
		a.stable = append(a.stable, t.Name)
		cf, err := a.s.ContractFile(ctx, builds.AtCommit(t.Name, t.Commit)) // as run reads it
		if err != nil {
			continue // a tag without a readable contract: no protocol to judge it by
		}
		if c, err := contract.Parse(cf.Name, cf.Data, cf.Options()...); err == nil {
			a.protocol[t.Name] = c.Protocol
		}
	}
	if len(tags) > 0 {
		return a.loadShipped(tags[len(tags)-1].Commit)
	}
	return nil
}

// loadShipped reads the markers of the newest release's tree.
func (a *auditor) loadShipped(commit plumbing.Hash) error {
	a.shipped = map[string]bool{}
	c, err := a.s.Repo.CommitObject(commit)
	if err != nil {
		return err
	}
	tree, err := c.Tree()
	if err != nil {
		return err
	}
	return tree.Files().ForEach(func(f *object.File) error {
		if !ours(f.Name) || f.Size > 4<<20 {
			return nil
		}
		data, err := f.Contents()
		if err != nil || !strings.Contains(data, "COMPAT(") {
			return err
		}
		for _, m := range Scan(f.Name, []byte(data)) {
			a.shipped[m.Name] = true
		}
		return nil
	})
}

// ours reports whether a tracked file is the product's own code, not a vendored copy.
func ours(name string) bool {
	return !strings.HasPrefix(name, "third_party/") && !strings.HasPrefix(name, "vendor/")
}

// supported lists the releases the working tree must still work with in role ("" both):
// the support policy's, else the stable tags whose protocol window the working tree's
// accepts.
func (a *auditor) supported(role string) []string {
	var out []string
	for _, t := range a.stable {
		if a.policy != nil {
			for _, r := range []string{"client", "host"} {
				if role != "" && r != role {
					continue
				}
				if req, _, _ := a.policy.Requirement(r, t, a.stable); req {
					out = append(out, t)
					break
				}
			}
			continue
		}
		if p, ok := a.protocol[t]; ok && a.worktree.Protocol.Overlaps(p) {
			out = append(out, t)
		}
	}
	return out
}

func (a *auditor) judge(m Marker) Shim {
	sh := Shim{Marker: m}
	switch {
	case m.MinCompatible > 0:
		have := a.worktree.Protocol.MinCompatible
		var needing []string
		for _, t := range a.supported("") {
			if p, ok := a.protocol[t]; ok && p.Version > 0 && p.Version < m.MinCompatible {
				needing = append(needing, t)
			}
		}
		newest := ""
		if len(a.stable) > 0 {
			newest = a.stable[len(a.stable)-1]
		}
		switch {
		case have >= m.MinCompatible && newest != "" && a.protocol[newest].MinCompatible >= m.MinCompatible && a.shipped[m.Name]:
			sh.Verdict, sh.Why = Overdue, fmt.Sprintf("%s already had minCompatible %d, and shipped the shim", newest, a.protocol[newest].MinCompatible)
		case have >= m.MinCompatible:
			sh.Verdict, sh.Why = Removable, fmt.Sprintf("the working tree's contract has minCompatible %d", have)
		case len(needing) == 0:
			sh.Verdict, sh.Why = Removable, fmt.Sprintf("minCompatible is %d, but no release the working tree must still serve speaks a protocol before %d: raise it", have, m.MinCompatible)
		default:
			sh.Verdict, sh.NeededBy = Needed, needing
			sh.Why = fmt.Sprintf("minCompatible is %d; these releases speak a protocol before %d", have, m.MinCompatible)
		}
	case m.Predates != "":
		var needing []string
		for _, t := range a.supported(m.Role) {
			if pins.Older(t, m.Predates) {
				needing = append(needing, t)
			}
		}
		switch {
		case len(needing) > 0:
			sh.Verdict, sh.NeededBy = Needed, needing
			sh.Why = fmt.Sprintf("supported %ss older than %s", m.Role, m.Predates)
		case a.shipped[m.Name] && a.removableBefore(m):
			sh.Verdict, sh.Why = Overdue, fmt.Sprintf("no supported %s predated %s already when the newest release was cut", m.Role, m.Predates)
		default:
			sh.Verdict, sh.Why = Removable, fmt.Sprintf("no %s the working tree must still serve predates %s", m.Role, m.Predates)
		}
	default:
		sh.Verdict, sh.Why = Unknown, `no removal condition skewtest reads: say "Remove when MIN_COMPATIBLE_PROTOCOL_VERSION is at least N." or "Remove when no supported client predates vX.Y.Z."`
	}
	return sh
}

// removableBefore reports whether a "predates" shim was removable already when the newest
// stable release was cut: the policy, applied to the stable tags before it, required no
// release older than the marker's.
func (a *auditor) removableBefore(m Marker) bool {
	if len(a.stable) < 2 || a.policy == nil {
		return false
	}
	before := a.stable[:len(a.stable)-1]
	for _, t := range before {
		if req, _, _ := a.policy.Requirement(m.Role, t, before); req && pins.Older(t, m.Predates) {
			return false
		}
	}
	return true
}

// Proof is what turning a shim off did to the pairings the working tree must still pass.
type Proof struct {
	Shim Shim
	// Broken are the pairings that pass with the shim and fail without it (their labels);
	// Failing those that fail either way (the shim is not what breaks them).
	Broken, Failing []string
	// With and Without are the two runs.
	With, Without *results.Run
}

// Prove runs the working tree against the releases the audit found supported (cfg's pins
// are replaced by them) twice, with the same seed: as it is, and with the shim turned off
// (its marker's switch, set for the working tree's drivers). A pairing that passes the
// first time and fails the second is broken by removing the shim. cfg is the run's
// configuration otherwise; its ReportDir gets with/ and without/. A shim without a switch
// cannot be proved: that is a usage error.
func Prove(ctx context.Context, a *Audit, sh Shim, cfg matrix.Config) (*Proof, error) {
	if sh.Switch == "" {
		return nil, usage.Errorf("compat: COMPAT(%s) (%s:%d) names no switch to turn it off: add a line \"Turn off: ENV=VALUE\" to its marker", sh.Name, sh.File, sh.Line)
	}
	if len(a.Releases) == 0 {
		return nil, usage.Errorf("compat: no release the working tree must still serve: nothing to prove COMPAT(%s) against", sh.Name)
	}
	cfg.Pins = pins.Options{Refs: pins.Refs("the releases the working tree must still serve (skewtest compat --prove)", a.Releases...)}
	if cfg.Seed == 0 {
		cfg.Seed = 1 // both runs draw the same choices
	}
	dir := cfg.ReportDir
	p := &Proof{Shim: sh}
	var err error
	cfg.ReportDir = filepath.Join(dir, "with")
	if p.With, err = matrix.Run(ctx, cfg); err != nil {
		return nil, err
	}
	cfg.ReportDir = filepath.Join(dir, "without")
	cfg.Env = append(slices.Clone(cfg.Env), pins.WorktreeLabel+":"+sh.Switch)
	if p.Without, err = matrix.Run(ctx, cfg); err != nil {
		return nil, err
	}
	passed := map[string]bool{}
	for _, pr := range p.With.Pairings {
		passed[pr.Label()] = ok(pr)
	}
	for _, pr := range p.Without.Pairings {
		switch {
		case ok(pr) || pr.Host == pr.Client:
		case passed[pr.Label()]:
			p.Broken = append(p.Broken, pr.Label())
		default:
			p.Failing = append(p.Failing, pr.Label())
		}
	}
	return p, nil
}

func ok(p *results.Pairing) bool {
	return p.Status == results.StatusPass || p.Status == results.StatusExpectedRefusal
}
