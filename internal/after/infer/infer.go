// Package infer drafts a wire contract (docs/contract.md, contract version 2) from recorded
// traffic: for a team that has recordings of its product's WebSocket frames (a run's report,
// skewtest record's fixtures) but no contract yet. skewtest contract infer is its command.
//
// The draft is a guess, made per WebSocket path from the frames alone:
//
//   - paths whose messages are cut and named alike are one channel (else one per path);
//   - text (or binary) messages that are all JSON objects get a JSON codec: a json-array or
//     newline batch when messages hold several, named as guessNaming says (a discriminator,
//     JSON-RPC's /method and result/error, key presence, {});
//   - other messages get a fixed-length binary header found by byte statistics across them
//     (guessHeader): a length field that equals every payload's size, its constants, its type
//     byte, its 4-byte counters; each opcode's payload is empty, JSON, text or bytes;
//   - one frame per channel, direction and type or opcode (named by the type, or Opcode<N>),
//     with the top-level keys of its JSON objects (and their nested ones): their JSON type,
//     required when every frame carried them, an enum of the strings seen when few and
//     repeated.
//
// Every guess carries how many frames support it. A contract is read strictly (an unknown key
// is an error, so that a misspelt key cannot silently mean nothing), and a draft must parse
// with contract.Parse unchanged: so the support counts are not in the draft but in its
// companion report (Result.Report, DRAFT beside the file), and the draft says it is one in
// the two informational keys a contract has, product and version. Draft checks that the
// draft parses and reads every frame it was drafted from (samples.Decode); Result.Unread
// lists those it does not, which is a shape the heuristics do not cover.
//
// Against compares a hand-written contract with the traffic: frames the traffic has that the
// contract lacks or cannot read, frames, fields and enum values the contract declares that
// the traffic never showed, and values that break its fields.
//
// Not inferred: the protocol window, capabilities, features, gates, negotiation, client
// kinds (the report says which kinds each frame was seen with), commands, invariants,
// streams, protobuf and byte-stream framings.
package infer

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// Product is the product a draft names: a human who opens it sees it is a draft.
const Product = "DRAFT inferred from recorded traffic by skewtest contract infer: review every frame before use"

// Support is what one guess rests on: Count of Of frames (or messages, or values) fit it.
type Support struct {
	What      string
	Count, Of int
}

func (s Support) String() string {
	if s.Of == 0 {
		return s.What
	}
	return fmt.Sprintf("%s (%d of %d)", s.What, s.Count, s.Of)
}

// Result is a draft contract and what supports it.
type Result struct {
	// Document is the draft, a contract version 2 file (JSON).
	Document []byte
	// Contract is Document as contract.Parse reads it.
	Contract *contract.Contract
	// Recordings and Messages count what it was drafted from; Builds are the recorded
	// builds' labels.
	Recordings, Messages int
	Builds               []string
	// Unread lists the recorded frames the draft does not read, each with its recording
	// and why (samples.Decode); none when the heuristics fit the traffic.
	Unread []string

	channels []*channel
}

// Draft drafts a contract from recordings. A recording set without a WebSocket message is
// a *usage.Error; an error otherwise means the draft is not a valid contract (a bug).
func Draft(recs []Recording) (*Result, error) {
	msgs := messages(recs)
	if len(msgs) == 0 {
		return nil, usage.Errorf("the recordings hold no WebSocket message to draft a contract from")
	}
	r := &Result{Recordings: len(recs), Messages: len(msgs), Builds: builds(recs)}
	labels := map[string]bool{}
	for _, rec := range recs {
		for _, b := range []transcript.Build{rec.T.Host, rec.T.Client} {
			labels[b.Label], labels[b.Revision] = true, true
		}
	}
	delete(labels, "")
	g := &guesser{fields: fieldGuesser{labels: labels}}
	r.channels = g.channels(msgs)
	doc := struct {
		ContractVersion int        `json:"contractVersion"`
		Product         string     `json:"product"`
		Version         string     `json:"version"`
		Channels        []*channel `json:"channels"`
	}{contract.Version, Product, draftVersion(r.Builds), r.channels}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // directions read "H>C"
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	r.Document = b.Bytes()
	c, err := contract.Parse("draft", r.Document)
	if err != nil {
		return nil, fmt.Errorf("the draft is not a valid contract: %w", err)
	}
	r.Contract = c
	r.Unread = unread(c, recs)
	return r, nil
}

// draftVersion is the draft's version: a draft, of which builds.
func draftVersion(builds []string) string {
	switch {
	case len(builds) == 0:
		return "draft"
	case len(builds) <= 3:
		return "draft of " + strings.Join(builds, ", ")
	}
	return fmt.Sprintf("draft of %d builds", len(builds))
}

// builds are the recorded builds' labels, sorted.
func builds(recs []Recording) []string {
	var out []string
	for _, r := range recs {
		for _, l := range []string{r.T.Host.Label, r.T.Client.Label} {
			if l != "" && !slices.Contains(out, l) {
				out = append(out, l)
			}
		}
	}
	slices.Sort(out)
	return out
}

// unread decodes every recorded frame with c, as the pairing's receiver would (each
// recording on its own: its connections are its own), and lists those c does not read.
func unread(c *contract.Contract, recs []Recording) []string {
	var out []string
	for _, r := range recs {
		_, un := samples.Decode(c, frames(r.T), r.T.Kind)
		for _, u := range un {
			out = append(out, r.Path+": "+u)
		}
	}
	return out
}

// frames are a transcript's frames as their senders wrote them, without what was read from
// them when they were recorded.
func frames(t *transcript.Transcript) []transcript.Frame {
	out := make([]transcript.Frame, 0, len(t.Frames))
	for _, f := range t.Frames {
		f.Data, f.Original, f.Rewrite = sent(f), nil, ""
		f.Read, f.Decoded = nil, nil
		out = append(out, f)
	}
	return out
}
