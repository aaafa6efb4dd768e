package infer

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// Channels: the paths that carry the same framing, their codecs and their frames.

// channel is one channel of the draft with what supports it.
type channel struct {
	Name   string   `json:"name"`
	Paths  []string `json:"paths"`
	Text   *codec   `json:"text,omitempty"`
	Binary *codec   `json:"binary,omitempty"`
	Frames []*frame `json:"frames"`

	messages int
}

// codec is a codec (contract.Codec) the draft gives text or binary messages.
type codec struct {
	JSON   *naming `json:"json,omitempty"`
	Header *header `json:"header,omitempty"`
	Batch  string  `json:"batch,omitempty"`

	messages int
	how      []Support
	unread   int // messages it cannot read (empty binary messages)
}

// frame is a frame (contract.Frame) of the draft with what supports it.
type frame struct {
	Opcode    *int              `json:"opcode,omitempty"`
	Type      string            `json:"type,omitempty"`
	Name      string            `json:"name"`
	Direction string            `json:"direction"`
	Payload   string            `json:"payload,omitempty"`
	Fields    map[string]*field `json:"fields,omitempty"`

	count   int
	kinds   map[string]int // the client kinds of the pairings it was seen in
	payload Support        // what the payload kind rests on
}

// item is one frame a message carries, named by the codec the draft guessed.
type item struct {
	m       *message
	typ     string // JSON codecs
	opcode  int    // header codecs
	payload []byte // after the header
	value   map[string]any
	json    bool // the payload was read as JSON (a JSON codec's frame, or a header's JSON object)
}

// guessCodec guesses how msgs (all text or all binary, of one channel) carry frames: JSON
// objects when every message holds only JSON objects, else a binary header (which reads any
// bytes, text included).
func (g *guesser) guessCodec(msgs []message) (*codec, []item) {
	c := &codec{messages: len(msgs)}
	if objs, batch, ok := readJSON(msgs); ok {
		n, how := guessNaming(objs)
		c.JSON, c.Batch, c.how = &n, batch, how
		if batch != "" {
			c.how = append([]Support{{What: "batch " + batch, Count: batched(msgs, batch), Of: len(msgs)}}, c.how...)
		}
		items := make([]item, 0, len(objs))
		for _, o := range objs {
			items = append(items, item{m: o.m, typ: n.name(o.v), value: o.v, json: true})
		}
		return c, items
	}
	var sized []message
	for _, m := range msgs {
		if len(m.data) > 0 {
			sized = append(sized, m)
		}
	}
	if c.unread = len(msgs) - len(sized); c.unread > 0 {
		c.how = append(c.how, Support{What: "empty messages: no header reads them", Count: c.unread, Of: len(msgs)})
	}
	if len(sized) == 0 {
		return nil, nil
	}
	h, typeAt, how := guessHeader(sized)
	c.Header, c.how = &h, append(c.how, how...)
	items := make([]item, 0, len(sized))
	for i := range msgs {
		m := &msgs[i]
		if len(m.data) == 0 {
			continue
		}
		it := item{m: m, opcode: int(m.data[typeAt]), payload: m.data[h.Length:]}
		if len(it.payload) > 0 && it.payload[0] == '{' {
			var v map[string]any
			if jsonv1.Unmarshal(it.payload, &v) == nil && v != nil {
				it.value, it.json = v, true
			}
		}
		items = append(items, it)
	}
	return c, items
}

// batched counts the messages that hold a batch (an array, several lines).
func batched(msgs []message, batch string) int {
	n := 0
	for _, m := range msgs {
		_, b, _ := splitJSON(m.data)
		if b == batch {
			n++
		}
	}
	return n
}

// signature is what must be equal for two paths to be one channel: how each message type
// is cut and named, and a header's size, constants and type (its counters may differ).
func (c *codec) signature() string {
	if c == nil {
		return "-"
	}
	if c.JSON != nil {
		b, _ := json.Marshal(struct {
			N *naming
			B string
		}{c.JSON, c.Batch})
		return string(b)
	}
	var s strings.Builder
	fmt.Fprintf(&s, "header %d", c.Header.Length)
	for _, f := range c.Header.Fields {
		if f.Value != nil || f.Name == "type" {
			fmt.Fprintf(&s, " %s@%d", f.Name, f.Offset)
			if f.Value != nil {
				fmt.Fprintf(&s, "=%d", *f.Value)
			}
		}
	}
	return s.String()
}

// guesser drafts channels from messages.
type guesser struct {
	fields fieldGuesser
}

// channels groups the messages by path, gives each path its codecs, and makes one channel
// of the paths whose codecs agree (see signature) when the codecs guessed from all their
// messages at once still agree; other paths are channels of their own.
func (g *guesser) channels(msgs []message) []*channel {
	byPath := map[string][]message{}
	var paths []string
	for _, m := range msgs {
		if _, ok := byPath[m.path]; !ok {
			paths = append(paths, m.path)
		}
		byPath[m.path] = append(byPath[m.path], m)
	}
	slices.Sort(paths)
	sigs := map[string]string{}
	var groups [][]string
	bySig := map[string]int{}
	for _, p := range paths {
		ch := g.channel([]string{p}, byPath[p])
		sigs[p] = ch.signature()
		if i, ok := bySig[sigs[p]]; ok {
			groups[i] = append(groups[i], p)
			continue
		}
		bySig[sigs[p]] = len(groups)
		groups = append(groups, []string{p})
	}
	var out []*channel
	for _, group := range groups {
		var all []message
		for _, p := range group {
			all = append(all, byPath[p]...)
		}
		ch := g.channel(group, all)
		if len(group) > 1 && ch.signature() != sigs[group[0]] {
			for _, p := range group {
				out = append(out, g.channel([]string{p}, byPath[p]))
			}
			continue
		}
		out = append(out, ch)
	}
	names := map[string]int{}
	for _, ch := range out {
		ch.Name = channelName(ch.Paths)
		if names[ch.Name]++; names[ch.Name] > 1 {
			ch.Name = fmt.Sprintf("%s-%d", ch.Name, names[ch.Name])
		}
	}
	return out
}

func (ch *channel) signature() string {
	return ch.Text.signature() + " | " + ch.Binary.signature()
}

// channel drafts one channel from the messages of its paths.
func (g *guesser) channel(paths []string, msgs []message) *channel {
	ch := &channel{Paths: paths, messages: len(msgs)}
	var text, binary []message
	for _, m := range msgs {
		if m.binary {
			binary = append(binary, m)
		} else {
			text = append(text, m)
		}
	}
	var items []item
	if len(text) > 0 {
		c, its := g.guessCodec(text)
		ch.Text, items = c, append(items, its...)
	}
	if len(binary) > 0 {
		c, its := g.guessCodec(binary)
		ch.Binary, items = c, append(items, its...)
	}
	ch.Frames = g.frames(ch, items)
	oneValueEnums(ch.Frames)
	return ch
}

// channelName names a channel by its paths: their common start, cut at a separator
// ("/terminal.multiplex" and "/terminal.subscribe": terminal), else the first path.
func channelName(paths []string) string {
	names := make([]string, len(paths))
	for i, p := range paths {
		names[i] = strings.Trim(p, "/")
		if names[i] == "" {
			names[i] = "root"
		}
	}
	if len(names) == 1 {
		return names[0]
	}
	prefix := names[0]
	for _, n := range names[1:] {
		for !strings.HasPrefix(n, prefix) {
			prefix = prefix[:len(prefix)-1]
		}
	}
	if i := strings.LastIndexAny(prefix, "./-_"); i > 0 {
		return prefix[:i]
	}
	return names[0]
}

// frames groups a channel's items into frames: one per direction and type (JSON) or opcode
// (header), with its payload and fields.
func (g *guesser) frames(ch *channel, items []item) []*frame {
	type key struct {
		binary bool // a header frame
		dir    string
		typ    string
		opcode int
	}
	groups := map[key][]item{}
	for _, it := range items {
		header := !it.m.binary && ch.Text != nil && ch.Text.Header != nil || it.m.binary && ch.Binary != nil && ch.Binary.Header != nil
		k := key{binary: header, dir: it.m.dir}
		if header {
			k.opcode = it.opcode
		} else {
			k.typ = it.typ
		}
		groups[k] = append(groups[k], it)
	}
	keys := make([]key, 0, len(groups))
	for k := range groups {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		a, b := keys[i], keys[j]
		switch {
		case a.binary != b.binary:
			return a.binary
		case a.opcode != b.opcode:
			return a.opcode < b.opcode
		case a.typ != b.typ:
			return a.typ < b.typ
		}
		return a.dir > b.dir // H>C first
	})
	var out []*frame
	for _, k := range keys {
		its := groups[k]
		f := &frame{Direction: k.dir, count: len(its), kinds: map[string]int{}}
		for _, it := range its {
			if it.m.kind != "" {
				f.kinds[it.m.kind]++
			}
		}
		if k.binary {
			op := k.opcode
			f.Opcode, f.Name = &op, fmt.Sprintf("Opcode%d", op)
			g.headerPayload(f, its)
		} else {
			if k.typ == "" {
				continue // an object no rule names: the check after drafting reports it
			}
			f.Type, f.Name = k.typ, k.typ
			c := ch.Text
			if its[0].m.binary {
				c = ch.Binary
			}
			g.jsonPayload(f, its, c)
		}
		out = append(out, f)
	}
	return out
}

// jsonPayload gives a JSON frame its payload and fields. The key that names it by its value
// (a discriminator, a pointer's) is not listed: every frame of the type carries it; a key that
// names it by its presence is (required).
func (g *guesser) jsonPayload(f *frame, its []item, c *codec) {
	objs := make([]map[string]any, len(its))
	empty := 0
	for i, it := range its {
		objs[i] = it.value
		if len(it.value) == 0 {
			empty++
		}
	}
	if empty == len(its) {
		f.Payload, f.payload = "empty", Support{What: "the empty object", Count: empty, Of: len(its)}
		return
	}
	skip := ""
	for _, k := range []string{c.JSON.Discriminator, unescapeToken(strings.TrimPrefix(c.JSON.Pointer, "/"))} {
		if k != "" && contract.PointerName(objs[0][k]) == f.Type {
			skip = k
			break
		}
	}
	f.Payload, f.payload = "json", Support{What: "JSON objects", Count: len(its), Of: len(its)}
	f.Fields = g.fields.object(objs, skip, 0)
}

// headerPayload gives a header frame its payload: empty when every payload is, JSON when
// every one that is not empty is a JSON object (its fields listed when none is empty), text
// when every one is UTF-8, else binary.
func (g *guesser) headerPayload(f *frame, its []item) {
	var nonEmpty, objects, text int
	for _, it := range its {
		if len(it.payload) == 0 {
			continue
		}
		nonEmpty++
		if it.json {
			objects++
		}
		if utf8.Valid(it.payload) {
			text++
		}
	}
	switch {
	case nonEmpty == 0:
		f.Payload, f.payload = "empty", Support{What: "no payload", Count: len(its), Of: len(its)}
	case objects == nonEmpty:
		f.Payload, f.payload = "json", Support{What: "payloads that are JSON objects", Count: objects, Of: len(its)}
		if nonEmpty == len(its) {
			objs := make([]map[string]any, len(its))
			for i, it := range its {
				objs[i] = it.value
			}
			f.Fields = g.fields.object(objs, "", 0)
		}
	case text == nonEmpty:
		f.Payload, f.payload = "text", Support{What: "payloads that are UTF-8 text", Count: text, Of: len(its)}
	default:
		f.Payload, f.payload = "binary", Support{What: "payloads that are bytes, not text", Count: nonEmpty - text, Of: len(its)}
	}
}
