package contract

import (
	"fmt"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// Field types.
const (
	TypeString  = "string"
	TypeNumber  = "number"
	TypeInteger = "integer"
	TypeBoolean = "boolean"
	TypeObject  = "object"
	TypeArray   = "array"
	TypeNull    = "null"
)

// Field is one field of a frame's payload. JSON and protobuf payloads (their JSON form) are
// checked by Type, Required, Enum, Fields (an object's fields) and Items (an array's
// elements); a binary payload's fields are read by Offset and Encoding first.
type Field struct {
	// Type is string, number, integer, boolean, object, array or null; empty means any.
	Type     string `json:"type,omitempty"`
	Required bool   `json:"required,omitempty"`
	// Enum lists the values the field may take (any JSON values).
	Enum   []any            `json:"enum,omitempty"`
	Fields map[string]Field `json:"fields,omitempty"`
	Items  *Field           `json:"items,omitempty"`

	// Offset, Encoding, Mask and Shift place a field of a binary payload (payload "binary").
	Offset   *int   `json:"offset,omitempty"`
	Encoding string `json:"encoding,omitempty"`
	Mask     uint64 `json:"mask,omitempty"`
	Shift    uint   `json:"shift,omitempty"`

	// Since and Until bound the negotiated protocol versions the field belongs to (0: no
	// bound): a field since 5 is not part of the frame between peers that negotiated 4.
	Since int `json:"since,omitempty"`
	Until int `json:"until,omitempty"`
}

// Versions is the range of negotiated protocol versions the field belongs to.
func (f Field) Versions() Versions { return Versions{f.Since, f.Until} }

// FieldProblem is one way a frame's value breaks its contract.
type FieldProblem struct {
	Pointer string // RFC 6901 pointer to the value, "/items/2/name"
	Rule    string // "required", "type" or "enum"
	Got     any    // the value found (nil when missing)
	Want    string // human text: "present", "a number", `one of "a", "b"`
}

func (p FieldProblem) String() string {
	where := p.Pointer
	if where == "" {
		where = "the frame"
	}
	if p.Rule == "required" {
		return fmt.Sprintf("%s is missing", where)
	}
	return fmt.Sprintf("%s is %s, want %s", where, describe(p.Got), p.Want)
}

// CheckFields checks a decoded frame's value (Decoded.Value) against the frame's fields:
// required fields present, types and enums, nested objects and arrays. Fields the contract
// does not list are never a problem (receivers strip them). Problems come in a stable
// order: fields by name, each followed by the problems inside it.
func (f *Frame) CheckFields(value any) []FieldProblem {
	if len(f.Fields) == 0 {
		return nil
	}
	var out []FieldProblem
	obj, ok := value.(map[string]any)
	if !ok {
		return []FieldProblem{{Pointer: "", Rule: "type", Got: value, Want: "an object"}}
	}
	checkObject(obj, f.Fields, "", &out)
	return out
}

func checkObject(obj map[string]any, fields map[string]Field, ptr string, out *[]FieldProblem) {
	names := make([]string, 0, len(fields))
	for name := range fields {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		fd := fields[name]
		p := child(ptr, name)
		v, ok := obj[name]
		if !ok {
			if fd.Required {
				*out = append(*out, FieldProblem{Pointer: p, Rule: "required", Want: "present"})
			}
			continue
		}
		checkValue(v, &fd, p, out)
	}
}

func checkValue(v any, fd *Field, ptr string, out *[]FieldProblem) {
	if fd.Type != "" && !hasType(v, fd.Type) {
		*out = append(*out, FieldProblem{Pointer: ptr, Rule: "type", Got: v, Want: typeText(fd.Type)})
		return
	}
	if len(fd.Enum) > 0 && !inEnum(v, fd.Enum) {
		*out = append(*out, FieldProblem{Pointer: ptr, Rule: "enum", Got: v, Want: enumText(fd.Enum)})
	}
	if obj, ok := v.(map[string]any); ok && len(fd.Fields) > 0 {
		checkObject(obj, fd.Fields, ptr, out)
	}
	if arr, ok := v.([]any); ok && fd.Items != nil {
		for i, e := range arr {
			checkValue(e, fd.Items, child(ptr, i), out)
		}
	}
}

func hasType(v any, t string) bool {
	switch t {
	case TypeString:
		_, ok := v.(string)
		return ok
	case TypeNumber:
		_, ok := number(v)
		return ok
	case TypeInteger:
		n, ok := number(v)
		return ok && n == math.Trunc(n) && !math.IsInf(n, 0)
	case TypeBoolean:
		_, ok := v.(bool)
		return ok
	case TypeObject:
		_, ok := v.(map[string]any)
		return ok
	case TypeArray:
		_, ok := v.([]any)
		return ok
	case TypeNull:
		return v == nil
	}
	return true
}

// number reads a JSON number whatever Go type carries it.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case int:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint64:
		return float64(v), true
	}
	return 0, false
}

func inEnum(v any, enum []any) bool {
	for _, e := range enum {
		if a, ok := number(v); ok {
			if b, ok := number(e); ok && a == b {
				return true
			}
			continue
		}
		if reflect.DeepEqual(v, e) {
			return true
		}
	}
	return false
}

func typeText(t string) string {
	switch t {
	case TypeInteger, TypeObject, TypeArray:
		return "an " + t
	case TypeNull:
		return "null"
	}
	return "a " + t
}

func enumText(enum []any) string {
	parts := make([]string, len(enum))
	for i, e := range enum {
		switch e := e.(type) {
		case string:
			parts[i] = strconv.Quote(e)
		case nil:
			parts[i] = "null"
		default:
			parts[i] = fmt.Sprint(e)
		}
	}
	return "one of " + strings.Join(parts, ", ")
}
