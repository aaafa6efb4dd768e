package harness

import (
	"fmt"
	"io"
	"slices"

	"github.com/skewtest/skewtest/journeys"
)

// Matrix says which host/client pairs a plan covers.
type Matrix string

const (
	// MatrixDefault pairs each pin with the working tree in both directions, plus references.
	MatrixDefault Matrix = "default"
	// MatrixFull pairs every build with every build.
	MatrixFull Matrix = "full"
)

// PlanOptions select what a plan covers.
type PlanOptions struct {
	Matrix   Matrix
	Kinds    []string // client kinds; empty: every kind both builds support
	Journeys []*journeys.Journey
}

// Plan lists the pairings to run, in a stable order: references first, then for each pin
// the pin as host with the working tree as client, and the other way round. subject is the
// build the pins are paired with (normally the working tree).
func Plan(subject *Build, pins []*Build, opts PlanOptions) ([]Pairing, error) {
	if len(opts.Journeys) == 0 {
		return nil, fmt.Errorf("plan: no journeys")
	}
	if opts.Matrix == "" {
		opts.Matrix = MatrixDefault
	}
	type pair struct{ host, client *Build }
	var pairs []pair
	all := append([]*Build{subject}, pins...)
	switch opts.Matrix {
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
	default:
		return nil, fmt.Errorf("unknown matrix %q (want default or full)", opts.Matrix)
	}
	var out []Pairing
	for _, pr := range pairs {
		out = append(out, Journeys(pr.host, pr.client, opts)...)
	}
	return out, nil
}

// Journeys pairs host and client on every journey of opts whose client kind the client build
// has a driver for (and that --kind selects). A build that failed has no drivers to look at:
// its pairings stay and become errors, so a broken tag is reported, not skipped.
func Journeys(host, client *Build, opts PlanOptions) []Pairing {
	var out []Pairing
	for _, j := range opts.Journeys {
		if len(opts.Kinds) > 0 && !slices.Contains(opts.Kinds, j.Kind) {
			continue
		}
		if _, ok := client.Clients[j.Kind]; !ok && client.Err == nil {
			continue
		}
		out = append(out, Pairing{Host: host, Client: client, Kind: j.Kind, Journey: j})
	}
	return out
}

// PrintPlan writes the plan as a numbered list, numbering from first.
func PrintPlan(w io.Writer, plan []Pairing, first int) {
	for i, p := range plan {
		ref := ""
		if p.Host == p.Client {
			ref = "  (reference)"
		}
		fmt.Fprintf(w, "%3d. host %s × %s client %s · %s%s\n", first+i, p.Host, p.Kind, p.Client, p.Journey.Name, ref)
	}
}
