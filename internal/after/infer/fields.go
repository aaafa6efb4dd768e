package infer

import (
	"math"
	"regexp"
	"slices"
	"sort"
	"strings"
)

// Fields: the keys of a frame's JSON objects, their types, whether every frame carries them
// and, for strings of few values, those values.

// field is a field (contract.Field) the draft gives a frame, with what supports it.
type field struct {
	Type     string            `json:"type,omitempty"`
	Required bool              `json:"required,omitempty"`
	Enum     []string          `json:"enum,omitempty"`
	Fields   map[string]*field `json:"fields,omitempty"`
	Items    *field            `json:"items,omitempty"`

	present, of int            // values carrying it, of the values of its parent
	counts      map[string]int // each enum value's count
	mapLike     bool           // an object whose keys vary and whose values are alike (a map): none required
	manyKeys    bool           // an object whose values carry more keys than maxKeys: none listed
	item        bool           // an array's items
}

// Bounds of the field guesses.
const (
	maxEnum      = 8  // the most distinct strings an enum lists
	maxEnumValue = 24 // the longest string an enum lists
	minConstant  = 3  // the frame types that must carry a one-value enum's value alike
	maxDepth     = 8  // how deep fields are listed
	maxKeys      = 24 // an object whose values carry more keys than this is a map, not a record
)

// enumValue is a string an enum may list: a short word without spaces (an identifier,
// "2.0", "tools/call"), not free text, a path or an identifier's UUID.
var enumValue = regexp.MustCompile(`^[A-Za-z0-9_.:+-][A-Za-z0-9_.:/+-]*$`)

// fieldGuesser guesses fields; labels are the recorded builds' labels and revisions, which
// a payload that carries them must not turn into an enum.
type fieldGuesser struct {
	labels map[string]bool
}

// object guesses the fields of objects (the values of one frame, or of one object field);
// skip is a key left out (the one that names the frame).
func (g *fieldGuesser) object(objs []map[string]any, skip string, depth int) map[string]*field {
	if depth > maxDepth || len(objs) == 0 {
		return nil
	}
	by := map[string][]any{}
	for _, o := range objs {
		for k, v := range o {
			if k != skip {
				by[k] = append(by[k], v)
			}
		}
	}
	if len(by) == 0 {
		return nil
	}
	out := make(map[string]*field, len(by))
	for k, vals := range by {
		f := g.value(k, vals, depth)
		f.present, f.of = len(vals), len(objs)
		f.Required = f.present == f.of
		out[k] = f
	}
	return out
}

// value guesses a field from the values it took (named key; "" for an array's items).
func (g *fieldGuesser) value(key string, vals []any, depth int) *field {
	f := &field{present: len(vals), of: len(vals)}
	f.Type = typeOf(vals)
	switch f.Type {
	case "string":
		f.Enum, f.counts = g.enum(key, vals)
	case "object":
		objs := make([]map[string]any, len(vals))
		keys := map[string]bool{}
		for i, v := range vals {
			objs[i] = v.(map[string]any)
			for k := range objs[i] {
				keys[k] = true
			}
		}
		if len(keys) > maxKeys {
			f.manyKeys = true
			break
		}
		f.Fields = g.object(objs, "", depth+1)
		if looksLikeMap(objs, f.Fields) {
			for _, sub := range f.Fields {
				sub.Required = false
			}
			f.mapLike = true
		}
	case "array":
		var elems []any
		for _, v := range vals {
			elems = append(elems, v.([]any)...)
		}
		if len(elems) > 0 && depth < maxDepth {
			f.Items = g.value("", elems, depth+1)
			f.Items.item = true
		}
	}
	return f
}

// looksLikeMap reports whether objects are a map (capability, command or feature names to
// values) rather than a record: their keys differ from one object to the next and every
// value is of one type. A map's keys are listed, none required: a peer declares the names
// it knows.
func looksLikeMap(objs []map[string]any, fields map[string]*field) bool {
	if len(fields) < 2 {
		return false
	}
	typ := ""
	for _, f := range fields {
		if f.Type == "" || (typ != "" && f.Type != typ) {
			return false
		}
		typ = f.Type
	}
	for _, o := range objs[1:] {
		if len(o) != len(objs[0]) {
			return true
		}
		for k := range o {
			if _, ok := objs[0][k]; !ok {
				return true
			}
		}
	}
	return false
}

// typeOf is the JSON type every value has (integer: a number without a fraction; integers
// and other numbers together: number), or "" when they differ.
func typeOf(vals []any) string {
	types := map[string]bool{}
	for _, v := range vals {
		switch v := v.(type) {
		case nil:
			types["null"] = true
		case bool:
			types["boolean"] = true
		case float64:
			if v == math.Trunc(v) && !math.IsInf(v, 0) {
				types["integer"] = true
			} else {
				types["number"] = true
			}
		case string:
			types["string"] = true
		case []any:
			types["array"] = true
		case map[string]any:
			types["object"] = true
		}
	}
	if types["integer"] && types["number"] {
		delete(types, "integer")
	}
	if len(types) != 1 {
		return ""
	}
	for t := range types {
		return t
	}
	return ""
}

// enum lists the strings a field took when they are few (at most 8) and seen again and
// again (at least twice each on average, three times in all), short words rather than
// text or paths, not an identifier's (a key called id or ending in Id, ID or _id) and none a
// recorded build's label or revision (a version a payload carries changes with every
// release). A field that took one value keeps its enum only when it is the channel's
// constant (oneValueEnums). It also returns the words' counts, for oneValueEnums, when the
// field took such words only.
func (g *fieldGuesser) enum(key string, vals []any) ([]string, map[string]int) {
	if key == "id" || strings.HasSuffix(key, "Id") || strings.HasSuffix(key, "ID") || strings.HasSuffix(key, "_id") {
		return nil, nil
	}
	counts := map[string]int{}
	for _, v := range vals {
		s := v.(string)
		if len(s) > maxEnumValue || !enumValue.MatchString(s) || g.labels[s] {
			return nil, nil
		}
		counts[s]++
	}
	if len(counts) > maxEnum || len(vals) < 3 || len(vals) < 2*len(counts) {
		return nil, counts
	}
	enum := make([]string, 0, len(counts))
	for s := range counts {
		enum = append(enum, s)
	}
	sort.Slice(enum, func(i, j int) bool {
		if counts[enum[i]] != counts[enum[j]] {
			return counts[enum[i]] > counts[enum[j]]
		}
		return enum[i] < enum[j]
	})
	return enum, counts
}

// fieldLine is one field of a frame for the report: its pointer and what supports it.
type fieldLine struct {
	pointer string
	f       *field
}

// flatten lists fields depth first, by name, with their pointers (array items: /*).
func flatten(fields map[string]*field, prefix string) []fieldLine {
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	slices.Sort(names)
	var out []fieldLine
	for _, k := range names {
		f := fields[k]
		p := prefix + "/" + escapeToken(k)
		out = append(out, fieldLine{p, f})
		out = append(out, flatten(f.Fields, p)...)
		for it, ip := f.Items, p+"/*"; it != nil; it, ip = it.Items, ip+"/*" {
			out = append(out, fieldLine{ip, it})
			out = append(out, flatten(it.Fields, ip)...)
		}
	}
	return out
}

// oneValueEnums keeps an enum of one value only where it is the channel's constant: a
// top-level field that frames of at least three types carry, every one always with the
// same value (JSON-RPC's "jsonrpc": "2.0"); those frames all get the enum, however few times
// each was seen. Elsewhere one value seen is no evidence of the only value there is (a
// reason, a kind, an error code the journeys happened to cause).
func oneValueEnums(frames []*frame) {
	type constant struct {
		value       string
		types, seen int
		broken      bool
	}
	consts := map[string]*constant{}
	for _, f := range frames {
		for k, fd := range f.Fields {
			c := consts[k]
			if c == nil {
				c = &constant{}
				consts[k] = c
			}
			if len(fd.counts) != 1 || !fd.Required {
				c.broken = true
				continue
			}
			for v, n := range fd.counts {
				if c.value != "" && c.value != v {
					c.broken = true
				}
				c.value, c.types, c.seen = v, c.types+1, c.seen+n
			}
		}
	}
	var drop func(fields map[string]*field)
	drop = func(fields map[string]*field) {
		for _, fd := range fields {
			if len(fd.Enum) == 1 {
				fd.Enum = nil
			}
			drop(fd.Fields)
			for it := fd.Items; it != nil; it = it.Items {
				if len(it.Enum) == 1 {
					it.Enum = nil
				}
				drop(it.Fields)
			}
		}
	}
	for _, f := range frames {
		drop(f.Fields)
		for k, fd := range f.Fields {
			if c := consts[k]; !c.broken && c.types >= minConstant && c.seen >= minConstant {
				fd.Enum = []string{c.value}
			}
		}
	}
}
