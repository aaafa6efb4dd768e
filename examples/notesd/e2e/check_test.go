package e2e_test

import (
	"encoding/json"
	"fmt"
	"slices"
)

// frameName names a JSON-RPC value the way the contract's text codec does: by /method, else
// by which of result and error it carries.
func frameName(v map[string]any) string {
	if m, ok := v["method"].(string); ok {
		return m
	}
	for _, k := range []string{"result", "error"} {
		if _, ok := v[k]; ok {
			return k
		}
	}
	return ""
}

// lookup finds a frame in a contract by type, direction and (for a client) kind.
func lookup(c map[string]any, typ, dir, kind string) map[string]any {
	ch := c["channels"].([]any)[0].(map[string]any)
	for _, f := range ch["frames"].([]any) {
		f := f.(map[string]any)
		if f["type"] != typ || f["direction"] != dir {
			continue
		}
		if kinds, ok := f["kinds"].([]any); ok && kind != "" && !slices.Contains(kinds, any(kind)) {
			continue
		}
		return f
	}
	return nil
}

// checkFields holds a value to a contract's fields: required fields present, types.
func checkFields(v any, fields map[string]any, at string, problems *[]string) {
	obj, ok := v.(map[string]any)
	if !ok {
		*problems = append(*problems, fmt.Sprintf("%s is not an object", at))
		return
	}
	for name, spec := range fields {
		spec := spec.(map[string]any)
		val, present := obj[name]
		switch {
		case !present && spec["required"] == true:
			*problems = append(*problems, fmt.Sprintf("%s/%s is missing", at, name))
		case !present:
		default:
			if t, ok := spec["type"].(string); ok && !hasType(val, t) {
				*problems = append(*problems, fmt.Sprintf("%s/%s is %v, want %s", at, name, val, t))
			}
			if sub, ok := spec["fields"].(map[string]any); ok {
				checkFields(val, sub, at+"/"+name, problems)
			}
			if items, ok := spec["items"].(map[string]any); ok {
				for i, e := range val.([]any) {
					if t, ok := items["type"].(string); ok && !hasType(e, t) {
						*problems = append(*problems, fmt.Sprintf("%s/%s/%d is %v, want %s", at, name, i, e, t))
					}
				}
			}
		}
	}
}

func hasType(v any, t string) bool {
	switch t {
	case "string":
		_, ok := v.(string)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == float64(int64(f))
	case "number":
		_, ok := v.(float64)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	}
	return true
}

// check holds every message of a pairing to the receiving build's contract: the frame is
// known in that direction (and, for the client, to its kind), its fields are as the
// contract says, and a gated frame is sent only after its capability was negotiated.
func check(msgs []message, host, client build, kind string) []string {
	var problems []string
	negotiated := map[string]bool{}
	for i, m := range msgs {
		var raw any
		if err := json.Unmarshal([]byte(m.text), &raw); err != nil {
			problems = append(problems, fmt.Sprintf("#%d %s is not JSON: %v", i, m.dir, err))
			continue
		}
		values := []any{raw}
		if arr, ok := raw.([]any); ok {
			values = arr
		}
		receiver, sender, rkind := host, client, ""
		if m.dir == "H>C" {
			receiver, sender, rkind = client, host, kind
		}
		for _, v := range values {
			obj, _ := v.(map[string]any)
			name := frameName(obj)
			at := fmt.Sprintf("#%d %s %s", i, m.dir, name)
			if sf := lookup(sender.contract, name, m.dir, ""); sf != nil {
				if gates, ok := sf["gates"].(map[string]any); ok {
					if capability, ok := gates["*"].(string); ok && !negotiated[capability] {
						problems = append(problems, fmt.Sprintf("%s: gated on %s, which was not negotiated", at, capability))
					}
				}
			}
			f := lookup(receiver.contract, name, m.dir, rkind)
			if f == nil {
				problems = append(problems, fmt.Sprintf("%s: not in %s's contract for %q", at, receiver.name, rkind))
				continue
			}
			if fields, ok := f["fields"].(map[string]any); ok {
				checkFields(obj, fields, at, &problems)
			}
			if res, ok := obj["result"].(map[string]any); ok && m.dir == "H>C" {
				if caps, ok := res["capabilities"].([]any); ok {
					for _, c := range caps {
						negotiated[c.(string)] = true
					}
				}
			}
		}
	}
	return problems
}
