package session

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
)

// Kind is the JSON type of a field, as the wire contract names it.
type Kind string

// The JSON kinds a Field may have.
const (
	KindString  Kind = "string"
	KindNumber  Kind = "number"
	KindBoolean Kind = "boolean"
	KindObject  Kind = "object"
	KindArray   Kind = "array"
)

// Field describes one key of a JSON object.
type Field struct {
	Type     Kind
	Required bool
	// Enum, when set, lists the only string values the field accepts.
	Enum []string
}

// Schema describes a JSON object by its keys. It is deliberately small: required keys, their
// JSON kinds and string enums, which is what the wire contract can state.
type Schema map[string]Field

// SchemaError says which key of an object broke its schema and how.
type SchemaError struct {
	Key     string // empty when the value is not an object at all
	Problem string
}

func (e *SchemaError) Error() string {
	if e.Key == "" {
		return e.Problem
	}
	return fmt.Sprintf("%s: %s", e.Key, e.Problem)
}

// Check reports whether raw is a JSON object that satisfies s. Keys s does not define are
// ignored (tolerant parsing).
func (s Schema) Check(raw json.RawMessage) error {
	obj, err := objectKeys(raw)
	if err != nil {
		return err
	}
	return s.check(obj, false)
}

// CheckStrict is Check that also refuses keys s does not define. It exists to prove in
// tests that only a strict reader would refuse an added optional field.
func (s Schema) CheckStrict(raw json.RawMessage) error {
	obj, err := objectKeys(raw)
	if err != nil {
		return err
	}
	return s.check(obj, true)
}

// check reports the first key, in key order, that breaks s (and, when strict, the first
// key s does not define). It finds the smallest failing key without sorting the keys, which
// a schema checked for every frame would otherwise do each time.
func (s Schema) check(obj map[string]json.RawMessage, strict bool) error {
	var first *SchemaError
	for key, f := range s {
		if first != nil && key > first.Key {
			continue // a smaller key fails already
		}
		if err := f.check(key, obj[key]); err != nil {
			first = err
		}
	}
	if first != nil {
		return first
	}
	if strict {
		for key := range obj {
			if _, ok := s[key]; !ok && (first == nil || key < first.Key) {
				first = &SchemaError{Key: key, Problem: "unknown key"}
			}
		}
		if first != nil {
			return first
		}
	}
	return nil
}

// check checks the value v of key (nil when the object has no such key) against f.
func (f Field) check(key string, v json.RawMessage) *SchemaError {
	if v == nil || isNull(v) {
		if f.Required {
			return &SchemaError{Key: key, Problem: "required " + string(f.Type) + " is missing"}
		}
		return nil
	}
	if got := kindOf(v); got != f.Type {
		return &SchemaError{Key: key, Problem: fmt.Sprintf("want %s, got %s", f.Type, got)}
	}
	if len(f.Enum) > 0 {
		var str string
		if err := json.Unmarshal(v, &str); err != nil {
			return &SchemaError{Key: key, Problem: err.Error()}
		}
		if !slices.Contains(f.Enum, str) {
			return &SchemaError{Key: key, Problem: fmt.Sprintf("%q is not one of %s", str, strings.Join(f.Enum, ", "))}
		}
	}
	return nil
}

// objectKeys splits a JSON object into its keys. Anything but an object is a SchemaError.
func objectKeys(raw json.RawMessage) (map[string]json.RawMessage, error) {
	if k := kindOf(raw); k != KindObject {
		return nil, &SchemaError{Problem: fmt.Sprintf("want object, got %s", k)}
	}
	var obj map[string]json.RawMessage
	if err := json.Unmarshal(raw, &obj); err != nil {
		return nil, &SchemaError{Problem: err.Error()}
	}
	return obj, nil
}

// kindOf names the JSON kind of a raw value by its first significant byte.
func kindOf(raw json.RawMessage) Kind {
	t := bytes.TrimLeft(raw, " \t\r\n")
	if len(t) == 0 {
		return "nothing"
	}
	switch t[0] {
	case '"':
		return KindString
	case '{':
		return KindObject
	case '[':
		return KindArray
	case 't', 'f':
		return KindBoolean
	case 'n':
		return "null"
	default:
		return KindNumber
	}
}

func isNull(raw json.RawMessage) bool { return kindOf(raw) == "null" }

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
