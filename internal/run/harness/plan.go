package harness

import (
	"fmt"
	"io"
	"slices"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/results"
)

// Matrix says which host/client pairs a plan covers.
type Matrix string

const (
	// MatrixDefault pairs each pin with the working tree in both directions, plus references.
	MatrixDefault Matrix = "default"
	// MatrixFull pairs every build with every build.
	MatrixFull Matrix = "full"
)

// ParseMatrix checks a --matrix value.
func ParseMatrix(s string) (Matrix, error) {
	switch m := Matrix(s); m {
	case "":
		return MatrixDefault, nil
	case MatrixDefault, MatrixFull:
		return m, nil
	}
	return "", fmt.Errorf("unknown matrix %q (want default or full)", s)
}

// PlanOptions select what a plan covers.
type PlanOptions struct {
	Matrix   Matrix
	Kinds    []string // client kinds; empty: every kind the journeys drive
	Journeys []*journeys.Journey
}

// Skip is a pairing the plan would have had but cannot run: its client build has no
// driver of the kind. Skips are reported, so coverage never shrinks silently.
type Skip struct {
	Host, Client *Build
	Kind         string
	Journey      *journeys.Journey
	Reason       string
}

// Result is the skip as results.json records it.
func (s Skip) Result() results.Skip {
	return results.Skip{Host: s.Host.Label, Client: s.Client.Label, ClientKind: s.Kind, Journey: s.Journey.Name, Reason: s.Reason}
}

// Plan lists the pairings to run, in a stable order: references first, then for each pin
// the pin as host with the working tree as client, and the other way round. subject is the
// build the pins are paired with (normally the working tree). Pairings whose client build
// has no driver of the kind are returned as skips.
func Plan(subject *Build, pins []*Build, opts PlanOptions) ([]Pairing, []Skip, error) {
	if len(opts.Journeys) == 0 {
		return nil, nil, fmt.Errorf("plan: no journeys")
	}
	matrix, err := ParseMatrix(string(opts.Matrix))
	if err != nil {
		return nil, nil, err
	}
	type pair struct{ host, client *Build }
	var pairs []pair
	all := append([]*Build{subject}, pins...)
	switch matrix {
	case MatrixDefault:
		for _, b := range all {
			pairs = append(pairs, pair{b, b})
		}
		for _, p := range pins {
			pairs = append(pairs, pair{p, subject}, pair{subject, p})
		}
	case MatrixFull:
		for _, h := range all {
			for _, c := range all {
				pairs = append(pairs, pair{h, c})
			}
		}
	}
	known := kindsOf(all...)
	var out []Pairing
	var skips []Skip
	for _, pr := range pairs {
		ps, ss := journeysFor(pr.host, pr.client, opts, known)
		out, skips = append(out, ps...), append(skips, ss...)
	}
	return out, skips, nil
}

// Journeys pairs host and client on every journey of opts, for every kind the journey drives
// that the client build has a driver for (and that opts.Kinds selects). A build that failed
// has no drivers to look at: its pairings stay and become errors, so a broken tag is
// reported, not skipped.
func Journeys(host, client *Build, opts PlanOptions) ([]Pairing, []Skip) {
	return journeysFor(host, client, opts, kindsOf(host, client))
}

func journeysFor(host, client *Build, opts PlanOptions, known []string) ([]Pairing, []Skip) {
	var out []Pairing
	var skips []Skip
	for _, j := range opts.Journeys {
		for _, kind := range known {
			if !j.Drives(kind) || (len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, kind)) {
				continue
			}
			if _, ok := client.Clients[kind]; !ok && client.Err == nil {
				skips = append(skips, Skip{Host: host, Client: client, Kind: kind, Journey: j,
					Reason: fmt.Sprintf("build %s has no %s client driver", client.Label, kind)})
				continue
			}
			out = append(out, Pairing{Host: host, Client: client, Kind: kind, Journey: j})
		}
	}
	return out, skips
}

// kindsOf lists the client kinds any of the builds has a driver for, sorted.
func kindsOf(bs ...*Build) []string {
	var out []string
	for _, b := range bs {
		for k := range b.Clients {
			if !slices.Contains(out, k) {
				out = append(out, k)
			}
		}
	}
	slices.Sort(out)
	return out
}

// KindsOf lists the client kinds any of the builds has a driver for, sorted.
func KindsOf(bs ...*Build) []string { return kindsOf(bs...) }

// PrintPlan writes the plan as a numbered list: each pairing's Index, or its position
// counted from first when it has none.
func PrintPlan(w io.Writer, plan []Pairing, first int) {
	for i, p := range plan {
		ref := ""
		switch {
		case p.Helper:
			ref = "  (reference for this shard's pairings; another shard records it)"
		case p.Host == p.Client:
			ref = "  (reference)"
		}
		n := p.Index
		if n == 0 {
			n = first + i
		}
		fmt.Fprintf(w, "%3d. %s%s\n", n, p.Label(), ref)
	}
}
