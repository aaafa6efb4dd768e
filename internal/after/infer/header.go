package infer

import (
	"fmt"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// Binary headers: a fixed-length header found by field statistics across messages.

// header is a binary header (contract.Header) the draft gives a codec.
type header struct {
	Length               int           `json:"length"`
	LengthIncludesHeader bool          `json:"lengthIncludesHeader,omitempty"`
	Fields               []headerField `json:"fields"`
}

type headerField struct {
	Name     string  `json:"name"`
	Offset   int     `json:"offset"`
	Encoding string  `json:"encoding"`
	Value    *uint64 `json:"value,omitempty"`
}

// maxHeader bounds the header lengths considered.
const maxHeader = 256

// byteClass is what one byte of the header does across the messages.
type byteClass byte

const (
	constant byteClass = iota + 1 // the same non-zero value in every message: a magic number
	zero                          // 0 in every message: padding, or the high bytes of a counter
	varying
	opcode
	length // a byte of the length field
)

// guessHeader finds a fixed-length header at the front of the messages (none empty):
//
//   - a length field first (findLength): a u16le, u16be, u32le, u32be or u8 at some offset
//     that, in every message, equals the payload's size (the message's size less a header
//     size that is the same in all), or the message's whole size; it varies, or nothing
//     could tell it from a constant;
//   - its length: the one the length field says; else the offset where the most payloads
//     parse as a JSON object, else where the most payloads start being text (UTF-8 without
//     control bytes), else the shortest message (at most 256 bytes); never more than the
//     shortest message;
//   - every byte that is the same non-zero value in all messages: a u8 field with that value;
//   - the frame's type: of the bytes outside the length, the first varying byte with few
//     values (at most 64, and at most half the messages) that varies within a connection
//     (a version byte is the same on a connection, even where recordings of two versions
//     differ), else the first with few values, else the varying byte with the fewest values;
//   - every other 4-byte-aligned word that varies: a u32 field, little endian unless its zero
//     bytes lead (big endian); a zero word beside one makes a 64-bit value (a zero high word
//     first: u32le-hi-lo; after a little-endian word: u64le; before a big-endian word:
//     u64be). Bytes that vary in a word shared with a constant, the type or the length are
//     u8 fields.
//
// Zero bytes that never vary are left out: nothing tells padding from a counter's high bytes,
// and a constant 0 would refuse a counter that grows.
func guessHeader(msgs []message) (h header, typeAt int, how []Support) {
	minLen := len(msgs[0].data)
	for _, m := range msgs {
		minLen = min(minLen, len(m.data))
	}
	limit := min(minLen, maxHeader)
	lf, lok := findLength(msgs, limit)
	switch {
	case lok && !lf.whole:
		h.Length = lf.header
		how = []Support{{What: fmt.Sprintf("header of %d bytes: every message is %d bytes more than the %s at byte %d says", lf.header, lf.header, lf.encoding, lf.offset), Count: len(msgs), Of: len(msgs)}}
	default:
		h.Length, how = headerLength(msgs, limit)
		if lok {
			h.Length = max(h.Length, lf.offset+lf.width)
			h.LengthIncludesHeader = true
		}
	}
	class, values := classify(msgs, h.Length)
	if lok {
		for o := lf.offset; o < lf.offset+lf.width; o++ {
			class[o] = length
		}
	}
	typeAt = pickType(class, values, msgs)
	class[typeAt] = opcode

	type word struct {
		zero  bool // four bytes, all zero
		field int  // the index of its u32 field, -1 when none
	}
	var words []word
	for w := 0; w < h.Length; w += 4 {
		end := min(w+4, h.Length)
		bytes := class[w:end]
		wd := word{field: -1}
		hasVarying, shared := false, false
		for _, c := range bytes {
			hasVarying = hasVarying || c == varying
			shared = shared || c == constant || c == opcode || c == length
		}
		if !hasVarying || shared || end-w < 4 {
			wd.zero = end-w == 4 && !hasVarying && !shared
			for i, c := range bytes {
				off := w + i
				switch c {
				case constant:
					v := uint64(msgs[0].data[off])
					h.Fields = append(h.Fields, headerField{Name: fmt.Sprintf("magic%d", off), Offset: off, Encoding: "u8", Value: &v})
					how = append(how, Support{What: fmt.Sprintf("magic%d: u8 at byte %d is always %#x", off, off, v), Count: len(msgs), Of: len(msgs)})
				case opcode:
					h.Fields = append(h.Fields, headerField{Name: "type", Offset: off, Encoding: "u8"})
					how = append(how, Support{What: fmt.Sprintf("type: u8 at byte %d, %d values", off, len(values[off])), Count: len(msgs), Of: len(msgs)})
				case varying:
					h.Fields = append(h.Fields, headerField{Name: fmt.Sprintf("field%d", off), Offset: off, Encoding: "u8"})
					how = append(how, Support{What: fmt.Sprintf("field%d: u8 at byte %d, %d values", off, off, len(values[off])), Count: len(msgs), Of: len(msgs)})
				case length:
					if off == lf.offset {
						h.Fields = append(h.Fields, headerField{Name: "length", Offset: off, Encoding: lf.encoding})
						what := "the payload's size"
						if lf.whole {
							what = "the whole message's size"
						}
						how = append(how, Support{What: fmt.Sprintf("length: %s at byte %d is %s, %d values", lf.encoding, off, what, lf.values), Count: len(msgs), Of: len(msgs)})
					}
				}
			}
			words = append(words, wd)
			continue
		}
		enc := "u32le"
		if bytes[0] == zero && bytes[3] == varying {
			enc = "u32be"
		}
		wd.field = len(h.Fields)
		h.Fields = append(h.Fields, headerField{Name: fmt.Sprintf("field%d", w), Offset: w, Encoding: enc})
		words = append(words, wd)
	}
	// 64-bit values: a zero word beside a counter word, 8-byte aligned.
	for i := 0; i+1 < len(words); i += 2 {
		lo, hi := words[i], words[i+1]
		switch {
		case lo.zero && hi.field >= 0 && h.Fields[hi.field].Encoding == "u32le":
			h.Fields[hi.field] = headerField{Name: fmt.Sprintf("field%d", 4*i), Offset: 4 * i, Encoding: "u32le-hi-lo"}
		case lo.zero && hi.field >= 0 && h.Fields[hi.field].Encoding == "u32be":
			h.Fields[hi.field] = headerField{Name: fmt.Sprintf("field%d", 4*i), Offset: 4 * i, Encoding: "u64be"}
		case hi.zero && lo.field >= 0 && h.Fields[lo.field].Encoding == "u32le":
			h.Fields[lo.field].Encoding = "u64le"
		}
	}
	for _, f := range h.Fields {
		if f.Encoding == "u8" || f.Name == "length" {
			continue
		}
		distinct := map[uint64]bool{}
		for _, m := range msgs {
			distinct[readField(f, m.data)] = true
		}
		how = append(how, Support{What: fmt.Sprintf("%s: %s at byte %d, %d values", f.Name, f.Encoding, f.Offset, len(distinct)), Count: len(msgs), Of: len(msgs)})
	}
	return h, typeAt, how
}

// headerLength is where payloads start (see guessHeader), at most limit.
func headerLength(msgs []message, limit int) (int, []Support) {
	jsonAt := make([]int, limit+1)
	textAt := make([]int, limit+1)
	for _, m := range msgs {
		start := textStart(m.data)
		for o := 1; o <= limit && o < len(m.data); o++ {
			if m.data[o] == '{' && isObject(m.data[o:]) {
				jsonAt[o]++
			}
			if o >= start && utf8.RuneStart(m.data[o]) {
				textAt[o]++
			}
		}
	}
	for _, by := range []struct {
		at   []int
		what string
	}{{jsonAt, "payloads that are JSON objects start at byte %d"}, {textAt, "payloads that are text start at byte %d"}} {
		best := 0
		for o := 1; o <= limit; o++ {
			if by.at[o] > by.at[best] {
				best = o
			}
		}
		if by.at[best] > 0 {
			return best, []Support{{What: fmt.Sprintf("header of %d bytes: "+by.what, best, best), Count: by.at[best], Of: len(msgs)}}
		}
	}
	return max(limit, 1), []Support{{What: fmt.Sprintf("header of %d bytes: the shortest message", max(limit, 1)), Count: len(msgs), Of: len(msgs)}}
}

// textStart is the smallest offset from which b is text: valid UTF-8 without control bytes
// other than tab, newline, carriage return and escape (a terminal's output).
func textStart(b []byte) int {
	start := 0
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		if (r == utf8.RuneError && size == 1) || (r < 0x20 && r != '\t' && r != '\n' && r != '\r' && r != 0x1b) || r == 0x7f {
			start = i + size
		}
		i += size
	}
	return start
}

func isObject(b []byte) bool {
	var v map[string]any
	return jsonv1.Unmarshal(b, &v) == nil && v != nil
}

// classify says what each byte before length does across the messages, and which values it
// takes (bounded: more than 256 means it varies freely).
func classify(msgs []message, length int) ([]byteClass, []map[byte]int) {
	class := make([]byteClass, length)
	values := make([]map[byte]int, length)
	for o := range length {
		values[o] = map[byte]int{}
		for _, m := range msgs {
			values[o][m.data[o]]++
		}
		switch {
		case len(values[o]) > 1:
			class[o] = varying
		case msgs[0].data[o] == 0:
			class[o] = zero
		default:
			class[o] = constant
		}
	}
	return class, values
}

// pickType is the offset of the type byte (see guessHeader).
func pickType(class []byteClass, values []map[byte]int, msgs []message) int {
	n := len(msgs)
	few, fewest := -1, -1
	for o, c := range class {
		if c != varying {
			continue
		}
		d := len(values[o])
		if d <= 64 && (2*d <= n || (n < 8 && d < n)) {
			if variesOnAConnection(msgs, o) {
				return o
			}
			if few < 0 {
				few = o
			}
		}
		if fewest < 0 || d < len(values[fewest]) {
			fewest = o
		}
	}
	switch {
	case few >= 0:
		return few
	case fewest >= 0:
		return fewest
	}
	for o, c := range class {
		if c != length {
			return o
		}
	}
	return 0
}

// variesOnAConnection reports whether byte o of the messages takes two values in one
// direction of one connection.
func variesOnAConnection(msgs []message, o int) bool {
	type key struct {
		rec, conn int
		path, dir string
	}
	first := map[key]byte{}
	for _, m := range msgs {
		k := key{m.rec, m.conn, m.path, m.dir}
		if v, ok := first[k]; !ok {
			first[k] = m.data[o]
		} else if v != m.data[o] {
			return true
		}
	}
	return false
}

// lengthField is a header field that says how long each message is.
type lengthField struct {
	offset, width int
	encoding      string
	// header is the header's size, when the length counts the payload after it; whole: the
	// length counts the whole message.
	header int
	whole  bool
	values int // how many values it takes
}

// lengthEncodings are the encodings a length field is looked for in, the likeliest first:
// where the bytes read cannot tell (every length below 256), a u16 is the likelier field
// than a u8 beside a zero byte, and little endian the likelier reading.
var lengthEncodings = []struct {
	name  string
	width int
}{{"u16le", 2}, {"u16be", 2}, {"u32le", 4}, {"u32be", 4}, {"u8", 1}}

// findLength finds a field within the first limit bytes of every message that equals the
// message's size less the same header size in all (the payload's size; the header then ends
// at or after the field), or the message's whole size. It must take two values at least: a
// constant that equals every size says nothing.
func findLength(msgs []message, limit int) (lengthField, bool) {
	for _, e := range lengthEncodings {
		for o := 0; o+e.width <= limit; o++ {
			f := headerField{Offset: o, Encoding: e.name}
			hdr, ok := -1, true
			distinct := map[uint64]bool{}
			for _, m := range msgs {
				v := readField(f, m.data)
				distinct[v] = true
				if v > uint64(len(m.data)) {
					ok = false
					break
				}
				d := len(m.data) - int(v)
				if hdr >= 0 && d != hdr {
					ok = false
					break
				}
				hdr = d
			}
			if !ok || len(distinct) < 2 || (hdr != 0 && hdr < o+e.width) || hdr > limit {
				continue
			}
			return lengthField{offset: o, width: e.width, encoding: e.name, header: hdr, whole: hdr == 0, values: len(distinct)}, true
		}
	}
	return lengthField{}, false
}

// readField reads an integer header field of a message long enough to hold it.
func readField(f headerField, b []byte) uint64 {
	b = b[f.Offset:]
	le := func(n int) uint64 {
		var v uint64
		for i := n - 1; i >= 0; i-- {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	be := func(n int) uint64 {
		var v uint64
		for i := range n {
			v = v<<8 | uint64(b[i])
		}
		return v
	}
	switch f.Encoding {
	case "u8":
		return uint64(b[0])
	case "u16le":
		return le(2)
	case "u16be":
		return be(2)
	case "u32le":
		return le(4)
	case "u32be":
		return be(4)
	case "u64le":
		return le(8)
	case "u64be":
		return be(8)
	case "u32le-hi-lo":
		hi := le(4)
		b = b[4:]
		return hi<<32 | le(4)
	}
	return 0
}
