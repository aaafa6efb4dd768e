package checks_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// A product whose data travels as items by id: notes a client puts (one at a time, or
// several in one import), stored by the host; edits the host pushes to sync clients only.
const notesContract = `{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"pointer":"/method","keys":["result","error"]},"batch":"json-array"},
    "frames":[{"type":"put","name":"put","direction":"C>H"},{"type":"result","name":"result","direction":"H>C"}]}],
  "streams":[
    {"name":"notes","sent":{"role":"client","actions":["put","import"],"each":"/notes","pointer":"/text","id":"/id","encoding":"text"},
     "delivered":{"role":"host","observations":["stored"],"pointer":"/text","id":"/id","encoding":"text"},"compare":"set"},
    {"name":"edits","kinds":["sync"],"sent":{"role":"host","actions":["edit"],"pointer":"/text","id":"/id","encoding":"text"},
     "delivered":{"role":"client","observations":["applied"],"pointer":"/text","id":"/id","encoding":"text"},"compare":"set"}]}`

var _ = Describe("DataLoss on declared item streams", func() {
	var c *contract.Contract
	var j *journeys.Journey
	BeforeEach(func() {
		var err error
		c, err = contract.Parse("notes.json", []byte(notesContract))
		Expect(err).NotTo(HaveOccurred())
		j, err = journeys.Parse("n.txtar", []byte("kind *\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
	})
	act := func(t *transcript.Transcript, role transcript.Role, name string, args any) {
		raw, _ := json.Marshal(args)
		t.Actions = append(t.Actions, transcript.Action{Role: role, Name: name, Args: raw, OK: true, Step: "a"})
	}
	obs := func(t *transcript.Transcript, role transcript.Role, what string, data any) {
		raw, _ := json.Marshal(data)
		t.Observations = append(t.Observations, transcript.Observation{Role: role, What: what, Data: raw, Step: "a"})
	}
	loss := func(t *transcript.Transcript) []results.Finding {
		return checks.DataLoss(&checks.Input{Transcript: t, Journey: j, Host: c, Client: c})
	}

	It("counts every item of a batch, compares the last value sent for an id, and finds what never arrived", func() {
		t := &transcript.Transcript{Kind: "cli"}
		act(t, transcript.Client, "put", map[string]any{"id": "n1", "text": "draft"})
		act(t, transcript.Client, "put", map[string]any{"id": "n1", "text": "final"})
		act(t, transcript.Client, "import", map[string]any{"notes": []any{map[string]any{"id": "n2", "text": "two"}, map[string]any{"id": "n3", "text": "three"}}})
		obs(t, transcript.Host, "stored", map[string]any{"id": "n1", "text": "draft"})
		obs(t, transcript.Host, "stored", map[string]any{"id": "n1", "text": "final"})
		obs(t, transcript.Host, "stored", map[string]any{"id": "n2", "text": "two"})
		obs(t, transcript.Host, "stored", map[string]any{"id": "n9", "text": "not sent: not this stream's business"})
		fs := loss(t)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Message).To(Equal("stream notes: 1 of 3 items sent were not delivered as last sent"))
		Expect(fs[0].Detail).To(Equal(`never delivered: "n3"`))
		Expect(fs[0].Direction).To(Equal("C>H"))

		obs(t, transcript.Host, "stored", map[string]any{"id": "n3", "text": "three"})
		Expect(loss(t)).To(BeEmpty())
	})

	It("joins what a stream compared item by item sent only where bytes are compared, and still finds its loss", func() {
		t := &transcript.Transcript{Kind: "cli"}
		in := &checks.Input{Transcript: t, Journey: j, Host: c, Client: c}
		var r checks.StreamReader
		in.Streams = &r
		act(t, transcript.Client, "put", map[string]any{"id": "n1", "text": "one"})
		act(t, transcript.Client, "put", map[string]any{"id": "n2", "text": "two"})
		obs(t, transcript.Host, "stored", map[string]any{"id": "n1", "text": "one"})
		Expect(checks.SentJoined(&r, in, "notes")).To(BeNil(), "a set stream keeps its items, not a second copy joined")
		fs := checks.DataLoss(in)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(Equal(`never delivered: "n2"`))
	})

	It("checks a stream only for the client kinds it names", func() {
		t := &transcript.Transcript{Kind: "cli"}
		act(t, transcript.Host, "edit", map[string]any{"id": "n1", "text": "changed"})
		Expect(loss(t)).To(BeEmpty(), "a cli never applies host edits")
		t.Kind = "sync"
		obs(t, transcript.Client, "applied", map[string]any{"id": "n1", "text": ""})
		fs := loss(t)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Detail).To(Equal(`"n1": sent "changed", delivered ""`))
	})
})

// A product whose client reports its whole document after every change (a cumulative
// stream), and only some reports count (where).
const docContract = `{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"pointer":"/method"}},
    "frames":[{"type":"put","name":"put","direction":"C>H"}]}],
  "streams":[
    {"name":"doc","sent":{"role":"host","observations":["wrote"],"pointer":"/text","encoding":"text"},
     "delivered":{"role":"client","observations":["shown","ignored"],"where":{"final":true},"pointer":"/doc","encoding":"text"},"compare":"cumulative"}]}`

var _ = Describe("StreamText on a cumulative stream", func() {
	It("is the last value delivered, skipping reports the stream does not count", func() {
		c, err := contract.Parse("doc.json", []byte(docContract))
		Expect(err).NotTo(HaveOccurred())
		j, err := journeys.Parse("d.txtar", []byte("kind *\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		t := &transcript.Transcript{Kind: "cli"}
		in := &checks.Input{Transcript: t, Journey: j, Host: c, Client: c}
		obs := func(role transcript.Role, what string, data any) {
			raw, _ := json.Marshal(data)
			t.Observations = append(t.Observations, transcript.Observation{Role: role, What: what, Data: raw, Step: "a"})
		}
		Expect(checks.StreamText(in, transcript.Client, "doc")).To(BeNil())
		obs(transcript.Client, "shown", map[string]any{"doc": "a", "final": true})
		obs(transcript.Client, "shown", map[string]any{"doc": "ab", "final": true})
		obs(transcript.Client, "shown", map[string]any{"doc": "abc-draft", "final": false})
		obs(transcript.Host, "shown", map[string]any{"doc": "host's, not the client's", "final": true})
		Expect(string(checks.StreamText(in, transcript.Client, "doc"))).To(Equal("ab"))
		obs(transcript.Host, "wrote", map[string]any{"text": "a"})
		obs(transcript.Host, "wrote", map[string]any{"text": "b"})
		Expect(string(checks.StreamText(in, transcript.Host, "doc"))).To(Equal("ab"), "the sent end, concatenated")
	})
})

// A product whose client reports, after every change, only the part of its document past
// what its previous report covered (from), and the whole document now and then.
const partsContract = `{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"pointer":"/method"}},
    "frames":[{"type":"put","name":"put","direction":"C>H"}]}],
  "streams":[
    {"name":"doc","sent":{"role":"host","observations":["wrote"],"pointer":"/text","encoding":"text"},
     "delivered":{"role":"client","observations":["shown","reloaded"],"pointer":"/doc","from":"/from","encoding":"text"},"compare":"cumulative"}]}`

var _ = Describe("a cumulative stream reported in parts (from)", func() {
	var (
		c  *contract.Contract
		j  *journeys.Journey
		t  *transcript.Transcript
		in *checks.Input
	)
	BeforeEach(func() {
		var err error
		c, err = contract.Parse("parts.json", []byte(partsContract))
		Expect(err).NotTo(HaveOccurred())
		j, err = journeys.Parse("d.txtar", []byte("kind *\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		t = &transcript.Transcript{Kind: "cli"}
		in = &checks.Input{Transcript: t, Journey: j, Host: c, Client: c}
	})
	obs := func(role transcript.Role, what string, data any) {
		raw, _ := json.Marshal(data)
		t.Observations = append(t.Observations, transcript.Observation{Role: role, What: what, Data: raw, Step: "a"}.Memoized())
	}

	It("folds each part into what came before it, and a part without from replaces the whole", func() {
		var r checks.StreamReader
		obs(transcript.Client, "shown", map[string]any{"doc": "hello"})
		obs(transcript.Client, "shown", map[string]any{"doc": " world", "from": 5})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("hello world"))
		obs(transcript.Client, "shown", map[string]any{"doc": "!", "from": 11})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("hello world!"), "read on from where it was")
		obs(transcript.Client, "shown", map[string]any{"doc": "W", "from": 6})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("hello W"), "a part replaces everything from its byte on")
		obs(transcript.Client, "shown", map[string]any{"doc": "?", "from": 99})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("hello W?"), "a part past the end continues it")
		obs(transcript.Client, "reloaded", map[string]any{"doc": "fresh"})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("fresh"))
		Expect(string(checks.StreamText(in, transcript.Client, "doc"))).To(Equal("fresh"), "a reader of its own sees the same")
	})

	It("searches only what arrived since its last look, and again what a part replaced", func() {
		var r checks.StreamReader
		s := &checks.Search{Text: []byte("marker")}
		obs(transcript.Client, "shown", map[string]any{"doc": "abc mar"})
		Expect(r.Contains(in, transcript.Client, "doc", s)).To(BeFalse())
		obs(transcript.Client, "shown", map[string]any{"doc": "ker", "from": 7})
		Expect(r.Contains(in, transcript.Client, "doc", s)).To(BeTrue(), "a match across the bytes looked at and the new ones")

		s = &checks.Search{Text: []byte("xyz")}
		Expect(r.Contains(in, transcript.Client, "doc", s)).To(BeFalse())
		obs(transcript.Client, "shown", map[string]any{"doc": "xyz", "from": 2})
		Expect(r.Contains(in, transcript.Client, "doc", s)).To(BeTrue(), "bytes replaced inside what was looked at are looked at again")
		obs(transcript.Client, "reloaded", map[string]any{"doc": "none here"})
		Expect(r.Contains(in, transcript.Client, "doc", &checks.Search{Text: []byte("xyz")})).To(BeFalse())
		Expect(r.Contains(in, transcript.Client, "doc", &checks.Search{Text: []byte("here")})).To(BeTrue())
	})

	It("reads a sending end and a plain observation on from where it was, and searches what arrived since", func() {
		var r checks.StreamReader
		s := &checks.Search{Text: []byte("marker")}
		obs(transcript.Host, "wrote", map[string]any{"text": "abc mar"})
		Expect(r.Contains(in, transcript.Host, "doc", s)).To(BeFalse())
		obs(transcript.Client, "shown", map[string]any{"doc": "ker"}) // the other end
		Expect(r.Contains(in, transcript.Host, "doc", s)).To(BeFalse())
		obs(transcript.Host, "wrote", map[string]any{"text": "ker"})
		Expect(r.Contains(in, transcript.Host, "doc", s)).To(BeTrue(), "a match across the bytes looked at and the new ones")
		Expect(string(r.Text(in, transcript.Host, "doc"))).To(Equal("abc marker"))
		Expect(string(checks.StreamText(in, transcript.Host, "doc"))).To(Equal("abc marker"), "a reader of its own sees the same")

		obs(transcript.Host, "typed", map[string]any{"bytes": "aGk="})
		Expect(string(r.Text(in, transcript.Host, "typed"))).To(Equal("hi"))
		obs(transcript.Host, "typed", map[string]any{"bytes": "IQ=="})
		Expect(string(r.Text(in, transcript.Host, "typed"))).To(Equal("hi!"))
		Expect(r.Contains(in, transcript.Host, "typed", &checks.Search{Text: []byte("i!")})).To(BeTrue())
	})

	It("finds data loss in the folded value, and none when the parts add up", func() {
		obs(transcript.Host, "wrote", map[string]any{"text": "abc"})
		obs(transcript.Host, "wrote", map[string]any{"text": "def"})
		obs(transcript.Client, "shown", map[string]any{"doc": "abc"})
		obs(transcript.Client, "shown", map[string]any{"doc": "def", "from": 3})
		Expect(checks.DataLoss(in)).To(BeEmpty())

		obs(transcript.Host, "wrote", map[string]any{"text": "ghi"})
		obs(transcript.Client, "shown", map[string]any{"doc": "gh", "from": 6})
		fs := checks.DataLoss(in)
		Expect(fs).To(HaveLen(1))
		Expect(fs[0].Message).To(Equal("stream doc: the last delivered value differs from everything sent (9 bytes sent, 8 delivered)"))
	})

	It("keeps no decoded copy of what it folds on the observations (a fold reads each value once)", func() {
		var r checks.StreamReader
		obs(transcript.Client, "shown", map[string]any{"doc": "abc"})
		obs(transcript.Client, "reloaded", map[string]any{"doc": "abcdef"})
		obs(transcript.Client, "shown", map[string]any{"doc": "g", "from": 6})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("abcdefg"))
		delivered := c.Stream("doc").Delivered
		for _, o := range t.Observations {
			Expect(checks.KeptItems(o, delivered)).To(BeFalse(), "the values folded are the fold's alone")
		}
		obs(transcript.Client, "shown", map[string]any{"doc": "h", "from": 7})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("abcdefgh"), "and it reads on")
		Expect(string(checks.StreamText(in, transcript.Client, "doc"))).To(Equal("abcdefgh"), "as a reader of its own does")
	})

	It("leaves a whole value it folded as it was when later parts follow it", func() {
		var r checks.StreamReader
		obs(transcript.Client, "reloaded", map[string]any{"doc": "abc"})
		first := r.Text(in, transcript.Client, "doc")
		obs(transcript.Client, "shown", map[string]any{"doc": "d", "from": 3})
		obs(transcript.Client, "shown", map[string]any{"doc": "X", "from": 1})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("aX"))
		Expect(string(first)).To(Equal("abc"), "what a caller holds does not change under it")
	})

	It("finds with the journey's reader, folded part of the way, what it finds folding afresh", func() {
		var r checks.StreamReader
		obs(transcript.Host, "wrote", map[string]any{"text": "abc"})
		obs(transcript.Client, "shown", map[string]any{"doc": "abc"})
		Expect(string(r.Text(in, transcript.Client, "doc"))).To(Equal("abc")) // a barrier read this far
		obs(transcript.Host, "wrote", map[string]any{"text": "def"})
		obs(transcript.Client, "reloaded", map[string]any{"doc": "abcde"})
		obs(transcript.Client, "shown", map[string]any{"doc": "f", "from": 5})
		Expect(checks.DataLoss(in)).To(BeEmpty())
		with := *in
		with.Streams = &r
		Expect(checks.DataLoss(&with)).To(BeEmpty())

		obs(transcript.Host, "wrote", map[string]any{"text": "ghi"})
		obs(transcript.Client, "shown", map[string]any{"doc": "gh", "from": 6})
		afresh := checks.DataLoss(in)
		Expect(afresh).To(HaveLen(1), "the control: the lost byte is found")
		Expect(checks.DataLoss(&with)).To(Equal(afresh))
	})
})
