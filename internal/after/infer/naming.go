package infer

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// JSON messages: how they are batched and how their objects name their frames.

// jsonObject is one JSON frame of a message.
type jsonObject struct {
	m *message
	v map[string]any
}

// splitJSON cuts a message into its JSON objects: one object (batch ""), a non-empty array
// of objects ("json-array"), or objects one per line ("newline"). ok is false for anything
// else.
func splitJSON(data []byte) (objs []map[string]any, batch string, ok bool) {
	var v any
	if jsonv1.Unmarshal(data, &v) == nil {
		switch v := v.(type) {
		case map[string]any:
			return []map[string]any{v}, "", true
		case []any:
			for _, e := range v {
				o, isObj := e.(map[string]any)
				if !isObj {
					return nil, "", false
				}
				objs = append(objs, o)
			}
			return objs, "json-array", len(objs) > 0
		}
		return nil, "", false
	}
	objs, ok = jsonLines(data)
	return objs, "newline", ok
}

// jsonLines reads a message as JSON lines, as the newline batch cuts it: blank lines
// skipped, a trailing \r dropped, every other line an object.
func jsonLines(data []byte) ([]map[string]any, bool) {
	var objs []map[string]any
	for line := range bytes.SplitSeq(data, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		var v any
		if jsonv1.Unmarshal(bytes.TrimSuffix(line, []byte("\r")), &v) != nil {
			return nil, false
		}
		o, isObj := v.(map[string]any)
		if !isObj {
			return nil, false
		}
		objs = append(objs, o)
	}
	return objs, len(objs) > 0
}

// readJSON reads every message as JSON objects under one batch rule; ok is false when some
// message is not JSON objects, or when messages need two batch rules (an array here, JSON
// lines there).
func readJSON(msgs []message) (objs []jsonObject, batch string, ok bool) {
	for i := range msgs {
		_, b, ok := splitJSON(msgs[i].data)
		if !ok {
			return nil, "", false
		}
		if b != "" && batch != "" && b != batch {
			return nil, "", false
		}
		if b != "" {
			batch = b
		}
	}
	for i := range msgs {
		m := &msgs[i]
		var vs []map[string]any
		if batch == "newline" {
			vs, ok = jsonLines(m.data) // a pretty-printed object does not survive the newline rule
		} else {
			vs, _, ok = splitJSON(m.data)
		}
		if !ok {
			return nil, "", false
		}
		for _, v := range vs {
			objs = append(objs, jsonObject{m, v})
		}
	}
	return objs, batch, true
}

// naming is a JSON naming rule (contract.Naming) the draft gives a codec.
type naming struct {
	Discriminator string   `json:"discriminator,omitempty"`
	Pointer       string   `json:"pointer,omitempty"`
	Keys          []string `json:"keys,omitempty"`
	Empty         string   `json:"empty,omitempty"`
}

// name is the frame type the rule gives an object, as contract's JSON codec names it
// (discriminator, pointer, keys, empty), or "" when it names none.
func (n *naming) name(v map[string]any) string {
	if n.Discriminator != "" {
		if s, _ := v[n.Discriminator].(string); s != "" {
			return s
		}
	}
	if n.Pointer != "" {
		if s := contract.PointerName(v[unescapeToken(strings.TrimPrefix(n.Pointer, "/"))]); s != "" {
			return s
		}
	}
	for _, k := range n.Keys {
		if _, ok := v[k]; ok {
			return k
		}
	}
	if n.Empty != "" && len(v) == 0 {
		return n.Empty
	}
	return ""
}

// wellKnown are the keys protocols name their frames by; among keys that fit, they are
// preferred.
var wellKnown = []string{"type", "op", "kind", "event", "action", "cmd", "command", "method", "msg", "t"}

// discriminator is a candidate top-level key for naming frames.
type discriminator struct {
	key      string
	covered  int            // objects where it holds a name
	values   map[string]int // name → objects
	numbers  bool           // some value is a number: a pointer names it, a discriminator does not
	entropy  float64        // how uncertain an object's key set stays once its name is known
	wellKnow bool
}

// guessNaming picks how objects name their frames:
//
//   - JSON-RPC 2.0 (every object carries "jsonrpc"): requests and notifications by the
//     pointer /method, replies by the key they carry (result, error);
//   - else a discriminator: a top-level key holding a string (or a number: a pointer) in at
//     least 90% of the objects, with at least two values (one, for a well-known name every
//     object carries), few of them (at most 64, and at most half the objects once there
//     are 16): well-known names (type, op, kind, event…) first, then the one whose value
//     best predicts the object's key set;
//   - objects left unnamed by key presence: again and again, the key present in most of
//     them but not in all (keys present in every one would name them all alike), keys that
//     always hold an object first (a command's body: {"id": 1, "connect": {…}});
//   - the empty object {} is "empty".
func guessNaming(objs []jsonObject) (naming, []Support) {
	var n naming
	var how []Support
	nonEmpty := 0
	rpc := 0
	for _, o := range objs {
		if len(o.v) > 0 {
			nonEmpty++
		}
		if _, ok := o.v["jsonrpc"]; ok {
			rpc++
		}
	}
	switch {
	case nonEmpty > 0 && rpc == nonEmpty:
		n.Pointer, n.Keys = "/method", []string{"result", "error"}
		how = append(how, Support{What: `JSON-RPC 2.0: every object carries "jsonrpc"`, Count: rpc, Of: nonEmpty})
	default:
		if d := bestDiscriminator(objs, nonEmpty); d != nil {
			if d.numbers {
				n.Pointer = "/" + escapeToken(d.key)
			} else {
				n.Discriminator = d.key
			}
			how = append(how, Support{What: fmt.Sprintf("%q names %d frame types", d.key, len(d.values)), Count: d.covered, Of: nonEmpty})
		}
	}
	var left []map[string]any
	for _, o := range objs {
		if len(o.v) > 0 && n.name(o.v) == "" {
			left = append(left, o.v)
		}
	}
	n.Keys = append(n.Keys, keyCover(left, n.Keys)...)
	for _, k := range n.Keys {
		c := 0
		for _, o := range objs {
			if n.name(o.v) == k && len(o.v) > 0 {
				if _, ok := o.v[k]; ok {
					c++
				}
			}
		}
		how = append(how, Support{What: fmt.Sprintf("key %q present", k), Count: c, Of: nonEmpty})
	}
	if empty := len(objs) - nonEmpty; empty > 0 {
		n.Empty = "empty"
		how = append(how, Support{What: "the empty object {}", Count: empty, Of: len(objs)})
	}
	return n, how
}

func bestDiscriminator(objs []jsonObject, nonEmpty int) *discriminator {
	cands := map[string]*discriminator{}
	for _, o := range objs {
		for k, v := range o.v {
			name := contract.PointerName(v)
			if name == "" {
				continue
			}
			d := cands[k]
			if d == nil {
				d = &discriminator{key: k, values: map[string]int{}, wellKnow: slices.Contains(wellKnown, k)}
				cands[k] = d
			}
			d.covered++
			d.values[name]++
			if _, isNum := v.(float64); isNum {
				d.numbers = true
			}
		}
	}
	var fit []*discriminator
	for _, d := range cands {
		few := len(d.values) <= 64 && (d.covered < 16 || 2*len(d.values) <= d.covered)
		if 10*d.covered >= 9*nonEmpty && (len(d.values) >= 2 || d.wellKnow && d.covered == nonEmpty) && few {
			d.entropy = keySetEntropy(objs, d.key)
			fit = append(fit, d)
		}
	}
	if len(fit) == 0 {
		return nil
	}
	sort.Slice(fit, func(i, j int) bool {
		a, b := fit[i], fit[j]
		switch {
		case a.wellKnow != b.wellKnow:
			return a.wellKnow
		case a.covered != b.covered:
			return a.covered > b.covered
		case math.Abs(a.entropy-b.entropy) > 1e-9:
			return a.entropy < b.entropy
		case len(a.values) != len(b.values):
			return len(a.values) < len(b.values)
		}
		return a.key < b.key
	})
	return fit[0]
}

// keySetEntropy is the conditional entropy of an object's set of keys given its value at
// key: 0 when every frame type has one shape.
func keySetEntropy(objs []jsonObject, key string) float64 {
	by := map[string]map[string]int{}
	total := 0
	for _, o := range objs {
		name := contract.PointerName(o.v[key])
		if name == "" {
			continue
		}
		keys := make([]string, 0, len(o.v))
		for k := range o.v {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if by[name] == nil {
			by[name] = map[string]int{}
		}
		by[name][strings.Join(keys, "\x00")]++
		total++
	}
	h := 0.0
	for _, sets := range by {
		n := 0
		for _, c := range sets {
			n += c
		}
		for _, c := range sets {
			p := float64(c) / float64(n)
			h -= float64(n) / float64(total) * p * math.Log2(p)
		}
	}
	return h
}

// keyCover chooses keys that name the objects by presence: each time the key present in
// most of the objects still unnamed but not in all of them (keys that always hold an object
// first), so that the keys tell frames apart; when every key left is in all or none of
// them, the first such key (again preferring one holding an object) names the rest alike.
// taken are keys named before.
func keyCover(left []map[string]any, taken []string) []string {
	var keys []string
	for len(left) > 0 {
		count, objects := map[string]int{}, map[string]int{}
		for _, o := range left {
			for k, v := range o {
				if slices.Contains(taken, k) || slices.Contains(keys, k) {
					continue
				}
				count[k]++
				if _, ok := v.(map[string]any); ok {
					objects[k]++
				}
			}
		}
		if len(count) == 0 {
			break // objects whose keys all name frames already: cannot happen with first-present naming
		}
		better := func(k, best string) bool {
			switch ko, bo := objects[k] == count[k], objects[best] == count[best]; {
			case best == "":
				return true
			case ko != bo:
				return ko
			case count[k] != count[best]:
				return count[k] > count[best]
			}
			return k < best
		}
		best := ""
		for k, c := range count {
			if c < len(left) && better(k, best) {
				best = k
			}
		}
		if best == "" {
			for k := range count {
				if better(k, best) {
					best = k
				}
			}
		}
		keys = append(keys, best)
		left = slices.DeleteFunc(left, func(o map[string]any) bool {
			_, ok := o[best]
			return ok
		})
	}
	return keys
}

// escapeToken escapes a JSON pointer reference token (RFC 6901).
func escapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}

func unescapeToken(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~1", "/"), "~0", "~")
}
