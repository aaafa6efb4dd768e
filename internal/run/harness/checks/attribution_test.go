package checks_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("attribution of frames to the step that caused them", func() {
	rpc, err := contract.Parse("rpc", []byte(`{"contractVersion":2,"product":"p","version":"v1","protocol":{"version":1,"minCompatible":1},
	  "channels":[{"name":"rpc","paths":["/rpc"],
	    "text":{"json":{"pointer":"/method","keys":["result"]}},
	    "binary":{"header":{"length":16,"fields":[{"name":"type","offset":2,"encoding":"u8"},{"name":"stream","offset":4,"encoding":"u32le"}]}},
	    "frames":[
	      {"type":"get","name":"get","direction":"C>H","payload":"json"},
	      {"type":"result","name":"result","direction":"H>C","payload":"json"},
	      {"type":"notice","name":"notice","direction":"H>C","payload":"json"},
	      {"opcode":8,"name":"Resize","direction":"C>H","payload":"json"},
	      {"opcode":5,"name":"Resized","direction":"H>C","payload":"json"},
	      {"opcode":2,"name":"Start","direction":"H>C","payload":"empty"},
	      {"opcode":3,"name":"Chunk","direction":"H>C","payload":"text"},
	      {"opcode":4,"name":"End","direction":"H>C","payload":"empty"}],
	    "invariants":[
	      {"kind":"correlation","request":["get"],"reply":["result"],"pointer":"/id"},
	      {"kind":"echo","request":["Resize"],"reply":["Resized"],"pointer":"/cols"},
	      {"kind":"order","start":"Start","chunk":"Chunk","end":"End"}]}]}`))
	Expect(err).NotTo(HaveOccurred())
	j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep one\nclient a\nstep two\nclient b\nstep three\nclient c\n"))
	Expect(err).NotTo(HaveOccurred())

	frame := func(t *transcript.Transcript, conn int, dir, step string, data []byte, binary bool) {
		t.Frames = append(t.Frames, transcript.Frame{Index: len(t.Frames) + 1, Conn: conn, Path: "/rpc", Dir: dir, Binary: binary, Data: data, Step: step})
	}
	header := func(opcode byte, stream uint32, payload string) []byte {
		b := make([]byte, 16, 16+len(payload))
		b[2], b[4] = opcode, byte(stream)
		return append(b, payload...)
	}
	steps := func(named []checks.Named) (out []string) {
		for _, n := range named {
			s := n.Step
			if n.Arrived != "" {
				s += "<" + n.Arrived
			}
			out = append(out, n.Name+"@"+s)
		}
		return out
	}

	It("takes a reply to the request it answers on its connection, and an echo to the latest request", func() {
		t := &transcript.Transcript{Kind: "cli"}
		frame(t, 1, "C>H", "one", []byte(`{"method":"get","id":1}`), false)
		frame(t, 2, "C>H", "one", []byte(`{"method":"get","id":1}`), false)
		frame(t, 1, "H>C", "two", []byte(`{"result":{},"id":1}`), false)    // late, answers conn 1's
		frame(t, 1, "H>C", "two", []byte(`{"method":"notice"}`), false)     // caused by nothing it names
		frame(t, 1, "C>H", "two", []byte(`{"method":"get","id":1}`), false) // the id again, in step two
		frame(t, 2, "H>C", "three", []byte(`{"result":{},"id":1}`), false)  // conn 2's request was in step one
		frame(t, 1, "H>C", "three", []byte(`{"result":{},"id":1}`), false)  // conn 1's latest was in step two
		frame(t, 1, "H>C", "three", []byte(`{"result":{},"id":9}`), false)  // answers nothing: stays
		frame(t, 1, "C>H", "one", header(8, 1, `{"cols":80}`), true)
		frame(t, 1, "H>C", "two", header(5, 1, `{"cols":80}`), true)
		frame(t, 1, "H>C", "two", header(5, 1, `{"cols":80}`), true) // a second echo answers nothing
		in := &checks.Input{Transcript: t, Journey: j, Host: rpc, Client: rpc}
		Expect(steps(checks.NameFrames(in))).To(Equal([]string{
			"get@one", "get@one", "result@one<two", "notice@two", "get@two", "result@one<three", "result@two<three", "result@three",
			"Resize@one", "Resized@one<two", "Resized@two",
		}))
	})

	It("takes a sequence's chunks and end to its start, per connection and stream, and never moves a frame forward", func() {
		t := &transcript.Transcript{Kind: "cli"}
		frame(t, 1, "H>C", "one", header(2, 1, ""), true)
		frame(t, 1, "H>C", "one", header(2, 2, ""), true)
		frame(t, 1, "H>C", "two", header(3, 1, "x"), true)
		frame(t, 1, "H>C", "two", header(4, 1, ""), true)
		frame(t, 1, "H>C", "three", header(3, 1, "y"), true) // outside a sequence: stays
		frame(t, 1, "H>C", "three", header(4, 2, ""), true)
		frame(t, 1, "H>C", "three", header(2, 3, ""), true)
		frame(t, 1, "H>C", "one", header(3, 3, "z"), true) // its start came in a later step: stays
		in := &checks.Input{Transcript: t, Journey: j, Host: rpc, Client: rpc}
		Expect(steps(checks.NameFrames(in))).To(Equal([]string{
			"Start@one", "Start@one", "Chunk@one<two", "End@one<two", "Chunk@three", "End@one<three", "Start@three", "Chunk@one",
		}))
	})

	It("knows which requests of a step are still unanswered", func() {
		t := &transcript.Transcript{Kind: "cli"}
		frame(t, 1, "C>H", "one", []byte(`{"method":"get","id":1}`), false)
		frame(t, 1, "C>H", "one", []byte(`{"method":"get","id":2}`), false)
		frame(t, 1, "C>H", "one", []byte(`{"method":"get"}`), false) // a notification: nothing owed
		in := &checks.Input{Transcript: t, Journey: j, Host: rpc, Client: rpc}
		nm := checks.NewNamer(in)
		for _, f := range t.Frames {
			nm.Name(f)
		}
		Expect(nm.Unanswered("one", false)).To(HaveLen(2))
		nm.Name(transcript.Frame{Index: 4, Conn: 1, Path: "/rpc", Dir: "H>C", Data: []byte(`{"result":{},"id":2}`), Step: "two"})
		Expect(nm.Unanswered("one", false)).To(ConsistOf(HaveField("Index", 1)))
		Expect(nm.Unanswered("two", false)).To(BeEmpty())
		Expect(nm.Unanswered("three", true)).To(BeEmpty(), "no invariant says a request is answered once")
		Expect(checks.Unanswered(in, checks.NameFrames(in), "one", false)).To(HaveLen(2))
	})

	It("owes the journey's last step the answers of every step's requests answered once", func() {
		once, err := contract.Parse("once", []byte(`{"contractVersion":2,"product":"p","version":"v1","protocol":{"version":1,"minCompatible":1},
		  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"pointer":"/method","keys":["result"]}},
		    "frames":[{"type":"get","name":"get","direction":"C>H","payload":"json"},{"type":"result","name":"result","direction":"H>C","payload":"json"}],
		    "invariants":[{"kind":"correlation","request":["get"],"reply":["result"],"pointer":"/id","reserved":["hello"],"answered":"once"}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		t := &transcript.Transcript{Kind: "cli"}
		frame(t, 1, "C>H", "one", []byte(`{"method":"get","id":1}`), false)
		frame(t, 1, "C>H", "one", []byte(`{"method":"get","id":"hello"}`), false) // reserved: owed nothing
		frame(t, 1, "C>H", "two", []byte(`{"method":"get","id":2}`), false)
		frame(t, 1, "H>C", "two", []byte(`{"result":{},"id":2}`), false)
		in := &checks.Input{Transcript: t, Journey: j, Host: once, Client: once}
		named := checks.NameFrames(in)
		Expect(checks.Unanswered(in, named, "three", false)).To(BeEmpty())
		Expect(checks.Unanswered(in, named, "three", true)).To(ConsistOf(And(HaveField("Index", 1), HaveField("Once", true))))
	})
})
