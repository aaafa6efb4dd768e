package contract

import (
	"fmt"
	"strconv"
	"strings"
)

// splitPointer splits an RFC 6901 JSON pointer into its unescaped reference tokens; "" is
// the whole value.
func splitPointer(ptr string) ([]string, error) {
	if ptr == "" {
		return nil, nil
	}
	if ptr[0] != '/' {
		return nil, fmt.Errorf("JSON pointer %q does not start with /", ptr)
	}
	toks := strings.Split(ptr[1:], "/")
	for i, t := range toks {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf("JSON pointer %q: ~ must be followed by 0 or 1", ptr)
			}
		}
		toks[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return toks, nil
}

// escapeToken escapes one reference token of a JSON pointer.
func escapeToken(t string) string {
	return strings.ReplaceAll(strings.ReplaceAll(t, "~", "~0"), "/", "~1")
}

// child is the pointer to member or element t of the value at ptr.
func child(ptr string, t any) string {
	switch t := t.(type) {
	case int:
		return ptr + "/" + strconv.Itoa(t)
	case string:
		return ptr + "/" + escapeToken(t)
	}
	return ptr
}

// arrayIndex reads an array index token: decimal, no leading zeros, inside the array.
func arrayIndex(t string, n int) (int, bool) {
	if t == "" || (len(t) > 1 && t[0] == '0') {
		return 0, false
	}
	i, err := strconv.Atoi(t)
	if err != nil || i < 0 || i >= n {
		return 0, false
	}
	return i, true
}

// resolve follows a JSON pointer through a value decoded by encoding/json.
func resolve(v any, ptr string) (any, bool) {
	toks, err := splitPointer(ptr)
	if err != nil {
		return nil, false
	}
	for _, t := range toks {
		switch c := v.(type) {
		case map[string]any:
			e, ok := c[t]
			if !ok {
				return nil, false
			}
			v = e
		case []any:
			i, ok := arrayIndex(t, len(c))
			if !ok {
				return nil, false
			}
			v = c[i]
		default:
			return nil, false
		}
	}
	return v, true
}

// CheckPointer says what is wrong with an RFC 6901 JSON pointer, or nil.
func CheckPointer(ptr string) error {
	_, err := splitPointer(ptr)
	return err
}

// FrameAt returns the frame a pointer into the contract is at or below
// (/channels/0/frames/3/gates/…), or nil.
func (c *Contract) FrameAt(ptr string) *Frame {
	toks, err := splitPointer(ptr)
	if c == nil || err != nil || len(toks) < 4 || toks[0] != "channels" || toks[2] != "frames" {
		return nil
	}
	i, ok := arrayIndex(toks[1], len(c.Channels))
	if !ok {
		return nil
	}
	ch := &c.Channels[i]
	j, ok := arrayIndex(toks[3], len(ch.Frames))
	if !ok {
		return nil
	}
	return &ch.Frames[j]
}
