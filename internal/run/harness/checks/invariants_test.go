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

const invariantsContract = `{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"s","paths":["/s"],"text":{"json":{"discriminator":"type"}},
    "frames":[{"type":"request","name":"request","direction":"C>H"},{"type":"response","name":"response","direction":"H>C"},
      {"type":"rpcError","name":"rpcError","direction":"H>C"},{"type":"resize","name":"resize","direction":"C>H"},
      {"type":"resized","name":"resized","direction":"H>C"},{"type":"start","name":"start","direction":"H>C"},
      {"type":"chunk","name":"chunk","direction":"H>C"},{"type":"end","name":"end","direction":"H>C"}],
    "invariants":[
      {"kind":"correlation","request":["request"],"reply":["response","rpcError"],"pointer":"/id"},
      {"kind":"echo","request":["resize"],"reply":["resized"],"pointer":"/rows","message":"a resize confirms the rows asked"},
      {"kind":"order","start":"start","chunk":"chunk","end":"end"}]}]}`

var _ = Describe("Invariants", func() {
	var in *checks.Input
	BeforeEach(func() {
		c, err := contract.Parse("i.json", []byte(invariantsContract))
		Expect(err).NotTo(HaveOccurred())
		j, err := journeys.Parse("j.txtar", []byte("kind cli\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		in = &checks.Input{Transcript: &transcript.Transcript{Kind: "cli"}, Journey: j, Host: c, Client: c}
	})
	send := func(dir string, v map[string]any) {
		raw, _ := json.Marshal(v)
		t := in.Transcript
		t.Frames = append(t.Frames, transcript.Frame{Index: len(t.Frames) + 1, Conn: 1, Path: "/s", Dir: dir, Data: raw, Step: "a"})
	}
	messages := func() []string {
		var out []string
		for _, f := range checks.Invariants(in) {
			Expect(f.Kind).To(Equal(results.InvariantViolation))
			out = append(out, f.Message)
		}
		return out
	}

	It("holds when replies answer their requests, echoes report what was asked and chunks sit inside start … end", func() {
		send("C>H", map[string]any{"type": "request", "id": 1})
		send("H>C", map[string]any{"type": "response", "id": 1})
		send("C>H", map[string]any{"type": "request", "id": 2})
		send("H>C", map[string]any{"type": "rpcError", "id": 2})
		send("C>H", map[string]any{"type": "resize", "rows": 30})
		send("H>C", map[string]any{"type": "resized", "rows": 30})
		send("H>C", map[string]any{"type": "start"})
		send("H>C", map[string]any{"type": "chunk"})
		send("H>C", map[string]any{"type": "end"})
		Expect(messages()).To(BeEmpty())
	})

	It("names both frames when a relation breaks", func() {
		send("C>H", map[string]any{"type": "request", "id": 1})
		send("H>C", map[string]any{"type": "rpcError", "id": 9})
		send("H>C", map[string]any{"type": "rpcError"})
		send("C>H", map[string]any{"type": "resize", "rows": 30})
		send("H>C", map[string]any{"type": "resized", "rows": 40})
		send("H>C", map[string]any{"type": "chunk"})
		send("H>C", map[string]any{"type": "start"})
		send("H>C", map[string]any{"type": "start"})
		Expect(messages()).To(Equal([]string{
			"H>C rpcError #2 answers /id 9, which no earlier request carried",
			"H>C rpcError #3 answers no request: it has no /id",
			"H>C resized #5 reports /rows 40, but C>H resize #4 asked for 30 (a resize confirms the rows asked)",
			"H>C chunk #6 comes outside a start … end",
			"H>C start #8 starts again before H>C start #7 ended with end",
		}))
	})

	It("matches echoes to requests sent before the first was answered, whatever the tap saw first", func() {
		// Two resizes back to back: the replies come in the order the peer answers them.
		send("C>H", map[string]any{"type": "resize", "rows": 10})
		send("C>H", map[string]any{"type": "resize", "rows": 20})
		send("H>C", map[string]any{"type": "resized", "rows": 10})
		send("H>C", map[string]any{"type": "resized", "rows": 20})
		// A peer may answer only the last of several.
		send("C>H", map[string]any{"type": "resize", "rows": 30})
		send("C>H", map[string]any{"type": "resize", "rows": 40})
		send("H>C", map[string]any{"type": "resized", "rows": 40})
		Expect(messages()).To(BeEmpty())
		// The negative control: a reply that carries no pending request's value is wrong for
		// the oldest, and the next request still gets its own.
		send("C>H", map[string]any{"type": "resize", "rows": 50})
		send("C>H", map[string]any{"type": "resize", "rows": 60})
		send("H>C", map[string]any{"type": "resized", "rows": 45})
		send("H>C", map[string]any{"type": "resized", "rows": 60})
		Expect(messages()).To(Equal([]string{
			"H>C resized #10 reports /rows 45, but C>H resize #8 asked for 50 (a resize confirms the rows asked)",
		}))
	})

	Context("with requests answered once", func() {
		// once makes the correlation invariant of the host's contract, the client's or both
		// say every request is answered exactly once.
		once := func(host, client bool) {
			for _, c := range []struct {
				on  bool
				set **contract.Contract
			}{{host, &in.Host}, {client, &in.Client}} {
				parsed, err := contract.Parse("i.json", []byte(invariantsContract))
				Expect(err).NotTo(HaveOccurred())
				if c.on {
					parsed.Channels[0].Invariants[0].Answered = contract.AnsweredOnce
				}
				*c.set = parsed
			}
		}
		teardown := func(dir string, v map[string]any) {
			send(dir, v)
			in.Transcript.Frames[len(in.Transcript.Frames)-1].Teardown = true
		}

		It("holds when every request gets one answer, a late one or one to a reused id included", func() {
			once(true, true)
			send("C>H", map[string]any{"type": "request", "id": 1})
			send("H>C", map[string]any{"type": "response", "id": 1})
			send("C>H", map[string]any{"type": "request", "id": 1}) // the id again, once answered
			send("C>H", map[string]any{"type": "request", "id": 2})
			send("H>C", map[string]any{"type": "rpcError", "id": 1})
			teardown("H>C", map[string]any{"type": "response", "id": 2}) // after the last step
			Expect(messages()).To(BeEmpty())
		})

		It("names a request left unanswered, and a reply that answers one again", func() {
			once(true, true)
			send("C>H", map[string]any{"type": "request", "id": 1})
			send("H>C", map[string]any{"type": "response", "id": 1})
			send("H>C", map[string]any{"type": "rpcError", "id": 1})
			send("C>H", map[string]any{"type": "request", "id": 2})
			send("H>C", map[string]any{"type": "rpcError"}) // the error lost its id
			Expect(messages()).To(Equal([]string{
				"H>C rpcError #3 answers C>H request #1 again: H>C response #2 answered it (/id 1)",
				"H>C rpcError #5 answers no request: it has no /id",
				"C>H request #4 was never answered: no reply (response, rpcError) carried its /id 2",
			}))
			Expect(checks.Invariants(in)[2].Step).To(Equal("a"))
		})

		It("holds between two builds only when both say so", func() {
			send("C>H", map[string]any{"type": "request", "id": 2})
			for _, c := range [][2]bool{{true, false}, {false, true}, {false, false}} {
				once(c[0], c[1])
				Expect(messages()).To(BeEmpty(), "host %v, client %v", c[0], c[1])
			}
			once(true, true)
			Expect(messages()).To(HaveLen(1))
		})
	})
})
