package bisect

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/pins"
	"github.com/skewtest/skewtest/internal/declare/subject"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/results"
)

// ContractConfig is a static bisection: which commit between Good and Bad made the contract
// break the evolution rules against an older build's, found from the contract files alone
// (read from git objects: no checkout, no build, no process).
type ContractConfig struct {
	Repo, ReportDir string
	// Good and Bad are the refs to walk between; Bad may be the working tree.
	Good, Bad string
	// Against is the older build whose contract each candidate's is diffed against
	// (default: Good), with the rules and allowances contract check uses.
	Against string
	// Stdout gets the answer; Stderr a line per candidate. Nil discards.
	Stdout, Stderr io.Writer
}

// RunContract bisects the contract and writes the reports (results.json's bisect, side
// "contract"). A good ref whose contract already violates, or a bad one whose does not, is
// a usage error.
func RunContract(ctx context.Context, cc ContractConfig) (*results.Run, error) {
	c := Config{Repo: cc.Repo, ReportDir: cc.ReportDir, Good: cc.Good, Bad: cc.Bad, Side: Contract,
		Stdout: cc.Stdout, Stderr: cc.Stderr, Seed: 1}
	c.outputs()
	switch {
	case c.Repo == "":
		return nil, usage.Errorf("bisect needs the subject's repository")
	case c.Good == "" || c.Bad == "":
		return nil, usage.Errorf("a contract bisection needs a good and a bad ref")
	case c.Good == c.Bad:
		return nil, usage.Errorf("good and bad are both %s: nothing to walk", c.Good)
	}
	against := cc.Against
	if against == "" {
		against = c.Good
	}
	subj, err := subject.Open(c.Repo)
	if err != nil {
		return nil, err
	}
	run, err := execute(ctx, &c, []string{"bisect", "--contract"}, func(pts []point) (*bisection, error) {
		d, err := newDiffer(ctx, subj, against)
		if err != nil {
			return nil, err
		}
		b := newBisection(&c, pts, against, &results.Bisect{Side: Contract, Fixed: against, Good: c.Good, Bad: c.Bad,
			Kinds: []results.Kind{results.ContractViolation}})
		b.try = d.try
		fmt.Fprintf(c.Stderr, "bisect: the contract moves from %s to %s (%s), diffed against %s's\n",
			c.Good, c.Bad, results.Plural(len(pts), "build"), against)
		return b, nil
	})
	return run, err
}

// differ diffs each candidate's contract against the fixed older one's.
type differ struct {
	subj     *subject.Subject
	against  string
	commit   plumbing.Hash
	policy   func(older string) func(contract.Violation) bool
	reviewed *subject.AllowList
	rules    []string // what makes a candidate bad: the bad end's rules (tested first)
}

func newDiffer(ctx context.Context, subj *subject.Subject, against string) (*differ, error) {
	if against == results.WorktreeLabel {
		return nil, usage.Errorf("the contract is diffed against an older build's: give a ref, not the working tree")
	}
	repo, err := pins.Open(subj.Dir)
	if err != nil {
		return nil, err
	}
	d := &differ{subj: subj, against: against}
	if d.commit, err = pins.ResolveCommit(repo, subj.Dir, against); err != nil {
		return nil, usage.Errorf("%w", err)
	}
	if d.policy, err = subj.ContractPolicy(ctx); err != nil {
		return nil, err
	}
	if d.reviewed, err = subj.AllowList(); err != nil {
		return nil, err
	}
	return d, nil
}

// try diffs the contract at p against the fixed one: bad with a violation of a rule the
// bad end breaks (the bad end itself: any violation), skipped when it has no contract that
// parses.
func (d *differ) try(ctx context.Context, p point, t *tested, end bool) error {
	// Each contract read as run reads it (subject.ContractFile: the versions rows included).
	res, err := d.subj.DiffPairs(ctx, []subject.Pair{{Old: d.against, OldCommit: d.commit, New: p.ref, NewCommit: p.commit}},
		func(older, _ string) func(contract.Violation) bool { return d.policy(older) }, d.reviewed)
	if err != nil {
		if end {
			return err
		}
		t.cand.Verdict, t.cand.Why = results.VerdictSkipped, firstLine(err.Error())
		return nil
	}
	r := res[0]
	if r.Skipped != nil {
		if end {
			return usage.Errorf("%s: %v", p.ref, r.Skipped)
		}
		t.cand.Verdict, t.cand.Why = results.VerdictSkipped, "no contract to diff: "+firstLine(r.Skipped.Error())
		return nil
	}
	if d.rules == nil {
		for _, v := range r.Violations {
			if !slices.Contains(d.rules, v.Rule) {
				d.rules = append(d.rules, v.Rule)
			}
		}
	}
	var broken []string
	for _, v := range r.Violations {
		t.cand.Findings = append(t.cand.Findings, subject.ContractFinding(d.against, p.ref, v))
		if slices.Contains(d.rules, v.Rule) && !slices.Contains(broken, v.Rule) {
			broken = append(broken, v.Rule)
		}
	}
	t.cand.Verdict = results.VerdictGood
	if len(broken) > 0 {
		t.cand.Verdict, t.cand.Why = results.VerdictBad, strings.Join(broken, ", ")
	}
	return nil
}
