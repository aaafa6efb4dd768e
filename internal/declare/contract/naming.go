package contract

import (
	"fmt"
	"strconv"
	"strings"
)

// name applies the naming rules to a JSON value (as encoding/json decodes it), in order:
// discriminator, pointer, nested (each entry in turn), keys, empty. The error says why each
// rule did not name it.
func (n *Naming) name(v any) (string, error) {
	obj, isObj := v.(map[string]any)
	var why []string
	if n.Discriminator != "" {
		switch t, ok := obj[n.Discriminator]; {
		case !isObj:
			why = append(why, fmt.Sprintf("%s, not an object with a %q discriminator", jsonClass(v), n.Discriminator))
		case !ok:
			why = append(why, fmt.Sprintf("no %q discriminator", n.Discriminator))
		default:
			if s, _ := t.(string); s != "" {
				return s, nil
			}
			why = append(why, fmt.Sprintf("the %q discriminator is %s, not a name", n.Discriminator, describe(t)))
		}
	}
	if n.Pointer != "" {
		t, ok := resolve(v, n.Pointer)
		if name := PointerName(t); ok && name != "" {
			return name, nil
		}
		if !ok {
			why = append(why, "nothing at "+n.Pointer)
		} else {
			why = append(why, fmt.Sprintf("%s is %s, not a string or number", n.Pointer, describe(t)))
		}
	}
	for _, e := range n.Nested {
		name, miss := e.name(v)
		if name != "" {
			return name, nil
		}
		why = append(why, miss)
	}
	if len(n.Keys) > 0 {
		for _, k := range n.Keys {
			if _, ok := obj[k]; ok {
				return k, nil
			}
		}
		why = append(why, "none of the keys "+strings.Join(quoteAll(n.Keys), ", ")+" is present")
	}
	if n.Empty != "" {
		if isObj && len(obj) == 0 {
			return n.Empty, nil
		}
		why = append(why, "not the empty object {}")
	}
	if len(why) == 0 {
		why = append(why, "the contract gives no naming rule")
	}
	return "", &NameError{Reasons: why}
}

// name is the frame name the entry gives a value, or else why it gives none.
func (e *Nested) name(v any) (name, miss string) {
	t, ok := resolve(v, e.Pointer)
	if !ok {
		return "", "nothing at " + e.Pointer
	}
	obj, isObj := t.(map[string]any)
	if !isObj {
		return "", fmt.Sprintf("%s is %s, not an object", e.Pointer, describe(t))
	}
	for _, k := range e.Keys {
		if _, ok := obj[k]; ok {
			return e.frameType(k), ""
		}
	}
	return "", "none of the keys " + strings.Join(quoteAll(e.Keys), ", ") + " is present at " + e.Pointer
}

// frameType is the type of the frames the entry names by key: the pointer's last reference
// token, a dot and the key ("/push" and "pub": "push.pub").
func (e *Nested) frameType(key string) string {
	toks, _ := splitPointer(e.Pointer)
	if len(toks) == 0 {
		return key
	}
	return toks[len(toks)-1] + "." + key
}

// frameTypes are the types of every frame the entry names, in the order of its keys.
func (e *Nested) frameTypes() []string {
	out := make([]string, len(e.Keys))
	for i, k := range e.Keys {
		out[i] = e.frameType(k)
	}
	return out
}

// PointerName is the name a pointer's target gives a frame: a non-empty string, or a number's
// decimal text.
func PointerName(v any) string {
	switch v := v.(type) {
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return ""
}

// jsonClass is the JSON type of a value decoded by encoding/json, with its article.
func jsonClass(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case float64:
		return "a number"
	case string:
		return "a string"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

// describe is a short human form of a value: its class, and a scalar's value.
func describe(v any) string {
	switch v := v.(type) {
	case string:
		if v == "" {
			return "the empty string"
		}
		return "the string " + strconv.Quote(v)
	case float64, bool:
		return fmt.Sprintf("%s (%v)", jsonClass(v), v)
	}
	return jsonClass(v)
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = strconv.Quote(s)
	}
	return out
}
