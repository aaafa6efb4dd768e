package fuzz

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
)

// Call is one argument generator in braces: {NAME ARGS… [as=BINDING]}.
type Call struct {
	Name string
	Args []string
	// As binds the generated value to a name later calls ({tail NAME N}, {len NAME}) read.
	As string
	// Ref is the binding a tail or len call reads.
	Ref string
	// Lo and Hi bound the value's number: a length, an int, or a len offset.
	Lo, Hi int
	// Base and Spread are size's: lengths k×Base+d with |d| <= Spread.
	Base, Spread int
	// Valid is utf8's: no invalid bytes (for a field a product carries as text).
	Valid bool
	// Min is len's floor (default 0).
	Min int
	gen *argGenerator
}

// argGenerator is one generator name: how its arguments read and how a value is drawn and
// written. Text generators write Go-quoted strings; the others write bare words.
type argGenerator struct {
	syntax string
	text   bool
	parse  func(c *Call) error
	// draw picks a value's number (length, int, offset, pick).
	draw func(c *Call, r *rand.Rand) int
	// content makes a text value of n bytes from its seed (plain: the simplest bytes).
	content func(c *Call, seed uint64, n int, plain bool) []piece
}

// piece is a run of text repeated n times; a text value is written as "s"*n+"t".
type piece struct {
	s string
	n int
	// expr, when set, is how the piece was written in the generator (a string expression
	// such as "ab"*100), kept as it is in the case's journey.
	expr string
}

// argGenerators is the one table of generator names: parsing and drawing both read it.
var argGenerators = generatorTable()

func rangeArg(c *Call) error {
	if len(c.Args) != 1 {
		return fmt.Errorf("{%s} needs one range A..B", c.Name)
	}
	lo, hi, err := parseRange(c.Args[0])
	if err != nil {
		return fmt.Errorf("{%s %s}: %v", c.Name, c.Args[0], err)
	}
	c.Lo, c.Hi = lo, hi
	return nil
}

func lengthArg(c *Call) error {
	if err := rangeArg(c); err != nil {
		return err
	}
	if c.Lo < 0 || c.Hi > 64<<20 {
		return fmt.Errorf("{%s %s}: a length is from 0 to %d", c.Name, c.Args[0], 64<<20)
	}
	return nil
}

func drawRange(c *Call, r *rand.Rand) int {
	// Edges are where bugs live: a fifth of the draws take a bound.
	switch r.IntN(10) {
	case 0:
		return c.Lo
	case 1:
		return c.Hi
	}
	return c.Lo + r.IntN(c.Hi-c.Lo+1)
}

func generatorTable() map[string]*argGenerator {
	return map[string]*argGenerator{
		"int": {syntax: "{int A..B}", parse: rangeArg, draw: drawRange},
		"one": {syntax: "{one WORD WORD …}",
			parse: func(c *Call) error {
				if len(c.Args) == 0 {
					return fmt.Errorf("{one} needs at least one word to pick from")
				}
				c.Lo, c.Hi = 0, len(c.Args)-1
				return nil
			},
			draw: func(c *Call, r *rand.Rand) int { return r.IntN(len(c.Args)) }},
		"fresh": {syntax: "{fresh PREFIX}",
			parse: func(c *Call) error {
				if len(c.Args) != 1 {
					return fmt.Errorf("{fresh} needs one prefix, such as {fresh t}")
				}
				return nil
			},
			draw: func(*Call, *rand.Rand) int { return 0 }},
		"ascii": {syntax: "{ascii A..B}", text: true, parse: lengthArg, draw: drawRange, content: asciiContent},
		"utf8": {syntax: "{utf8 A..B [valid]}", text: true,
			parse: func(c *Call) error {
				if n := len(c.Args); n == 2 && c.Args[1] == "valid" {
					c.Valid, c.Args = true, c.Args[:1]
				}
				return lengthArg(c)
			},
			draw: drawRange, content: utf8Content},
		"bytes": {syntax: "{bytes A..B}", text: true, parse: lengthArg, draw: drawRange, content: bytesContent},
		"size": {syntax: "{size N ±D}", text: true,
			parse: func(c *Call) error {
				if len(c.Args) != 2 {
					return fmt.Errorf("{size} needs a size and a spread, such as {size 49152 ±4}")
				}
				n, err := strconv.Atoi(c.Args[0])
				if err != nil || n < 1 || n > 16<<20 {
					return fmt.Errorf("{size %s}: the size is a number from 1 to %d", c.Args[0], 16<<20)
				}
				sp := strings.TrimPrefix(strings.TrimPrefix(c.Args[1], "±"), "+-")
				d, err := strconv.Atoi(sp)
				if err != nil || d < 0 || d >= n {
					return fmt.Errorf("{size %s %s}: the spread is ±D with 0 <= D < %d", c.Args[0], c.Args[1], n)
				}
				c.Base, c.Spread, c.Lo, c.Hi = n, d, 0, 3*n+d
				return nil
			},
			draw: func(c *Call, r *rand.Rand) int {
				k := 1
				switch x := r.IntN(20); {
				case x >= 17:
					k = 3
				case x >= 12:
					k = 2
				}
				return k*c.Base + r.IntN(2*c.Spread+1) - c.Spread
			},
			content: sizeContent},
		"edge": {syntax: "{edge A..B L …}", text: true,
			parse: func(c *Call) error {
				if len(c.Args) < 1 {
					return fmt.Errorf("{edge} needs a length range and the limits, such as {edge 0..1048576 49152}")
				}
				limits := c.Args[1:]
				c.Args = c.Args[:1]
				if err := lengthArg(c); err != nil {
					return err
				}
				for _, l := range limits {
					n, err := strconv.Atoi(l)
					if err != nil || n < 1 {
						return fmt.Errorf("{edge}: limit %s is not a size of at least 1", l)
					}
					c.Args = append(c.Args, l)
				}
				return nil
			},
			draw: func(c *Call, r *rand.Rand) int {
				e := edges(c)
				return e[r.IntN(len(e))]
			},
			content: edgeContent},
		"tail": {syntax: "{tail BINDING N}", text: true,
			parse: func(c *Call) error {
				if len(c.Args) != 2 {
					return fmt.Errorf("{tail} needs a binding and a length, such as {tail out 64}")
				}
				n, err := strconv.Atoi(c.Args[1])
				if err != nil || n < 1 {
					return fmt.Errorf("{tail %s %s}: the length is a positive number", c.Args[0], c.Args[1])
				}
				c.Ref, c.Lo, c.Hi = c.Args[0], n, n
				return nil
			},
			draw: func(c *Call, _ *rand.Rand) int { return c.Lo }},
		"len": {syntax: "{len BINDING [A..B] [min=N]}",
			parse: func(c *Call) error {
				if n := len(c.Args); n > 1 && strings.HasPrefix(c.Args[n-1], "min=") {
					m, err := strconv.Atoi(strings.TrimPrefix(c.Args[n-1], "min="))
					if err != nil || m < 0 {
						return fmt.Errorf("{len}: %s is not min=N with N >= 0", c.Args[n-1])
					}
					c.Min, c.Args = m, c.Args[:n-1]
				}
				if len(c.Args) < 1 || len(c.Args) > 2 {
					return fmt.Errorf("{len} needs a binding and optionally an offset range, such as {len out -8..40}")
				}
				c.Ref = c.Args[0]
				if len(c.Args) == 2 {
					lo, hi, err := parseRange(c.Args[1])
					if err != nil {
						return fmt.Errorf("{len %s %s}: %v", c.Args[0], c.Args[1], err)
					}
					c.Lo, c.Hi = lo, hi
				}
				return nil
			},
			draw: drawRange},
	}
}

// parseCall reads the inside of a generator's braces.
func parseCall(s string) (*Call, error) {
	f := strings.Fields(s)
	c := &Call{Name: f[0]}
	for _, a := range f[1:] {
		if b, ok := strings.CutPrefix(a, "as="); ok {
			if !validName(b) {
				return nil, fmt.Errorf("{%s}: binding name %q: use letters, digits, '-' and '_'", s, b)
			}
			c.As = b
			continue
		}
		c.Args = append(c.Args, a)
	}
	c.gen = argGenerators[c.Name]
	if err := c.gen.parse(c); err != nil {
		return nil, fmt.Errorf("%v (%s)", err, c.gen.syntax)
	}
	return c, nil
}

// Value is one drawn value of a call in a case: everything its text follows from, so a
// shrinker can change the length or make the bytes plain and write the case again.
type Value struct {
	Call *Call
	Seed uint64
	N    int // length, int, offset or pick
	// Plain replaces the content with the simplest bytes of the same length.
	Plain bool
}

// shrinkTarget is the number a value's N shrinks toward: the bound nearest zero.
func (v *Value) shrinkTarget() int {
	switch {
	case v.Call.Name == "size":
		return 0
	case v.Call.Lo > 0:
		return v.Call.Lo
	case v.Call.Hi < 0:
		return v.Call.Hi
	}
	return 0
}

// text returns the value's text pieces (text generators) or its bare word, given the
// bindings made so far in the case and the case's fresh counter.
func (v *Value) render(bind map[string][]byte, fresh *int) (pieces []piece, word string) {
	c := v.Call
	switch c.Name {
	case "int":
		return nil, strconv.Itoa(v.N)
	case "one":
		return nil, c.Args[v.N]
	case "fresh":
		*fresh++
		return nil, c.Args[0] + strconv.Itoa(*fresh)
	case "len":
		return nil, strconv.Itoa(max(c.Min, len(bind[c.Ref])+v.N))
	case "tail":
		b := bind[c.Ref]
		return []piece{{s: string(b[max(0, len(b)-v.N):]), n: 1}}, ""
	}
	return c.gen.content(c, v.Seed, v.N, v.Plain), ""
}

func join(ps []piece) []byte {
	var b strings.Builder
	for _, p := range ps {
		b.WriteString(strings.Repeat(p.s, p.n))
	}
	return []byte(b.String())
}

// quote writes pieces as a journey value: "s"*n+"t".
func quote(ps []piece) string {
	var b strings.Builder
	for _, p := range ps {
		if p.n == 0 || p.s == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('+')
		}
		if p.expr != "" {
			b.WriteString(p.expr)
			continue
		}
		b.WriteString(strconv.Quote(p.s))
		if p.n > 1 {
			b.WriteString("*" + strconv.Itoa(p.n))
		}
	}
	if b.Len() == 0 {
		return `""`
	}
	return b.String()
}

// Long values are a random unit repeated plus a random remainder, so a case file stays
// small (a few hundred bytes for megabytes of output) and its value is still varied.
const (
	shortValue = 256
	unitLen    = 61
)

func plainPieces(n int) []piece { return []piece{{s: "x", n: n}} }

func repeatUnit(r *rand.Rand, n int, unit func(r *rand.Rand, n int) string) []piece {
	if n <= shortValue {
		return []piece{{s: unit(r, n), n: 1}}
	}
	u := unit(r, unitLen)
	k := n / len(u)
	rest := n - k*len(u)
	return []piece{{s: u, n: k}, {s: unit(r, rest), n: 1}}
}

func asciiContent(_ *Call, seed uint64, n int, plain bool) []piece {
	if plain {
		return plainPieces(n)
	}
	r := rand.New(rand.NewPCG(seed, 1))
	return repeatUnit(r, n, randASCII)
}

func randASCII(r *rand.Rand, n int) string {
	b := make([]byte, n)
	for i := range b {
		b[i] = byte(' ' + r.IntN(95))
		if i+1 < n && r.IntN(40) == 0 {
			b[i], b[i+1] = '\r', '\n'
			i++
		}
	}
	return string(b)
}

func bytesContent(_ *Call, seed uint64, n int, plain bool) []piece {
	if plain {
		return plainPieces(n)
	}
	r := rand.New(rand.NewPCG(seed, 2))
	return repeatUnit(r, n, func(r *rand.Rand, n int) string {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(r.IntN(256))
		}
		return string(b)
	})
}

// utf8Content mixes ASCII with 2-, 3- and 4-byte sequences; a long value's repeated unit
// is always valid UTF-8, its remainder and short values sometimes hold invalid bytes.
func utf8Content(c *Call, seed uint64, n int, plain bool) []piece {
	if plain {
		return plainPieces(n)
	}
	r := rand.New(rand.NewPCG(seed, 3))
	if n <= shortValue {
		return []piece{{s: randUTF8(r, n, !c.Valid), n: 1}}
	}
	u := randUTF8(r, unitLen, false)
	k := n / len(u)
	return []piece{{s: u, n: k}, {s: randUTF8(r, n-k*len(u), !c.Valid), n: 1}}
}

var (
	twoByte   = []rune{'é', 'ß', 'ж', 'ñ', 'Ω'}
	threeByte = []rune{'€', '中', '文', '→', '✓'}
	fourByte  = []rune{'😀', '𝄞', '🚀', '𐍈'}
	invalid   = []string{"\xff", "\xc3", "\x80", "\xe2\x82", "\xf0\x9f\x98", "\xed\xa0\x80"}
)

func randUTF8(r *rand.Rand, n int, allowInvalid bool) string {
	var b strings.Builder
	for b.Len() < n {
		left := n - b.Len()
		var s string
		switch x := r.IntN(100); {
		case x < 55:
			s = string(rune(' ' + r.IntN(95)))
		case x < 70:
			s = string(twoByte[r.IntN(len(twoByte))])
		case x < 85:
			s = string(threeByte[r.IntN(len(threeByte))])
		case x < 96:
			s = string(fourByte[r.IntN(len(fourByte))])
		default:
			if allowInvalid {
				s = invalid[r.IntN(len(invalid))]
			}
		}
		if s == "" || len(s) > left {
			s = string(rune(' ' + r.IntN(95)))
		}
		b.WriteString(s)
	}
	return b.String()
}

// sizeContent fills n bytes with "x", and (unless plain) places a multi-byte code point
// across some multiples of the size, so a chunker must not split it there.
func sizeContent(c *Call, seed uint64, n int, plain bool) []piece {
	if plain {
		return plainPieces(n)
	}
	r := rand.New(rand.NewPCG(seed, 4))
	var ps []piece
	at := 0
	for b := c.Base; b < n; b += c.Base {
		if r.IntN(3) == 0 {
			continue
		}
		cp := []string{"é", "€", "😀"}[r.IntN(3)]
		start := b - 1 - r.IntN(len(cp)-1) // at least one byte on each side
		if start < at || start+len(cp) > n {
			continue
		}
		ps = append(ps, piece{s: "x", n: start - at}, piece{s: cp, n: 1})
		at = start + len(cp)
	}
	return append(ps, piece{s: "x", n: n - at})
}

// edges are the lengths {edge A..B L…} draws from: the range's ends and the sizes next to
// them, and just below, at and above each limit and its double, within the range.
func edges(c *Call) []int {
	var out []int
	add := func(ns ...int) {
		for _, n := range ns {
			if n >= c.Lo && n <= c.Hi && !slices.Contains(out, n) {
				out = append(out, n)
			}
		}
	}
	add(c.Lo, c.Lo+1, c.Hi-1, c.Hi)
	for _, a := range c.Args[1:] {
		l, _ := strconv.Atoi(a)
		add(l-1, l, l+1, 2*l-1, 2*l, 2*l+1)
	}
	return out
}

// edgeContent is valid UTF-8 of one width (1 to 4 bytes a code point, by the seed): one or
// two ASCII bytes, then code points of that width, then ASCII to the length. The ASCII
// prefix puts a code point of two bytes or more across the first limit.
func edgeContent(c *Call, seed uint64, n int, plain bool) []piece {
	if plain || n < 3 {
		return plainPieces(n)
	}
	cp := []string{"x", "é", "€", "😀"}[rand.New(rand.NewPCG(seed, 5)).IntN(4)]
	p := 1
	if len(c.Args) > 1 {
		if l, _ := strconv.Atoi(c.Args[1]); len(cp) > 1 && (l-p)%len(cp) == 0 {
			p = 2
		}
	}
	k := (n - p) / len(cp)
	return []piece{{s: "a", n: p}, {s: cp, n: k}, {s: "x", n: n - p - k*len(cp)}}
}
