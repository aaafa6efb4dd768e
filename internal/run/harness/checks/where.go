package checks

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Where is one condition on what a frame carries, KEY=VALUE (a journey's `where` words):
//
//   - a KEY starting with / is a JSON pointer into the frame's value: a JSON frame, the JSON
//     payload behind a binary header, a protobuf message's JSON form (protojson names), or a
//     binary payload's fields by offset (/returnCode);
//   - any other KEY is a field of the frame's binary header by the contract's name (bit
//     fields included: flags, qos, dup; and the reserved type, stream and seq), or a binary
//     payload field the contract names.
//
// Values compare as text: a string as it is, any other value as JSON writes it (1, true,
// null, {"a":1}).
type Where struct {
	Key, Value string
}

func (w Where) String() string { return w.Key + "=" + w.Value }

// WhereWord is the word that starts a line's conditions on a frame's content.
const WhereWord = "where"

// ParseWhere reads KEY=VALUE words (a condition's `where` clause); a word without = or with
// an empty key is an error.
func ParseWhere(words []string) ([]Where, error) {
	var out []Where
	for _, w := range words {
		k, v, ok := strings.Cut(w, "=")
		if !ok || k == "" {
			return nil, fmt.Errorf("%q is not KEY=VALUE (a header field, or a JSON pointer such as /params/seq, and the value it must have)", w)
		}
		out = append(out, Where{k, v})
	}
	return out, nil
}

// CheckWhereKey says what is wrong with a where key as written (a pointer that is not one),
// or nil; whether a bare key names a field of the frame is WhereKeys' business.
func CheckWhereKey(key string) error {
	if strings.HasPrefix(key, "/") {
		if err := contract.CheckPointer(key); err != nil {
			return fmt.Errorf("%s is not a JSON pointer: %v", key, err)
		}
	}
	return nil
}

// Value is what the frame carries at a where key, as text, and whether it carries it.
func (n Named) Value(key string) (string, bool) {
	d := n.Decoded
	if strings.HasPrefix(key, "/") {
		if d.Value == nil {
			return "", false
		}
		v, ok := contract.Resolve(d.Value, key)
		if !ok {
			return "", false
		}
		return text(v), true
	}
	switch {
	case key == contract.FieldType && d.HasOpcode:
		return strconv.Itoa(d.Opcode), true
	case key == contract.FieldStream && d.HasStream:
		return strconv.FormatUint(uint64(d.Stream), 10), true
	case key == contract.FieldSeq && d.HasSeq:
		return strconv.FormatUint(d.Seq, 10), true
	}
	if v, ok := d.Header[key]; ok {
		return strconv.FormatUint(v, 10), true
	}
	// A binary payload field exists only at the versions its shape holds (Shape).
	if def := n.Shape(); def != nil && def.Payload == contract.PayloadBinary {
		if fd, ok := def.Fields[key]; ok && fd.Offset != nil {
			if m, ok := d.Value.(map[string]any); ok {
				if v, ok := m[key]; ok {
					return text(v), true
				}
			}
		}
	}
	return "", false
}

// Carries reports whether the frame carries every key=value.
func (n Named) Carries(ws []Where) bool {
	for _, w := range ws {
		if v, ok := n.Value(w.Key); !ok || v != w.Value {
			return false
		}
	}
	return true
}

// text is a JSON value as a where value compares: a string as it is, else as JSON.
func text(v any) string {
	if s, ok := v.(string); ok {
		return s
	}
	b, _ := json.Marshal(v)
	return string(b)
}

// WhereKeys lists the bare keys (not pointers) a where clause may name for frames called
// name in contract c: its channel's header fields and its binary payload fields.
func WhereKeys(c *contract.Contract, name string) []string {
	if c == nil {
		return nil
	}
	var out []string
	add := func(k string) {
		if !slices.Contains(out, k) {
			out = append(out, k)
		}
	}
	for i := range c.Channels {
		ch := &c.Channels[i]
		for j := range ch.Frames {
			f := &ch.Frames[j]
			if f.Name != name {
				continue
			}
			if f.ByOpcode() && ch.Binary != nil && ch.Binary.Header != nil {
				for _, hf := range ch.Binary.Header.Fields {
					if hf.Name != contract.FieldLength {
						add(hf.Name)
					}
				}
			}
			if f.Payload == contract.PayloadBinary {
				for k, fd := range f.Fields {
					if fd.Offset != nil {
						add(k)
					}
				}
			}
		}
	}
	slices.Sort(out)
	return out
}
