package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// maxDepth bounds how deeply a contract document may nest, so a hostile document cannot
// exhaust the stack.
const maxDepth = 64

// node is one JSON value of a contract document with the offset it starts at, so that
// problems found while decoding or validating can name their line.
type node struct {
	off  int64
	kind nodeKind
	text string // a string's value or a number's text
	b    bool
	arr  []*node
	keys []string // an object's keys, in document order
	obj  map[string]*node
	koff map[string]int64 // where each key starts
}

type nodeKind int

const (
	nodeNull nodeKind = iota
	nodeBool
	nodeNumber
	nodeString
	nodeArray
	nodeObject
)

func (k nodeKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "an array", "an object"}[k]
}

// docError is a problem at one place of a contract document.
type docError struct {
	off int64
	ptr string // JSON pointer of the value, "" for the document
	msg string
}

func (e *docError) Error() string {
	if e.ptr == "" {
		return e.msg
	}
	return e.ptr + ": " + e.msg
}

// errAt makes a docError for the value n at ptr.
func errAt(n *node, ptr, format string, args ...any) *docError {
	var off int64
	if n != nil {
		off = n.off
	}
	return &docError{off: off, ptr: ptr, msg: fmt.Sprintf(format, args...)}
}

// readDocument parses a JSON document into nodes: exactly one value, no duplicate keys.
func readDocument(data []byte) (*node, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	root, err := readNode(dec, data, 0)
	if err != nil {
		return nil, err
	}
	off := skipSpace(data, dec.InputOffset())
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, &docError{off: off, msg: "text after the end of the document: a contract is one JSON object"}
	}
	return root, nil
}

func readNode(dec *json.Decoder, data []byte, depth int) (*node, error) {
	off := skipSpace(data, dec.InputOffset())
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(data, off, err)
	}
	n := &node{off: off}
	switch t := tok.(type) {
	case nil:
		n.kind = nodeNull
	case bool:
		n.kind, n.b = nodeBool, t
	case json.Number:
		n.kind, n.text = nodeNumber, string(t)
	case string:
		n.kind, n.text = nodeString, t
	case json.Delim:
		if depth >= maxDepth {
			return nil, &docError{off: off, msg: fmt.Sprintf("nested deeper than %d levels", maxDepth)}
		}
		switch t {
		case '[':
			n.kind = nodeArray
			for dec.More() {
				e, err := readNode(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				n.arr = append(n.arr, e)
			}
		case '{':
			n.kind, n.obj, n.koff = nodeObject, map[string]*node{}, map[string]int64{}
			for dec.More() {
				koff := skipSpace(data, dec.InputOffset())
				kt, err := dec.Token()
				if err != nil {
					return nil, syntaxError(data, koff, err)
				}
				key, _ := kt.(string)
				if _, dup := n.obj[key]; dup {
					return nil, &docError{off: koff, msg: fmt.Sprintf("key %q appears twice in one object: keep one", key)}
				}
				v, err := readNode(dec, data, depth+1)
				if err != nil {
					return nil, err
				}
				n.keys = append(n.keys, key)
				n.obj[key], n.koff[key] = v, koff
			}
		}
		end := skipSpace(data, dec.InputOffset())
		if _, err := dec.Token(); err != nil {
			return nil, syntaxError(data, end, err)
		}
	}
	return n, nil
}

// syntaxError places a JSON syntax error; the end of the input is placed at the end.
func syntaxError(data []byte, off int64, err error) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return &docError{off: se.Offset, msg: "JSON syntax: " + se.Error()}
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF):
		return &docError{off: int64(len(data)), msg: "the document ends early: a bracket or quote is not closed"}
	}
	return &docError{off: off, msg: "JSON syntax: " + err.Error()}
}

// skipSpace returns the offset of the next token at or after off.
func skipSpace(data []byte, off int64) int64 {
	for off < int64(len(data)) && strings.IndexByte(" \t\r\n,:", data[off]) >= 0 {
		off++
	}
	return off
}

// lineOf is the 1-based line of offset off in data.
func lineOf(data []byte, off int64) int {
	return 1 + bytes.Count(data[:min(max(off, 0), int64(len(data)))], []byte("\n"))
}

// member returns the value of key in object n, or nil.
func (n *node) member(key string) *node {
	if n == nil || n.kind != nodeObject {
		return nil
	}
	return n.obj[key]
}

// at follows a JSON pointer from n; it returns nil when nothing is there.
func (n *node) at(ptr string) *node {
	toks, err := splitPointer(ptr)
	if err != nil {
		return nil
	}
	for _, t := range toks {
		switch {
		case n == nil:
			return nil
		case n.kind == nodeObject:
			n = n.obj[t]
		case n.kind == nodeArray:
			i, ok := arrayIndex(t, len(n.arr))
			if !ok {
				return nil
			}
			n = n.arr[i]
		default:
			return nil
		}
	}
	return n
}

// placeOf returns the place to report a problem with the member at ptr: its key when it is
// an object member, else the value, else the nearest enclosing value.
func (n *node) placeOf(ptr string) int64 {
	toks, err := splitPointer(ptr)
	if err != nil {
		return 0
	}
	cur, off := n, n.off
	for _, t := range toks {
		switch {
		case cur == nil:
			return off
		case cur.kind == nodeObject:
			k, ok := cur.koff[t]
			if !ok {
				return off
			}
			cur, off = cur.obj[t], k
		case cur.kind == nodeArray:
			i, ok := arrayIndex(t, len(cur.arr))
			if !ok {
				return off
			}
			cur = cur.arr[i]
			off = cur.off
		default:
			return off
		}
	}
	return off
}

// generic converts a node to the value encoding/json would give: map[string]any, []any,
// string, float64, bool or nil.
func (n *node) generic() any {
	switch n.kind {
	case nodeBool:
		return n.b
	case nodeNumber:
		f, _ := json.Number(n.text).Float64()
		return f
	case nodeString:
		return n.text
	case nodeArray:
		out := make([]any, len(n.arr))
		for i, e := range n.arr {
			out[i] = e.generic()
		}
		return out
	case nodeObject:
		out := make(map[string]any, len(n.obj))
		for k, v := range n.obj {
			out[k] = v.generic()
		}
		return out
	}
	return nil
}
