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

// Field rules of a small JSON product: a receiver holds every payload to its own contract.
const fieldsContract = `{"contractVersion":2,"protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"pointer":"/method","keys":["result"]}},
    "frames":[
      {"type":"resize","name":"resize","direction":"C>H","payload":"json","fields":{
        "cols":{"type":"integer","required":true},"mode":{"type":"string","enum":["fit","fill"]},
        "panes":{"type":"array","items":{"type":"object","fields":{"id":{"type":"string","required":true}}}}}},
      {"type":"result","name":"result","direction":"H>C","payload":"json","fields":{
        "result":{"type":"object","required":true,"fields":{"state":{"type":"string","enum":["open","closed"]}}}}}]}]}`

var _ = Describe("FieldMismatch", func() {
	var in *checks.Input
	BeforeEach(func() {
		c, err := contract.Parse("f.json", []byte(fieldsContract))
		Expect(err).NotTo(HaveOccurred())
		j, err := journeys.Parse("j.txtar", []byte("kind cli\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		in = &checks.Input{Transcript: &transcript.Transcript{Kind: "cli", Host: transcript.Build{Label: "h"}, Client: transcript.Build{Label: "c"}},
			Journey: j, Host: c, Client: c}
	})
	send := func(dir string, v any) {
		raw, _ := json.Marshal(v)
		t := in.Transcript
		t.Frames = append(t.Frames, transcript.Frame{Index: len(t.Frames) + 1, Conn: 1, Path: "/rpc", Dir: dir, Data: raw, Step: "a"})
	}
	messages := func() []string {
		var out []string
		for _, f := range checks.FieldMismatch(in) {
			Expect(f.Kind).To(Equal(results.FieldMismatch))
			out = append(out, f.Message)
		}
		return out
	}

	It("finds nothing in payloads that keep the receiver's rules, whatever fields they add", func() {
		send("C>H", map[string]any{"method": "resize", "cols": 80, "mode": "fit", "panes": []any{map[string]any{"id": "p1", "x": 1}}, "future": true})
		send("H>C", map[string]any{"result": map[string]any{"state": "open", "more": 1}})
		Expect(messages()).To(BeEmpty())
	})

	It("names the frame, the pointer, what was sent and what the receiver allows, in both directions and at depth", func() {
		send("C>H", map[string]any{"method": "resize", "mode": "stretch", "panes": []any{map[string]any{"id": 7}}})
		send("C>H", map[string]any{"method": "resize", "cols": "80"})
		send("H>C", map[string]any{"result": map[string]any{"state": "archived"}})
		Expect(messages()).To(ConsistOf(
			"C>H resize: /cols is missing for host h",
			"C>H resize: /mode is the string \"stretch\", want one of \"fit\", \"fill\" for host h",
			"C>H resize: /panes/0/id is a number (7), want a string for host h",
			"C>H resize: /cols is the string \"80\", want an integer for host h",
			"H>C result: /result/state is the string \"archived\", want one of \"open\", \"closed\" for cli client c",
		))
		f := checks.FieldMismatch(in)[0]
		Expect(f.Detail).To(ContainSubstring("pointer /cols"))
		Expect(f.Direction).To(Equal("C>H"))
	})

	It("reports a frame the receiving product said it rejected", func() {
		in.Transcript.Observations = append(in.Transcript.Observations, transcript.Observation{Role: transcript.Host, What: "rejected",
			Data: json.RawMessage(`{"type":"resize","reason":"cols out of range","pointer":"/cols"}`), Step: "a"})
		Expect(messages()).To(Equal([]string{"the host rejected C>H resize: cols out of range (at /cols)"}))
	})
})
