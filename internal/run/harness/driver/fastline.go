package driver

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"math/bits"
	"strconv"
	"unicode/utf8"
	"unsafe"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// fastLine decodes a line in the form drivers write observations and results in, an object
// of the keys type, what, id, ok, lane and data (each at most once), finding each string's
// end with word-at-a-time scans rather than the JSON decoder's byte-at-a-time one: most of
// the bytes skewtest reads from drivers are strings without escapes (a terminal's base64
// bytes), megabytes a line; a string with escapes is handed to the decoder alone. It gives
// what decodeLine's decoder gives, or ok false for any other line (another key, a key twice,
// a number that is not a small integer where an int goes, a null, malformed JSON), which the
// decoder then reads whole. The data's text is one copy of the line's bytes, and
// the strings of its value point into that copy (which nothing modifies).
func fastLine(line []byte) (m Message, ok bool) {
	p := fastParser{b: line}
	if !p.consume('{') {
		return Message{}, false
	}
	seen := 0
	for first := true; ; first = false {
		if p.consume('}') {
			if !first && p.lastWasComma {
				return Message{}, false
			}
			break
		}
		if !first && !p.lastWasComma {
			return Message{}, false
		}
		key, ok := p.plainString()
		if !ok || !p.consume(':') {
			return Message{}, false
		}
		bit := 0
		switch key {
		case "type":
			bit = 1
			m.Type, ok = p.plainString()
		case "what":
			bit = 2
			m.What, ok = p.plainString()
		case "id":
			bit = 4
			m.ID, ok = p.smallInt()
		case "lane":
			bit = 8
			m.Lane, ok = p.smallInt()
		case "ok":
			bit = 16
			m.OK, ok = p.boolean()
		case "data":
			bit = 32
			ok = p.data(&m)
		default:
			return Message{}, false
		}
		if !ok || seen&bit != 0 { // a key twice: the decoder's rules for it
			return Message{}, false
		}
		seen |= bit
		p.lastWasComma = p.consume(',')
	}
	p.space()
	if p.i != len(p.b) || m.Type == "" {
		return Message{}, false
	}
	return m, true
}

// fastParser reads one line for fastLine.
type fastParser struct {
	b            []byte
	i            int
	lastWasComma bool
}

func (p *fastParser) space() {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\r', '\n':
			p.i++
		default:
			return
		}
	}
}

// consume skips white space and c, if c comes next.
func (p *fastParser) consume(c byte) bool {
	p.space()
	if p.i < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// plainString reads a string, copied.
func (p *fastParser) plainString() (string, bool) {
	return p.str(false)
}

// str reads a string: one without escapes as it is (pointing into p.b when alias is set,
// else copied); one with escapes, or with invalid UTF-8, decoded by the decoder itself (a
// product's text: a directory's name, a title; short).
func (p *fastParser) str(alias bool) (string, bool) {
	p.space()
	at := p.i
	start, end, ok := p.plainSpan()
	switch {
	case ok && end == start:
		return "", true
	case ok && alias:
		return unsafe.String(&p.b[start], end-start), true
	case ok:
		return string(p.b[start:end]), true
	}
	p.i = at
	end, ok = p.quotedEnd()
	if !ok {
		return "", false
	}
	var v string
	if jsonv1.Unmarshal(p.b[at:end], &v) != nil {
		return "", false
	}
	p.i = end
	return v, true
}

// quotedEnd finds the end of the string at p.i (just past its closing quote), stepping over
// escapes; false at a control character or no end.
func (p *fastParser) quotedEnd() (int, bool) {
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return 0, false
	}
	j := p.i + 1
	for j <= len(p.b) {
		j += plainPrefix(p.b[j:])
		switch {
		case j >= len(p.b) || p.b[j] < 0x20:
			return 0, false
		case p.b[j] == '"':
			return j + 1, true
		case p.b[j] == '\\':
			j += 2
		default: // 0x7f and above
			j++
		}
	}
	return 0, false // an escape at the end
}

// plainSpan reads a string without escapes or control characters, of valid UTF-8 (which
// the decoder leaves as it is), and returns where its characters are.
func (p *fastParser) plainSpan() (start, end int, ok bool) {
	p.space()
	if p.i >= len(p.b) || p.b[p.i] != '"' {
		return 0, 0, false
	}
	start = p.i + 1
	end, ascii := start, true
	for {
		end += plainPrefix(p.b[end:])
		if end >= len(p.b) || p.b[end] < 0x80 {
			break
		}
		ascii = false
		end++
	}
	if end >= len(p.b) || p.b[end] != '"' || (!ascii && !utf8.Valid(p.b[start:end])) {
		return 0, 0, false // an escape, a control character, invalid UTF-8, or no end
	}
	p.i = end + 1
	return start, end, true
}

const (
	lows  = 0x0101010101010101
	highs = 0x8080808080808080
)

// plainPrefix is the length of b's prefix of printable ASCII other than '"' and '\\', read
// thirty-two bytes at a time while none stops it (a megabyte of base64 is read in blocks of
// four words with one test each), then eight.
func plainPrefix(b []byte) int {
	i := 0
	for ; i+32 <= len(b); i += 32 {
		if flagged(binary.LittleEndian.Uint64(b[i:]))|flagged(binary.LittleEndian.Uint64(b[i+8:]))|
			flagged(binary.LittleEndian.Uint64(b[i+16:]))|flagged(binary.LittleEndian.Uint64(b[i+24:])) != 0 {
			break // the word that stops it is in this block
		}
	}
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

// smallInt reads a non-negative integer of at most 15 digits, as an int field takes it.
func (p *fastParser) smallInt() (int, bool) {
	p.space()
	j := p.i
	for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
		j++
	}
	n := j - p.i
	if n == 0 || n > 15 || (n > 1 && p.b[p.i] == '0') {
		return 0, false
	}
	if j < len(p.b) && (p.b[j] == '.' || p.b[j] == 'e' || p.b[j] == 'E') {
		return 0, false
	}
	v, err := strconv.Atoi(string(p.b[p.i:j]))
	p.i = j
	return v, err == nil
}

func (p *fastParser) boolean() (bool, bool) {
	p.space()
	switch {
	case bytes.HasPrefix(p.b[p.i:], []byte("true")):
		p.i += 4
		return true, true
	case bytes.HasPrefix(p.b[p.i:], []byte("false")):
		p.i += 5
		return false, true
	}
	return false, false
}

// data reads the data's value into m: its text (a copy) as Data and its value as Value,
// whose strings point into that copy.
func (p *fastParser) data(m *Message) bool {
	p.space()
	start := p.i
	// One copy of the rest of the line (the data's value and what follows it, a few bytes),
	// decoded where it is: the value's strings point into it.
	q := fastParser{b: bytes.Clone(p.b[start:])}
	v, ok := q.value(0)
	if !ok {
		return false
	}
	raw := q.b[:q.i:q.i]
	p.i = start + q.i
	m.Data, m.Value, m.Decoded = json.RawMessage(raw), v, true
	return true
}

// maxDepth bounds nesting: deeper data goes to the decoder, which has its own limit.
const maxDepth = 100

// value reads one value: objects, arrays, strings (plainSpan), numbers, true, false, as
// encoding/json decodes them into any, strings pointing into p.b. null goes to the decoder
// (which makes it nil, or leaves a field as it was), and so does a key twice in an object.
func (p *fastParser) value(depth int) (any, bool) {
	if depth > maxDepth {
		return nil, false
	}
	p.space()
	if p.i >= len(p.b) {
		return nil, false
	}
	switch c := p.b[p.i]; {
	case c == '{':
		p.i++
		obj := map[string]any{}
		for first := true; ; first = false {
			if p.consume('}') {
				return obj, first || !p.lastWasComma
			}
			if !first && !p.lastWasComma {
				return nil, false
			}
			k, ok := p.str(false)
			if !ok || !p.consume(':') {
				return nil, false
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			if _, dup := obj[k]; dup {
				return nil, false
			}
			obj[k] = v
			p.lastWasComma = p.consume(',')
		}
	case c == '[':
		p.i++
		arr := []any{}
		for first := true; ; first = false {
			if p.consume(']') {
				return arr, first || !p.lastWasComma
			}
			if !first && !p.lastWasComma {
				return nil, false
			}
			v, ok := p.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			p.lastWasComma = p.consume(',')
		}
	case c == '"':
		return p.str(true)
	case c == 't' || c == 'f':
		return p.boolean()
	case c == '-' || (c >= '0' && c <= '9'):
		return p.number()
	}
	return nil, false
}

// number reads a JSON number as a float64, as encoding/json decodes one into any.
func (p *fastParser) number() (any, bool) {
	j := p.i
	if j < len(p.b) && p.b[j] == '-' {
		j++
	}
	digits := func() int {
		k := j
		for j < len(p.b) && p.b[j] >= '0' && p.b[j] <= '9' {
			j++
		}
		return j - k
	}
	if j < len(p.b) && p.b[j] == '0' {
		j++
	} else if digits() == 0 {
		return nil, false
	}
	if j < len(p.b) && p.b[j] == '.' {
		j++
		if digits() == 0 {
			return nil, false
		}
	}
	if j < len(p.b) && (p.b[j] == 'e' || p.b[j] == 'E') {
		j++
		if j < len(p.b) && (p.b[j] == '+' || p.b[j] == '-') {
			j++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	f, err := strconv.ParseFloat(string(p.b[p.i:j]), 64)
	if err != nil {
		return nil, false // out of range: the decoder's error
	}
	p.i = j
	return f, true
}
