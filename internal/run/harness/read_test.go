package harness_test

import (
	"bytes"
	"context"
	"encoding/json"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// compact is a JSON value without the transcript file's indentation.
func compact(v json.RawMessage) string {
	GinkgoHelper()
	var b bytes.Buffer
	Expect(json.Compact(&b, v)).To(Succeed())
	return b.String()
}

// What a pairing keeps of its frames' decoded values: in the transcript (Frame.Read) and in
// results.json's timeline.
var _ = Describe("decoded frames", func() {
	var j *journeys.Journey
	BeforeEach(func() {
		var err error
		j, err = journeys.Parse("fake.txtar", []byte(fakeJourney))
		Expect(err).NotTo(HaveOccurred())
		pidDir()
	})

	// read finds the first frame named name in dir, and what was read from it.
	read := func(t *transcript.Transcript, dir, name string) (transcript.Frame, transcript.ReadFrame) {
		GinkgoHelper()
		for _, f := range t.Frames {
			for _, r := range f.Read {
				if f.Dir == dir && r.Name == name {
					return f, r
				}
			}
		}
		Fail("no " + dir + " " + name + " was read")
		return transcript.Frame{}, transcript.ReadFrame{}
	}
	event := func(p *results.Pairing, dir, name string) results.FrameEvent {
		GinkgoHelper()
		for _, e := range p.Timeline {
			if e.Dir == dir && e.Name == name {
				return e
			}
		}
		Fail("no " + dir + " " + name + " in the timeline")
		return results.FrameEvent{}
	}

	It("keeps each frame's header fields, value and payload size in the transcript written, and a short form in the timeline", func(ctx SpecContext) {
		dir := GinkgoT().TempDir()
		p, returned := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: j},
			harness.Options{Dir: dir})
		Expect(p.Status).To(Equal(results.StatusPass), "%v", p.Findings)
		t, err := transcript.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.ReadLimits).To(Equal(&transcript.ReadLimits))
		Expect(returned.ReadLimits).To(Equal(&transcript.ReadLimits), "the transcript returned carries them too")

		f, r := read(t, "C>H", "Subscribe")
		Expect(*r.Opcode).To(Equal(9))
		Expect(*r.Stream).To(Equal(uint32(1)))
		Expect(*r.Seq).To(Equal(uint64(0)))
		Expect(r.Named).To(HaveKeyWithValue("magic", uint64(116)))
		Expect(compact(r.Value)).To(Equal(`{"streamId":1}`))
		Expect(r.Payload).To(Equal(len(f.Data) - 16))
		Expect(r.Step).To(BeEmpty(), "it belongs to the step it arrived in")

		_, r = read(t, "C>H", "Input")
		Expect(r.Value).To(BeNil(), "the contract reads no value from it")
		Expect(r.Text).To(Equal("hi\r"))
		Expect(r.Payload).To(Equal(3))

		f, r = read(t, "H>C", "ready")
		Expect(r.Type).To(Equal("ready"))
		Expect(r.Opcode).To(BeNil())
		Expect(compact(r.Value)).To(Equal(`{"type":"ready"}`))
		Expect(r.Payload).To(Equal(len(f.Data)), "a JSON frame's payload is the whole frame")

		e := event(p, "C>H", "Subscribe")
		Expect(e.Size).To(Equal(30), "the WebSocket message")
		Expect(*e.Payload).To(Equal(14))
		Expect(e.Fields).To(Equal(`{"opcode":9,"stream":1,"seq":0,"header":{"magic":116},"value":{"streamId":1}}`))
		Expect(e.Arrived).To(BeEmpty())
		Expect(event(p, "C>H", "Input").Fields).To(ContainSubstring(`"text":"hi\r"`))
		Expect(*event(p, "H>C", "SnapshotEnd").Payload).To(BeZero())
	}, NodeTimeout(60*time.Second))

	It("keeps nothing of the kind for a passing pairing whose directory is discarded", func(ctx SpecContext) {
		dir := filepath.Join(GinkgoT().TempDir(), "pairing")
		p, t := harness.Run(ctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: j},
			harness.Options{Dir: dir, DiscardPassing: true})
		Expect(p.Status).To(Equal(results.StatusPass))
		Expect(t.ReadLimits).To(BeNil())
		for _, f := range t.Frames {
			Expect(f.Read).To(BeNil())
		}
		Expect(p.Timeline).NotTo(BeEmpty())
		Expect(event(p, "C>H", "Subscribe").Fields).NotTo(BeEmpty(), "results.json still shows them")
	}, NodeTimeout(60*time.Second))

	It("keeps them in the transcript of a pairing that could not be tested", func(ctx SpecContext) {
		// Interrupted while it idles after subscribing: an error, whose transcript is kept.
		j, err := journeys.Parse("idle.txtar", []byte("kind desktop\n-- script --\nstep subscribe\nclient subscribe\n"+
			"await client rendered-snapshot\nstep idle\nidle for=60s\n"))
		Expect(err).NotTo(HaveOccurred())
		rctx, cancel := context.WithCancel(ctx)
		defer cancel()
		time.AfterFunc(3*time.Second, cancel)
		dir := GinkgoT().TempDir()
		p, _ := harness.Run(rctx, harness.Pairing{Host: build("a", "ok", false), Client: build("b", "ok", false), Kind: "desktop", Journey: j},
			harness.Options{Dir: dir})
		Expect(p.Status).To(Equal(results.StatusError))
		t, err := transcript.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.CompletedSteps()).To(Equal([]string{"subscribe"}))
		Expect(t.ReadLimits).NotTo(BeNil())
		_, r := read(t, "C>H", "Subscribe")
		Expect(compact(r.Value)).To(Equal(`{"streamId":1}`))
	}, NodeTimeout(60*time.Second))
})
