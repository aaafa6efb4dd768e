package journeys_test

import (
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/journeys"
)

const sample = `# sample: a journey for the specs
kind desktop
timeout 2s

-- script --
step subscribe
client subscribe path=/terminal.multiplex cols=120
await client rendered-snapshot

# a comment between steps
step big
[cap:outputPause] client pause paused=true
host emit-transformed text="HEAD"+"x"*3+"TAIL\r\n" rawLength=48
await client screen text="TAIL"
-- frames --
ignore C>H Ack
C>H Subscribe
H>C SnapshotChunk+
[!frame:OutputSpan] H>C Output*
[frame:OutputSpan] H>C OutputSpan?
`

var _ = Describe("Parse", func() {
	It("reads the header, the steps, the commands and the frames", func() {
		j, err := journeys.Parse("sample.txtar", []byte(sample))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Name).To(Equal("sample"))
		Expect(j.Kind).To(Equal("desktop"))
		Expect(j.Timeout.String()).To(Equal("2s"))
		Expect(j.Description).To(Equal("sample: a journey for the specs"))
		Expect(j.StepNames()).To(Equal([]string{"subscribe", "big"}))

		sub := j.Steps[0].Commands[0]
		Expect(sub.Verb).To(Equal("client"))
		Expect(sub.Line).To(Equal(7))
		Expect(sub.Positional()).To(Equal([]string{"subscribe"}))
		v, ok := sub.Get("cols")
		Expect(ok).To(BeTrue())
		Expect(v).To(Equal("120"))

		pause := j.Steps[1].Commands[0]
		Expect(pause.Conds).To(Equal([]journeys.Cond{{Name: "cap:outputPause"}}))
		emit := j.Steps[1].Commands[1]
		text, _ := emit.Get("text")
		Expect(text).To(Equal("HEADxxxTAIL\r\n"))

		Expect(j.Ignore).To(HaveLen(1))
		Expect(j.Ignore[0].String()).To(Equal("C>H Ack"))
		Expect(j.Frames).To(HaveLen(4))
		Expect(j.Frames[1].Quant).To(Equal("+"))
		Expect(j.Frames[2].Conds).To(Equal([]journeys.Cond{{Not: true, Name: "frame:OutputSpan"}}))
		Expect(j.Frames[3].String()).To(Equal("H>C OutputSpan?"))
		Expect(j.Frames[3].Line).To(Equal(20))
	})

	It("puts frames under the step named before them", func() {
		j, err := journeys.Parse("s.txtar", []byte("kind desktop\n-- script --\nstep a\nstep b\n-- frames --\nignore C>H Ack\nC>H X\nstep a\nH>C Y\nstep b\nH>C Z+\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Frames).To(HaveLen(3))
		Expect(j.Frames[0].Step).To(BeEmpty())
		Expect(j.Frames[1].Step).To(Equal("a"))
		Expect(j.Frames[2].Step).To(Equal("b"))
		Expect(j.Ignore[0].Step).To(BeEmpty())
	})

	It("evaluates conditions", func() {
		has := func(n string) bool { return n == "a" }
		Expect(journeys.Holds([]journeys.Cond{{Name: "a"}}, has)).To(BeTrue())
		Expect(journeys.Holds([]journeys.Cond{{Name: "a", Not: true}}, has)).To(BeFalse())
		Expect(journeys.Holds([]journeys.Cond{{Name: "a"}, {Name: "b"}}, has)).To(BeFalse())
		Expect(journeys.Holds(nil, has)).To(BeTrue())
	})

	DescribeTable("refuses a bad file with file:line",
		func(text, want string) {
			_, err := journeys.Parse("bad.txtar", []byte(text))
			Expect(err).To(HaveOccurred())
			var se *journeys.SyntaxError
			Expect(err).To(BeAssignableToTypeOf(se))
			Expect(err.Error()).To(Equal(want))
		},
		Entry("no kind", "-- script --\nstep a\n", "bad.txtar:1: no kind line: say which client kind the journey drives (kind desktop)"),
		Entry("unknown header", "kind desktop\nspeed fast\n-- script --\nstep a\n", `bad.txtar:2: unknown header line "speed" (want kind or timeout, or # comments)`),
		Entry("bad timeout", "kind desktop\ntimeout soon\n-- script --\nstep a\n", `bad.txtar:2: timeout "soon" is not a positive duration such as 10s`),
		Entry("command before step", "kind desktop\n-- script --\nclient subscribe\n", "bad.txtar:3: command before the first step line"),
		Entry("duplicate step", "kind desktop\n-- script --\nstep a\nstep a\n", `bad.txtar:4: step "a" already defined at line 3`),
		Entry("unterminated string", "kind desktop\n-- script --\nstep a\nclient input text=\"abc\n", "bad.txtar:4: unterminated string"),
		Entry("bad repeat", "kind desktop\n-- script --\nstep a\nclient input text=\"a\"*many\n", `bad.txtar:4: text: repeat count "many" is not a number up to 67108864`),
		Entry("bad frame line", "kind desktop\n-- script --\nstep a\n-- frames --\nSubscribe\n", `bad.txtar:5: frame line "Subscribe": want DIRECTION NAME, such as H>C SnapshotStart`),
		Entry("unknown section", "kind desktop\n-- script --\nstep a\n-- oracle --\n", `bad.txtar:4: unknown section "oracle" (want script or frames)`),
		Entry("no script", "kind desktop\n-- frames --\n", "bad.txtar:1: no -- script -- section"),
		Entry("conditional step", "kind desktop\n-- script --\n[cap:x] step a\n", "bad.txtar:3: a step cannot be conditional; put the condition on its commands"),
		Entry("frames step unknown", "kind desktop\n-- script --\nstep a\n-- frames --\nstep b\n", `bad.txtar:5: frames: no step "b" in the script`),
		Entry("frames steps out of order", "kind desktop\n-- script --\nstep a\nstep b\n-- frames --\nstep b\nstep a\n", `bad.txtar:7: frames: step "a" comes before step "b" in the script`),
		Entry("unclosed condition", "kind desktop\n-- script --\nstep a\n[cap:x client input\n", `bad.txtar:4: unclosed condition "[cap:x client input"`),
	)

	It("ships parseable built-in journeys", func() {
		names := journeys.BuiltinNames()
		Expect(names).To(ContainElement("terminal"))
		for _, n := range names {
			j, err := journeys.Builtin(n)
			Expect(err).NotTo(HaveOccurred(), n)
			Expect(j.Steps).NotTo(BeEmpty())
			Expect(j.Frames).NotTo(BeEmpty())
		}
	})

	It("names the built-in journeys when one is missing", func() {
		_, err := journeys.Builtin("nope")
		Expect(err).To(MatchError(ContainSubstring("terminal")))
		_, err = journeys.Load("nope")
		Expect(err).To(MatchError(ContainSubstring(`no built-in journey "nope"`)))
		_, err = journeys.Load("./missing.txtar")
		Expect(err).To(HaveOccurred())
		Expect(strings.Contains(err.Error(), "missing.txtar")).To(BeTrue())
	})

	It("reads a journey file by path, and a name as a built-in even where a directory shares it", func() {
		dir := GinkgoT().TempDir()
		p := filepath.Join(dir, "mine.txtar")
		Expect(os.WriteFile(p, []byte(sample), 0o644)).To(Succeed())
		j, err := journeys.Load(p)
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Name).To(Equal("mine"))
		GinkgoT().Chdir(dir)
		Expect(os.Mkdir("terminal", 0o755)).To(Succeed())
		j, err = journeys.Load("terminal")
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Kind).To(Equal("desktop"))
	})
})
