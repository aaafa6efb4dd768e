package driverkit

import (
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"unicode/utf8"
)

// validJSON reports whether b is one JSON value, as json.Valid does. Action arguments are
// mostly long strings without escapes (a terminal's input, base64): those are read eight
// bytes at a time, several times faster than json.Valid's byte-at-a-time state machine.
// Anything else the quick reader does not take (an escape, deep nesting, a malformed value)
// is json.Valid's to judge.
func validJSON(b []byte) bool {
	v := validator{b: b}
	if v.value(0) {
		v.space()
		if v.i == len(b) {
			return true
		}
	}
	return json.Valid(b)
}

type validator struct {
	b []byte
	i int
}

// maxValidDepth bounds the quick reader's nesting; deeper values go to json.Valid.
const maxValidDepth = 100

func (v *validator) space() {
	for v.i < len(v.b) {
		switch v.b[v.i] {
		case ' ', '\t', '\r', '\n':
			v.i++
		default:
			return
		}
	}
}

func (v *validator) consume(c byte) bool {
	v.space()
	if v.i < len(v.b) && v.b[v.i] == c {
		v.i++
		return true
	}
	return false
}

// value reads one value; false when it is not one the quick reader takes.
func (v *validator) value(depth int) bool {
	if depth > maxValidDepth {
		return false
	}
	v.space()
	if v.i >= len(v.b) {
		return false
	}
	switch c := v.b[v.i]; {
	case c == '{' || c == '[':
		end := byte('}')
		if c == '[' {
			end = ']'
		}
		v.i++
		if v.consume(end) {
			return true
		}
		for {
			if c == '{' && (!v.str() || !v.consume(':')) {
				return false
			}
			if !v.value(depth + 1) {
				return false
			}
			if v.consume(end) {
				return true
			}
			if !v.consume(',') {
				return false
			}
		}
	case c == '"':
		return v.str()
	case c == 't':
		return v.literal("true")
	case c == 'f':
		return v.literal("false")
	case c == 'n':
		return v.literal("null")
	case c == '-' || (c >= '0' && c <= '9'):
		return v.number()
	}
	return false
}

func (v *validator) literal(s string) bool {
	if len(v.b)-v.i >= len(s) && string(v.b[v.i:v.i+len(s)]) == s {
		v.i += len(s)
		return true
	}
	return false
}

// str reads a string without escapes or control characters, of valid UTF-8.
func (v *validator) str() bool {
	v.space()
	if v.i >= len(v.b) || v.b[v.i] != '"' {
		return false
	}
	start := v.i + 1
	end, ascii := start, true
	for {
		end += plainPrefix(v.b[end:])
		if end >= len(v.b) || v.b[end] < 0x80 {
			break
		}
		ascii = false
		end++
	}
	if end >= len(v.b) || v.b[end] != '"' || (!ascii && !utf8.Valid(v.b[start:end])) {
		return false
	}
	v.i = end + 1
	return true
}

func (v *validator) number() bool {
	j := v.i
	if v.b[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(v.b) && v.b[j] >= '0' && v.b[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(v.b) && v.b[j] == '0' {
		j++
	} else if digits() == 0 {
		return false
	}
	if j < len(v.b) && v.b[j] == '.' {
		j++
		if digits() == 0 {
			return false
		}
	}
	if j < len(v.b) && (v.b[j] == 'e' || v.b[j] == 'E') {
		j++
		if j < len(v.b) && (v.b[j] == '+' || v.b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return false
		}
	}
	v.i = j
	return true
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainPrefix is the length of b's prefix of printable ASCII other than '"' and '\\', read
// eight bytes at a time.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+8 <= len(b); i += 8 {
		if f := flagged(binary.LittleEndian.Uint64(b[i:])); f != 0 {
			return i + bits.TrailingZeros64(f)/8
		}
	}
	for ; i < len(b); i++ {
		if c := b[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return i
		}
	}
	return i
}

// flagged has the high bit set in exactly the bytes of w (eight bytes, the first lowest)
// that plainPrefix stops at. Each test works on the bytes' low seven bits, where adding at
// most 0x80 carries into no other byte.
func flagged(w uint64) uint64 {
	const seven = 0x7f7f7f7f7f7f7f7f
	low := w & seven
	del := (low + lows*0x01) & highs         // 0x7f
	ctl := ^(low + lows*(0x80-0x20)) & highs // below 0x20
	quote := ^((w^lows*'"')&seven + seven) & highs
	slash := ^((w^lows*'\\')&seven + seven) & highs
	return w&highs | del | ctl | quote | slash // and 0x80 and above
}
