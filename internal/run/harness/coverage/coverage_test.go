package coverage_test

import (
	"fmt"
	"slices"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/driverkit"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/coverage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

const doc = `{"contractVersion":2,"product":"p","protocol":{"version":1,"minCompatible":1},
  "channels":[{"name":"rpc","paths":["/rpc"],"text":{"json":{"discriminator":"type"}},
    "capabilities":[{"name":"zoom","echoed":true},{"name":"pan","echoed":true},{"name":"quiet"}],
    "negotiation":[{"frame":"info","dir":"H>C","pointer":"/caps"}],
    "frames":[
      {"type":"hello","name":"hello","direction":"C>H","payload":"json","fields":{"mode":{"type":"string","enum":["a","b"]}}},
      {"type":"info","name":"info","direction":"H>C","payload":"json","fields":{"n":{"type":"integer"},
        "caps":{"type":"object"},"nested":{"type":"object","fields":{"x":{"type":"integer"}}}}},
      {"type":"never","name":"never","direction":"H>C","payload":"json"}]}]}`

// pairing is a small pairing's input (it panics on a broken fixture, so benchmarks use it too).
func pairing() *checks.Input {
	c, err := contract.Parse("p.json", []byte(doc))
	if err != nil {
		panic(err)
	}
	j, err := journeys.Parse("j.txtar", []byte("kind k\n-- script --\nstep one\nclient hello\n"))
	if err != nil {
		panic(err)
	}
	t := &transcript.Transcript{Kind: "k", Host: transcript.Build{Label: "a"}, Client: transcript.Build{Label: "a"},
		Steps: []transcript.Step{{Name: "one", Done: true}},
		Frames: []transcript.Frame{
			{Index: 1, Conn: 1, Path: "/rpc", Dir: "C>H", Data: []byte(`{"type":"hello","mode":"a"}`), Step: "one"},
			{Index: 2, Conn: 1, Path: "/rpc", Dir: "H>C", Data: []byte(`{"type":"info","n":1,"caps":{"zoom":true}}`), Step: "one"},
			{Index: 3, Conn: 1, Path: "/rpc", Dir: "C>H", Data: []byte(`{"type":"hello","mode":"zzz"}`), Step: "one"},
		},
		Hello: map[transcript.Role]transcript.Hello{
			// stop, decode and the lane actions are the driver protocol's own: nobody owes them.
			transcript.Client: {Protocol: 1, Actions: []string{"hello", "call", "stop", "decode", "open-lane", "close-lane"}},
			transcript.Host:   {Protocol: 1, Actions: []string{"emit", "open-lane", "close-lane"}},
		},
		Actions: []transcript.Action{{Role: transcript.Client, Name: "hello", Step: "one", OK: true}},
	}
	return &checks.Input{Transcript: t, Journey: j, Host: c, Client: c}
}

func seen(cov *results.Coverage) map[string]int {
	out := map[string]int{}
	for _, it := range cov.Items {
		out[it.Category+" "+it.Item] = it.Seen
	}
	return out
}

var _ = Describe("Tally", func() {
	It("lists every part of the contract, covered or not", func() {
		t := coverage.New()
		Expect(t.Add(pairing())).To(BeNumerically(">", 0))
		Expect(seen(t.Coverage())).To(Equal(map[string]int{
			"frame C>H hello (k)":            1,
			"frame H>C info (k)":             1,
			"frame H>C never (k)":            0,
			"field C>H hello /mode":          1,
			"field H>C info /n":              1,
			"field H>C info /caps":           1,
			"field H>C info /nested":         0,
			"field H>C info /nested/x":       0,
			`enum C>H hello /mode = "a"`:     1,
			`enum C>H hello /mode = "b"`:     0,
			"capability rpc capability zoom": 1,
			"capability rpc capability pan":  0,
			"action client k: hello":         1,
			"action client k: call":          0,
			"action host: emit":              0,
		}), "a value outside the enum (zzz) is no part of the contract; frames and fields count per pairing")
	})

	It("counts pairings, says what a pairing covered first, and lists what is missing", func() {
		t := coverage.New()
		novel := t.Novel(pairing())
		Expect(novel).To(ContainElement(HaveField("Item", "H>C info (k)")))
		Expect(t.Coverage().Missing(results.CoverFrame)).To(HaveLen(3), "Novel adds nothing")
		first := t.Add(pairing())
		Expect(first).To(Equal(len(novel)))
		Expect(t.Novel(pairing())).To(BeEmpty())
		Expect(t.Add(pairing())).To(Equal(0), "nothing new the second time")
		Expect(seen(t.Coverage())).To(HaveKeyWithValue("frame H>C info (k)", 2))
		var missing []string
		for _, it := range t.Missing(results.CoverFrame, results.CoverEnum) {
			missing = append(missing, it.Item)
		}
		Expect(missing).To(Equal([]string{"H>C never (k)", `C>H hello /mode = "b"`}))
	})

	It("counts the described actions' pairs and declared bounds, and attributes parts to the events whose steps reached them", func() {
		in := pairing()
		tr := in.Transcript
		tr.Hello[transcript.Client] = transcript.Hello{Protocol: 1, Actions: []string{"hello", "call"},
			Params: map[string][]driverkit.Param{
				"hello": {{Name: "text", Type: driverkit.Text, Max: 10, Limits: []int{4}}},
				"call":  {{Name: "mode", Type: driverkit.Enum, Values: []string{"a", "b"}}, {Name: "n", Type: driverkit.Int}},
			}}
		tr.Actions = []transcript.Action{
			{Role: transcript.Client, Name: "hello", Args: []byte(`{"bytes":"YWJjZA=="}`), Step: "c1-e1-say", OK: true}, // 4 bytes
			// A second action in the step (a marker, say) starts no pair.
			{Role: transcript.Client, Name: "hello", Args: []byte(`{"bytes":"eA=="}`), Step: "c1-e1-say", OK: true},
			{Role: transcript.Client, Name: "call", Args: []byte(`{"mode":"b","n":7}`), Step: "c1-e2-ask", OK: true},
			{Role: transcript.Client, Name: "call", Args: []byte(`{"mode":"zzz"}`), Step: "c1-e3-ask", OK: true},
		}
		t := coverage.New()
		t.Attribute(func(step string) string {
			if i := strings.LastIndex(step, "-"); i > 0 {
				return step[i+1:]
			}
			return ""
		})
		t.Add(in)
		got := map[string]int{}
		for k, v := range seen(t.Coverage()) {
			if strings.HasPrefix(k, results.CoverActionPair+" ") || strings.HasPrefix(k, results.CoverLimit+" ") {
				got[k] = v
			}
		}
		Expect(got).To(Equal(map[string]int{
			"action-pair client k: call → client k: call":   1,
			"action-pair client k: call → client k: hello":  0,
			"action-pair client k: hello → client k: call":  1,
			"action-pair client k: hello → client k: hello": 0, // the second hello shares the first's step
			"limit client k: hello text 0 bytes (min)":      0,
			"limit client k: hello text 3 bytes (limit-1)":  0,
			"limit client k: hello text 4 bytes (limit)":    1,
			"limit client k: hello text 5 bytes (limit+1)":  0,
			"limit client k: hello text 10 bytes (max)":     0,
			"limit client k: call mode = a":                 0,
			"limit client k: call mode = b":                 1,
		}), "an int without bounds owes nothing; a value outside the enum reaches nothing")
		by := t.By()
		Expect(by["say"]).To(HaveKey("limit\x00client k: hello text 4 bytes (limit)"))
		Expect(by["ask"]).To(HaveKeyWithValue("action-pair\x00client k: hello → client k: call", 1))
		Expect(by["ask"]).NotTo(HaveKey("limit\x00client k: hello text 4 bytes (limit)"))
		Expect(by["one"]).To(BeEmpty(), "a step the event function does not name attributes nothing")
	})

	It("summarizes what never was, per category", func() {
		t := coverage.New()
		t.Add(pairing())
		Expect(t.Coverage().Summary(1)).To(Equal([]string{
			"frames 2/3 covered; frames never sent: H>C never (k)",
			"fields 3/5 covered; fields never sent: H>C info /nested, … 1 more",
			`enum values 1/2 covered; enum values never sent: C>H hello /mode = "b"`,
			"capabilities 1/2 covered; never negotiated: rpc capability pan",
			"actions 1/3 covered; never used: client k: call, … 1 more",
		}))
	})

	It("counts frames named at a nested pointer as frames of their own, with fields of their own", func() {
		// Centrifugo-style pushes: with keys alone every push would be one frame "push".
		c, err := contract.Parse("nested.json", []byte(`{"contractVersion":2,"product":"p","protocol":{"version":1,"minCompatible":1},
		  "channels":[{"name":"client","paths":["/ws"],
		    "text":{"json":{"nested":[{"pointer":"/push","keys":["pub","join","leave"]}],"keys":["push"]}},
		    "frames":[
		      {"type":"push","name":"push","direction":"H>C","payload":"json"},
		      {"type":"push.pub","name":"push.pub","direction":"H>C","payload":"json","fields":{"push":{"type":"object","fields":{
		        "channel":{"type":"string"},"pub":{"type":"object","fields":{"data":{"type":"string"}}}}}}},
		      {"type":"push.join","name":"push.join","direction":"H>C","payload":"json","fields":{"push":{"type":"object","fields":{
		        "channel":{"type":"string"},"join":{"type":"object","fields":{"user":{"type":"string"}}}}}}},
		      {"type":"push.leave","name":"push.leave","direction":"H>C","payload":"json"}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		t := &transcript.Transcript{Kind: "k", Host: transcript.Build{Label: "a"}, Client: transcript.Build{Label: "a"},
			Steps: []transcript.Step{{Name: "one", Done: true}},
			Frames: []transcript.Frame{
				{Index: 1, Conn: 1, Path: "/ws", Dir: "H>C", Data: []byte(`{"push":{"channel":"news","pub":{"data":"x"}}}`), Step: "one"},
				{Index: 2, Conn: 1, Path: "/ws", Dir: "H>C", Data: []byte(`{"push":{"channel":"news","join":{}}}`), Step: "one"},
			}}
		cov := coverage.New()
		cov.Add(&checks.Input{Transcript: t, Host: c, Client: c})
		Expect(seen(cov.Coverage())).To(Equal(map[string]int{
			"frame H>C push (k)":                  0,
			"frame H>C push.pub (k)":              1,
			"frame H>C push.join (k)":             1,
			"frame H>C push.leave (k)":            0,
			"field H>C push.pub /push":            1,
			"field H>C push.pub /push/channel":    1,
			"field H>C push.pub /push/pub":        1,
			"field H>C push.pub /push/pub/data":   1,
			"field H>C push.join /push":           1,
			"field H>C push.join /push/channel":   1,
			"field H>C push.join /push/join":      1,
			"field H>C push.join /push/join/user": 0,
		}), "a join's fields are not a publication's: each frame has its own items")
	})

	It("merges the coverage of shards by adding what each saw", func() {
		a, b := coverage.New(), coverage.New()
		a.Add(pairing())
		b.Add(pairing())
		m := results.MergeCoverage(a.Coverage(), nil, b.Coverage())
		Expect(seen(m)).To(HaveKeyWithValue("frame H>C info (k)", 2))
		Expect(seen(m)).To(HaveKeyWithValue("frame H>C never (k)", 0))
		Expect(results.MergeCoverage(nil, nil)).To(BeNil())
	})
})

var _ = Describe("Tally with versioned shapes", func() {
	// versioned is doc at protocol 5, whose info frame had a field until 4 and has one since 5.
	versioned := func(version int) *contract.Contract {
		GinkgoHelper()
		d := strings.Replace(doc, `"protocol":{"version":1,"minCompatible":1}`, fmt.Sprintf(`"protocol":{"version":%d,"minCompatible":4}`, version), 1)
		d = strings.Replace(d, `"n":{"type":"integer"},`, `"n":{"type":"integer"},"old":{"type":"integer","until":4},"new":{"type":"integer","since":5},`, 1)
		c, err := contract.Parse("p.json", []byte(d))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	fields := func(t *coverage.Tally) []string {
		var out []string
		for k := range seen(t.Coverage()) {
			if strings.HasPrefix(k, "field H>C info ") {
				out = append(out, strings.TrimPrefix(k, "field H>C info "))
			}
		}
		slices.Sort(out)
		return out
	}

	It("owes a frame's fields as the pairing's negotiated version shapes it", func() {
		in := pairing()
		in.Host, in.Client = versioned(5), versioned(5)
		t := coverage.New()
		t.Add(in)
		Expect(fields(t)).To(Equal([]string{"/caps", "/n", "/nested", "/nested/x", "/new"}))

		// A pairing that speaks 4 owes the field that 4 has.
		in = pairing()
		in.Host, in.Client = versioned(5), versioned(4)
		t.Add(in)
		Expect(fields(t)).To(Equal([]string{"/caps", "/n", "/nested", "/nested/x", "/new", "/old"}))
	})

	It("owes every field of a contract whose protocol has no version (negative control)", func() {
		in := pairing()
		c := versioned(5)
		c.Protocol = contract.Protocol{}
		in.Host, in.Client = c, c
		t := coverage.New()
		t.Add(in)
		Expect(fields(t)).To(Equal([]string{"/caps", "/n", "/nested", "/nested/x", "/new", "/old"}))
	})
})
