package contract

import (
	"encoding/json"
	"math"
	"reflect"
	"sort"
	"strconv"
	"strings"
)

// nodeDecoder is implemented by the few contract types whose JSON has more than one shape.
type nodeDecoder interface {
	decodeNode(n *node, ptr string) error
}

var nodeDecoderType = reflect.TypeFor[nodeDecoder]()

// decodeStrict decodes a document node into out (a pointer) the way encoding/json would with
// DisallowUnknownFields, but every problem names the place it is at: unknown keys, values of
// the wrong type, numbers out of range. A present empty array decodes to an empty, non-nil
// slice (absent and empty can mean different things, see Capability.DeclaredBy).
func decodeStrict(n *node, ptr string, out any) error {
	return decodeValue(n, ptr, reflect.ValueOf(out).Elem())
}

func decodeValue(n *node, ptr string, v reflect.Value) error {
	if v.CanAddr() && v.Addr().Type().Implements(nodeDecoderType) {
		return v.Addr().Interface().(nodeDecoder).decodeNode(n, ptr)
	}
	switch v.Kind() {
	case reflect.Pointer:
		if n.kind == nodeNull {
			v.SetZero()
			return nil
		}
		p := reflect.New(v.Type().Elem())
		if err := decodeValue(n, ptr, p.Elem()); err != nil {
			return err
		}
		v.Set(p)
		return nil
	case reflect.Interface:
		if g := n.generic(); g != nil {
			v.Set(reflect.ValueOf(g))
		} else {
			v.SetZero()
		}
		return nil
	case reflect.Struct:
		return decodeStruct(n, ptr, v)
	case reflect.Slice:
		if n.kind == nodeNull {
			v.SetZero()
			return nil
		}
		if n.kind != nodeArray {
			return wantGot(n, ptr, "an array")
		}
		s := reflect.MakeSlice(v.Type(), len(n.arr), len(n.arr))
		for i, e := range n.arr {
			if err := decodeValue(e, child(ptr, i), s.Index(i)); err != nil {
				return err
			}
		}
		v.Set(s)
		return nil
	case reflect.Map:
		if n.kind == nodeNull {
			v.SetZero()
			return nil
		}
		if n.kind != nodeObject {
			return wantGot(n, ptr, "an object")
		}
		m := reflect.MakeMapWithSize(v.Type(), len(n.keys))
		for _, k := range n.keys {
			e := reflect.New(v.Type().Elem()).Elem()
			if err := decodeValue(n.obj[k], child(ptr, k), e); err != nil {
				return err
			}
			m.SetMapIndex(reflect.ValueOf(k).Convert(v.Type().Key()), e)
		}
		v.Set(m)
		return nil
	case reflect.String:
		if n.kind != nodeString {
			return wantGot(n, ptr, "a string")
		}
		v.SetString(n.text)
		return nil
	case reflect.Bool:
		if n.kind != nodeBool {
			return wantGot(n, ptr, "true or false")
		}
		v.SetBool(n.b)
		return nil
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		if n.kind != nodeNumber {
			return wantGot(n, ptr, "an integer")
		}
		i, err := strconv.ParseInt(n.text, 10, 64)
		if err != nil || v.OverflowInt(i) {
			return errAt(n, ptr, "%s is not an integer that fits %d bits", n.text, v.Type().Bits())
		}
		v.SetInt(i)
		return nil
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		if n.kind != nodeNumber {
			return wantGot(n, ptr, "an integer of at least 0")
		}
		u, err := strconv.ParseUint(n.text, 10, 64)
		if err != nil || v.OverflowUint(u) {
			return errAt(n, ptr, "%s is not an integer from 0 to %d", n.text, uint64(math.MaxUint64)>>(64-v.Type().Bits()))
		}
		v.SetUint(u)
		return nil
	case reflect.Float32, reflect.Float64:
		if n.kind != nodeNumber {
			return wantGot(n, ptr, "a number")
		}
		f, err := json.Number(n.text).Float64()
		if err != nil {
			return errAt(n, ptr, "%s is not a number", n.text)
		}
		v.SetFloat(f)
		return nil
	}
	return errAt(n, ptr, "cannot decode into %s", v.Type())
}

func decodeStruct(n *node, ptr string, v reflect.Value) error {
	if n.kind != nodeObject {
		return wantGot(n, ptr, "an object")
	}
	fields := jsonFields(v.Type())
	for _, k := range n.keys {
		i, ok := fields[k]
		if !ok {
			known := make([]string, 0, len(fields))
			for name := range fields {
				known = append(known, name)
			}
			sort.Strings(known)
			return &docError{off: n.koff[k], ptr: child(ptr, k),
				msg: "unknown key " + strconv.Quote(k) + " (known here: " + strings.Join(known, ", ") + ")"}
		}
		if err := decodeValue(n.obj[k], child(ptr, k), v.Field(i)); err != nil {
			return err
		}
	}
	return nil
}

// jsonFields maps the JSON names of a struct's exported fields to their indexes.
func jsonFields(t reflect.Type) map[string]int {
	out := map[string]int{}
	for i := range t.NumField() {
		f := t.Field(i)
		if !f.IsExported() {
			continue
		}
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = i
	}
	return out
}

func wantGot(n *node, ptr, want string) error {
	got := n.kind.String()
	switch n.kind {
	case nodeString:
		got += " (" + strconv.Quote(n.text) + ")"
	case nodeNumber:
		got += " (" + n.text + ")"
	}
	return errAt(n, ptr, "want %s, got %s", want, got)
}
