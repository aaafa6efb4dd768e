package checks

import (
	"bytes"
	"encoding/base64"
	"encoding/json"

	"github.com/skewtest/skewtest/contract"
	"github.com/skewtest/skewtest/harness/transcript"
)

// Item is one value an endpoint of a declared stream carried.
type Item struct {
	Value []byte
	ID    string
	Step  string
}

// stream is a declared stream with both ends resolved for this pairing: the sending role's
// build says where it reports what it sent, the receiving role's build where it reports what
// it delivered, so an observation renamed between releases is read right on each side.
type stream struct {
	name            string
	compare         string
	sent, delivered contract.Endpoint
}

// contractOf returns the contract of the build playing role.
func (in *Input) contractOf(role string) *contract.Contract {
	if role == contract.RoleHost {
		return in.Host
	}
	return in.Client
}

// Streams returns the streams either contract declares, each end from the contract of the
// build playing that end's role (else the other contract's declaration), in declaration
// order, host contract's first.
func Streams(in *Input) []stream {
	var out []stream
	seen := map[string]bool{}
	for _, c := range []*contract.Contract{in.Host, in.Client} {
		if c == nil {
			continue
		}
		for _, decl := range c.Streams {
			if seen[decl.Name] || !decl.AppliesTo(in.Transcript.Kind) {
				continue
			}
			seen[decl.Name] = true
			s := stream{name: decl.Name, compare: decl.Compare, sent: decl.Sent, delivered: decl.Delivered}
			if own := in.contractOf(decl.Sent.Role).Stream(decl.Name); own != nil {
				s.sent = own.Sent
			}
			if own := in.contractOf(decl.Delivered.Role).Stream(decl.Name); own != nil {
				s.delivered = own.Delivered
			}
			out = append(out, s)
		}
	}
	return out
}

// Values lists what an endpoint carried, in order: its observations' values, or the
// successful actions' arguments (what the journey made a driver send).
func Values(t *transcript.Transcript, e contract.Endpoint) []Item {
	role := transcript.Role(e.Role)
	var out []Item
	if len(e.Actions) > 0 {
		for _, a := range t.Actions {
			if a.Role == role && a.OK && e.Carries(a.Name, true) {
				out = append(out, itemsOf(a.Args, a.Step, e)...)
			}
		}
		return out
	}
	for _, o := range t.Observations {
		if o.Role == role && e.Carries(o.What, false) {
			out = append(out, itemsOf(o.Data, o.Step, e)...)
		}
	}
	return out
}

// lastValue is the last of Values(t, e), found from the end: only the last observation (or
// action) that carries a value is decoded, so a barrier that waits on an accumulating
// stream costs the same however long the transcript has grown.
func lastValue(t *transcript.Transcript, e contract.Endpoint) (Item, bool) {
	role := transcript.Role(e.Role)
	if len(e.Actions) > 0 {
		for i := len(t.Actions) - 1; i >= 0; i-- {
			a := t.Actions[i]
			if a.Role == role && a.OK && e.Carries(a.Name, true) {
				if items := itemsOf(a.Args, a.Step, e); len(items) > 0 {
					return items[len(items)-1], true
				}
			}
		}
		return Item{}, false
	}
	for i := len(t.Observations) - 1; i >= 0; i-- {
		o := t.Observations[i]
		if o.Role == role && e.Carries(o.What, false) {
			if items := itemsOf(o.Data, o.Step, e); len(items) > 0 {
				return items[len(items)-1], true
			}
		}
	}
	return Item{}, false
}

// itemsOf is what one observation's data (or one action's arguments) carries on endpoint e.
func itemsOf(data json.RawMessage, step string, e contract.Endpoint) []Item {
	if !whereMatches(data, e.Where) {
		return nil
	}
	var v any
	if json.Unmarshal(data, &v) != nil {
		return nil
	}
	item := func(v any) Item {
		it := Item{Step: step}
		if x, ok := contract.Resolve(v, e.ValuePointer()); ok {
			it.Value = encoded(x, e.Encoding)
		}
		if e.ID != "" {
			if id, ok := contract.Resolve(v, e.ID); ok {
				it.ID = string(encoded(id, contract.EncodingJSON))
			}
		}
		return it
	}
	if e.Each != "" {
		if arr, ok := contract.Resolve(v, e.Each); ok {
			if list, ok := arr.([]any); ok {
				out := make([]Item, 0, len(list))
				for _, el := range list {
					out = append(out, item(el))
				}
				return out
			}
		}
	}
	return []Item{item(v)}
}

// encoded turns a value into the bytes a stream compares: base64 strings decoded (the driver
// protocol's exact bytes), text strings as they are, anything else as its JSON text.
func encoded(v any, encoding string) []byte {
	if v == nil && encoding != contract.EncodingJSON {
		return nil // no bytes (Go encodes an empty []byte as null)
	}
	s, isString := v.(string)
	switch {
	case isString && (encoding == "" || encoding == contract.EncodingBase64):
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b
		}
		return []byte(s)
	case isString && encoding == contract.EncodingText:
		return []byte(s)
	}
	b, _ := json.Marshal(v)
	return b
}

// StreamText is what a role reported on the stream called what, as bytes to search (await
// ROLE WHAT text=T): the latest value for a cumulative stream's delivered end, else every
// value concatenated. ok is false when no declared stream has that name and an end of that
// role; then what is read as an observation name whose /bytes values are concatenated.
func StreamText(in *Input, role transcript.Role, what string) []byte {
	for _, s := range Streams(in) {
		if s.name != what {
			continue
		}
		for _, end := range []struct {
			e         contract.Endpoint
			delivered bool
		}{{s.delivered, true}, {s.sent, false}} {
			if end.e.Role != string(role) {
				continue
			}
			if end.delivered && s.compare == contract.CompareCumulative {
				last, ok := lastValue(in.Transcript, end.e)
				if !ok {
					return nil
				}
				return last.Value
			}
			return join(Values(in.Transcript, end.e))
		}
	}
	return join(Values(in.Transcript, contract.Endpoint{Role: string(role), Observations: []string{what}}))
}

func join(items []Item) []byte {
	var b bytes.Buffer
	for _, it := range items {
		b.Write(it.Value)
	}
	return b.Bytes()
}
