package contract

import (
	"fmt"
	"slices"
	"strings"
)

// The evolution rules Diff checks, by their stable ids. Ids are only ever added; a caller
// may allow any of them (DiffOptions.Allowed, Allowance).
const (
	RuleProtocolCut           = "protocol-cut"
	RuleProtocolLowered       = "protocol-version-lowered"
	RuleChannelRemoved        = "channel-removed"
	RulePathRemoved           = "path-removed"
	RuleFramingChanged        = "framing-changed"
	RuleFrameRemoved          = "frame-removed"
	RuleOpcodeRenumbered      = "opcode-renumbered"
	RuleFrameRenamed          = "frame-renamed"
	RuleDirectionChanged      = "direction-changed"
	RulePayloadChanged        = "payload-changed"
	RuleFrameKindRemoved      = "frame-kind-removed"
	RuleGateRemoved           = "gate-removed"
	RuleGateChanged           = "gate-changed"
	RuleFieldRemoved          = "field-removed"
	RuleFieldRequiredAdded    = "field-required-added"
	RuleFieldMadeRequired     = "field-made-required"
	RuleFieldMadeOptional     = "field-made-optional"
	RuleTypeChanged           = "type-changed"
	RuleEnumNarrowed          = "enum-narrowed"
	RuleFieldLayoutChanged    = "field-layout-changed"
	RuleCapabilityRemoved     = "capability-removed"
	RuleFeatureRemoved        = "feature-removed"
	RuleCommandVersionDropped = "command-version-dropped"
	RuleGateAdded             = "gate-added"
	// RuleCommandVersionsGap is about the newer contract alone: it is checked whatever the
	// older one says, across a protocol cut too.
	RuleCommandVersionsGap         = "command-versions-gap"
	RuleCommandVersionUndocumented = "command-version-undocumented"
	RuleQuietShortened             = "quiet-shortened"
)

// Rule describes one evolution rule: its id, which contract a violation's pointer is in,
// and what it forbids. Rules is the one table of them: Diff fires only these ids, and
// ParseAllowance and the documentation read it.
type Rule struct {
	ID string
	// In is the contract a violation's Pointer, File and Line are in: the newer one, or the
	// older one for something the newer contract no longer has.
	In   Side
	Text string
}

// Rules lists every evolution rule, in the order docs/contract.md shows them.
var Rules = []Rule{
	{RuleProtocolCut, SideNew, "the newer protocol.minCompatible is above the older protocol.version: the builds refuse each other (a deliberate cut; allow it when declared). No other rule between the two is checked across a cut"},
	{RuleProtocolLowered, SideNew, "protocol.version went down"},
	{RuleChannelRemoved, SideOld, "no channel has the older channel's name or any of its paths"},
	{RulePathRemoved, SideOld, "a WebSocket path is served by no channel any more"},
	{RuleFramingChanged, SideNew, "how messages are cut or frames named changed: a codec removed or of another kind, batch, stream, a reserved header field or header constant, JSON naming rule, protobuf message"},
	{RuleFrameRemoved, SideOld, "a frame (by opcode or type, per channel and direction) is gone"},
	{RuleOpcodeRenumbered, SideNew, "the frame of that name now has another opcode (or type)"},
	{RuleFrameRenamed, SideNew, "the frame with that opcode (or type) has another name"},
	{RuleDirectionChanged, SideNew, "a frame no longer travels in a direction it did (H>C, C>H; both is either)"},
	{RulePayloadChanged, SideNew, "a frame's payload kind changed (text, json, empty, binary, protobuf)"},
	{RuleFrameKindRemoved, SideNew, "a client kind that knew a frame no longer does"},
	{RuleGateRemoved, SideOld, "a frame that was sent on a path only once a capability or feature was negotiated is sent without it: older receivers get it unnegotiated"},
	{RuleGateAdded, SideNew, "a frame that shipped ungated on a path is gated there by a capability or feature the older build does not negotiate: the gate reads the installed base as incapable and downgrades it"},
	{RuleGateChanged, SideNew, "a frame is gated on a path by another capability or feature"},
	{RuleFieldRemoved, SideOld, "a field is no longer listed (at any depth)"},
	{RuleFieldRequiredAdded, SideNew, "a new field is required: older senders do not send it"},
	{RuleFieldMadeRequired, SideNew, "an optional field is required: older senders may leave it out"},
	{RuleFieldMadeOptional, SideNew, "a required field is optional: newer senders may leave out what older receivers require"},
	{RuleTypeChanged, SideNew, "a field's type changed, at any depth (fields, items); a type added to or dropped from a field is a change; a protobuf message's field (by number, at any depth) of another kind or cardinality in the two builds' descriptors"},
	{RuleEnumNarrowed, SideNew, "an enum lost a value, or a field without an enum got one"},
	{RuleFieldLayoutChanged, SideNew, "a binary payload field moved (offset, encoding, mask, shift)"},
	{RuleCapabilityRemoved, SideOld, "a capability is gone"},
	{RuleFeatureRemoved, SideOld, "a feature is gone"},
	{RuleCommandVersionDropped, SideOld, "a command version is gone (a command removed drops every version)"},
	{RuleCommandVersionUndocumented, SideNew, "a command version above 1 that the older contract does not list has no migration text"},
	{RuleQuietShortened, SideNew, "a channel's quiet period is shorter, or no longer declared: a newer peer may close as idle a connection an older peer leaves quiet for as long as it was promised"},
	{RuleCommandVersionsGap, SideNew, "a command of the newer contract lists versions with a gap (1, 2, 4): versions are contiguous. Checked on the newer contract alone, across a protocol cut too"},
}

// RuleByID returns the rule with that id, or nil.
func RuleByID(id string) *Rule {
	for i := range Rules {
		if Rules[i].ID == id {
			return &Rules[i]
		}
	}
	return nil
}

// Side names one contract of a Diff.
type Side string

// Sides.
const (
	SideOld Side = "old"
	SideNew Side = "new"
)

// Violation is one break of an evolution rule between an older and a newer contract.
type Violation struct {
	// Rule is the rule's stable id ("frame-removed").
	Rule string `json:"rule"`
	// Pointer is an RFC 6901 pointer into the model of the contract named by In: the newer
	// one, or the older one for something the newer one no longer has.
	Pointer string `json:"pointer"`
	In      Side   `json:"in"`
	// File and Line place Pointer in the file that contract was parsed from (Contract.File,
	// Contract.Line); empty and 0 for a contract made in Go.
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Message string `json:"message"`
}

// String is "file:line: rule: message", or "old|new contract at pointer: rule: message"
// when the place is not known.
func (v Violation) String() string {
	return v.Place() + ": " + v.Rule + ": " + v.Message
}

// Place is "file:line", or "old|new contract at pointer" when the file is not known.
func (v Violation) Place() string {
	if v.File == "" {
		return fmt.Sprintf("%s contract at %s", v.In, orRoot(v.Pointer))
	}
	return fmt.Sprintf("%s:%d", v.File, v.Line)
}

func orRoot(ptr string) string {
	if ptr == "" {
		return `""`
	}
	return ptr
}

// Allowance allows the violations of one rule: anywhere, or at a pointer and below it.
type Allowance struct {
	Rule    string
	Pointer string // "" allows the rule anywhere
}

// ParseAllowance reads "RULE" or "RULE@POINTER" (an RFC 6901 pointer into the contract the
// rule's violations point into: "field-removed@/channels/0/frames/1/fields/cwd"). An
// unknown rule is an error that lists the rules.
func ParseAllowance(s string) (Allowance, error) {
	rule, ptr, hasPtr := strings.Cut(s, "@")
	if RuleByID(rule) == nil {
		ids := make([]string, len(Rules))
		for i, r := range Rules {
			ids[i] = r.ID
		}
		return Allowance{}, fmt.Errorf("unknown rule %q (rules: %s)", rule, strings.Join(ids, ", "))
	}
	if hasPtr {
		if _, err := splitPointer(ptr); err != nil || ptr == "" {
			return Allowance{}, fmt.Errorf("%q: after @ give a JSON pointer such as /channels/0/frames/3", s)
		}
	}
	return Allowance{Rule: rule, Pointer: ptr}, nil
}

// Allows reports whether a allows v: the same rule, at the allowed pointer or below it.
func (a Allowance) Allows(v Violation) bool {
	if a.Rule != v.Rule {
		return false
	}
	return a.Pointer == "" || v.Pointer == a.Pointer || strings.HasPrefix(v.Pointer, a.Pointer+"/")
}

// String is "RULE" or "RULE@POINTER".
func (a Allowance) String() string {
	if a.Pointer == "" {
		return a.Rule
	}
	return a.Rule + "@" + a.Pointer
}

// Allowing returns a DiffOptions.Allowed that allows what any of the allowances allows.
func Allowing(as ...Allowance) func(Violation) bool {
	as = slices.Clone(as)
	return func(v Violation) bool {
		return slices.ContainsFunc(as, func(a Allowance) bool { return a.Allows(v) })
	}
}
