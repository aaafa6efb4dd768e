package journeys_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/journeys"
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
	It("reads settle: a duration, 0 turning settling off", func() {
		for text, want := range map[string]time.Duration{"": 0, "settle 20ms\n": 20 * time.Millisecond, "settle 0\n": -1} {
			j, err := journeys.Parse("s.txtar", []byte("kind *\n"+text+"-- script --\nstep a\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(j.Settle).To(Equal(want), text)
			Expect(j.Unsettled).To(BeFalse(), text)
		}
		j, err := journeys.Parse("s.txtar", []byte("kind *\nsettle none\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Unsettled).To(BeTrue())
	})

	It("marks a quoted value, so that an action sends it as a string whatever it looks like", func() {
		j, err := journeys.Parse("q.txtar", []byte("kind *\n-- script --\nstep a\nhost set cwd=\"2\" rows=2 name=x text=\"a\"+\"b\"\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Steps[0].Commands[0].Args).To(Equal([]journeys.Arg{{Value: "set"}, {Key: "cwd", Value: "2", Quoted: true},
			{Key: "rows", Value: "2"}, {Key: "name", Value: "x"}, {Key: "text", Value: "ab", Quoted: true}}))
	})

	It("reads the header, the steps, the commands and the frames", func() {
		j, err := journeys.Parse("sample.txtar", []byte(sample))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Name).To(Equal("sample"))
		Expect(j.Kinds).To(Equal([]string{"desktop"}))
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

	It("reads a file that starts with a UTF-8 byte-order mark, as Windows editors write it (N09), lines unchanged", func() {
		plain, err := journeys.Parse("sample.txtar", []byte(sample))
		Expect(err).NotTo(HaveOccurred())
		j, err := journeys.Parse("sample.txtar", []byte("\ufeff"+sample))
		Expect(err).NotTo(HaveOccurred())
		Expect(j).To(Equal(plain))
		Expect(j.Description).To(Equal("sample: a journey for the specs"), "no mark in the first line")

		_, err = journeys.Parse("bom.txtar", []byte("\ufeffkind desktop\n-- script --\nstep a\nstep a\n"))
		Expect(err).To(MatchError(`bom.txtar:4: step "a" already defined at line 3`), "a later error keeps its line")
		_, err = journeys.Parse("mid.txtar", []byte("kind desktop\n\ufeff# not at the start\n-- script --\nstep a\n"))
		Expect(err).To(MatchError(ContainSubstring("mid.txtar:2: unknown header line")), "only a mark at the start is dropped")
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
		Entry("no kind", "-- script --\nstep a\n", "bad.txtar:1: no kind line: say which client kinds the journey drives (kind desktop, kind desktop,mobile or kind *)"),
		Entry("unknown header", "kind desktop\nspeed fast\n-- script --\nstep a\n", `bad.txtar:2: unknown header line "speed" (want kind, timeout, quiet, settle or channel, or # comments)`),
		Entry("bad settle", "kind desktop\nsettle -1s\n-- script --\nstep a\n", `bad.txtar:2: settle "-1s" is not a duration such as 50ms (0 turns the quiet period off; none ends each step without waiting)`),
		Entry("bad timeout", "kind desktop\ntimeout soon\n-- script --\nstep a\n", `bad.txtar:2: timeout "soon" is not a positive duration such as 10s`),
		Entry("command before step", "kind desktop\n-- script --\nclient subscribe\n", "bad.txtar:3: command before the first step line"),
		Entry("duplicate step", "kind desktop\n-- script --\nstep a\nstep a\n", `bad.txtar:4: step "a" already defined at line 3`),
		Entry("a section marker without a name (txtar panicked on it; found by FuzzParse)", "kind desktop\n-- script --\nstep a\n-- --\n", "bad.txtar:4: a section marker without a name (want -- script -- or -- frames --)"),
		Entry("unterminated string", "kind desktop\n-- script --\nstep a\nclient input text=\"abc\n", "bad.txtar:4: unterminated string"),
		Entry("bad repeat", "kind desktop\n-- script --\nstep a\nclient input text=\"a\"*many\n", `bad.txtar:4: text: repeat count "many" is not a number up to 67108864`),
		Entry("bad frame line", "kind desktop\n-- script --\nstep a\n-- frames --\nSubscribe\n", `bad.txtar:5: frame line "Subscribe": want DIRECTION NAME, such as H>C Delta`),
		Entry("unknown section", "kind desktop\n-- script --\nstep a\n-- oracle --\n", `bad.txtar:4: unknown section "oracle" (want script or frames)`),
		Entry("no script", "kind desktop\n-- frames --\n", "bad.txtar:1: no -- script -- section"),
		Entry("conditional step", "kind desktop\n-- script --\n[cap:x] step a\n", "bad.txtar:3: a step cannot be conditional; put the condition on its commands"),
		Entry("frames step unknown", "kind desktop\n-- script --\nstep a\n-- frames --\nstep b\n", `bad.txtar:5: frames: no step "b" in the script`),
		Entry("frames steps out of order", "kind desktop\n-- script --\nstep a\nstep b\n-- frames --\nstep b\nstep a\n", `bad.txtar:7: frames: step "a" comes before step "b" in the script`),
		Entry("unclosed condition", "kind desktop\n-- script --\nstep a\n[cap:x client input\n", `bad.txtar:4: unclosed condition "[cap:x client input"`),
		Entry("channel without a name", "kind desktop\nchannel\n-- script --\nstep a\n", `bad.txtar:2: channel "": want the name of one channel of the contracts (channel NAME)`),
		Entry("channel of two words", "kind desktop\nchannel a b\n-- script --\nstep a\n", `bad.txtar:2: channel "a b": want the name of one channel of the contracts (channel NAME)`),
		Entry("two channel lines", "kind desktop\nchannel a\nchannel b\n-- script --\nstep a\n", `bad.txtar:3: a second channel line (the first is line 2): a journey's conditions are about one channel`),
	)

	It("reads the channel header: the channel a journey's conditions are about, and its line", func() {
		j, err := journeys.Parse("c.txtar", []byte("# d\nkind session\nchannel session\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Channel).To(Equal("session"))
		Expect(j.ChannelLine).To(Equal(3))
		j, err = journeys.Parse("c.txtar", []byte("kind session\n-- script --\nstep a\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(j.Channel).To(BeEmpty(), "no header line, no channel")
		Expect(j.ChannelLine).To(BeZero())
	})

	DescribeTable("reads the kinds a journey drives",
		func(line string, kinds []string, drives, not string) {
			j, err := journeys.Parse("k.txtar", []byte(line+"\n-- script --\nstep a\n"))
			Expect(err).NotTo(HaveOccurred())
			Expect(j.Kinds).To(Equal(kinds))
			Expect(j.Drives(drives)).To(BeTrue())
			if not != "" {
				Expect(j.Drives(not)).To(BeFalse())
			}
		},
		Entry("one", "kind desktop", []string{"desktop"}, "desktop", "mobile"),
		Entry("several", "kind desktop, mobile", []string{"desktop", "mobile"}, "mobile", "session"),
		Entry("every kind", "kind *", []string{"*"}, "anything", ""),
	)

	DescribeTable("refuses a bad kind line with file:line",
		func(line, want string) {
			_, err := journeys.Parse("k.txtar", []byte(line+"\n-- script --\nstep a\n"))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("empty name", "kind desktop,,mobile", `k.txtar:1: kind "desktop,,mobile" has an empty name between commas`),
		Entry("star among kinds", "kind desktop,*", `k.txtar:1: kind "desktop,*": * stands alone`),
		Entry("blank separated", "kind desktop mobile", `separate kinds with commas`),
		Entry("twice", "kind a,a", `names a twice`),
	)

	Describe("a subject's journey set", func() {
		write := func(dir, name, body string) {
			Expect(os.MkdirAll(filepath.Join(dir, filepath.Dir(name)), 0o755)).To(Succeed())
			Expect(os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)).To(Succeed())
		}

		It("loads files and globs relative to the repository, picks by name or by path", func() {
			dir := GinkgoT().TempDir()
			write(dir, "journeys/a.txtar", sample)
			write(dir, "journeys/b.txtar", sample)
			write(dir, "extra/c.txtar", sample)
			set, err := journeys.LoadSet(dir, []string{"journeys/*.txtar", "extra/c.txtar"})
			Expect(err).NotTo(HaveOccurred())
			Expect(set.Names()).To(Equal([]string{"a", "b", "c"}))
			all, err := set.Pick(nil)
			Expect(err).NotTo(HaveOccurred())
			Expect(all).To(HaveLen(3))
			Expect(all[0].Listed).To(BeTrue())

			js, err := set.Pick([]string{"b"})
			Expect(err).NotTo(HaveOccurred())
			Expect(js[0].File).To(Equal(filepath.Join(dir, "journeys", "b.txtar")))

			// A file named like a listed journey is that file, never the listed one.
			other := filepath.Join(GinkgoT().TempDir(), "b.txtar")
			Expect(os.WriteFile(other, []byte(strings.Replace(sample, "kind desktop", "kind mobile", 1)), 0o644)).To(Succeed())
			js, err = set.Pick([]string{other})
			Expect(err).NotTo(HaveOccurred())
			Expect(js[0].Kinds).To(Equal([]string{"mobile"}))
			Expect(js[0].Listed).To(BeFalse())
		})

		It("says which names it has when a name is unknown, and what to do without a list", func() {
			dir := GinkgoT().TempDir()
			write(dir, "j/a.txtar", sample)
			set, err := journeys.LoadSet(dir, []string{"j/*.txtar"})
			Expect(err).NotTo(HaveOccurred())
			_, err = set.Pick([]string{"nope"})
			var ue *journeys.UnknownError
			Expect(err).To(BeAssignableToTypeOf(ue))
			Expect(err).To(MatchError(ContainSubstring(`no journey "nope" in the subject's skewtest.yaml (it lists a)`)))

			empty, err := journeys.LoadSet(dir, nil)
			Expect(err).NotTo(HaveOccurred())
			_, err = empty.Pick(nil)
			Expect(err).To(MatchError(journeys.ErrNoJourneys))
			_, err = empty.Pick([]string{"./missing.txtar"})
			var fe *journeys.FileError
			Expect(err).To(BeAssignableToTypeOf(fe))
			Expect(err.Error()).To(ContainSubstring("missing.txtar"))
		})

		It("refuses a pattern that matches nothing and two journeys with one name", func() {
			dir := GinkgoT().TempDir()
			write(dir, "x/a.txtar", sample)
			write(dir, "y/a.txtar", sample)
			_, err := journeys.LoadSet(dir, []string{"z/*.txtar"})
			Expect(err).To(MatchError(ContainSubstring(`journeys pattern "z/*.txtar" matches no file`)))
			_, err = journeys.LoadSet(dir, []string{"x/*.txtar", "y/*.txtar"})
			Expect(err).To(MatchError(ContainSubstring(`journey name "a" is taken by`)))
		})
	})

	It("parses the reference subject's journeys", func() {
		set, err := journeys.LoadSet("../../../examples/remoteterm", []string{"journeys/*.txtar"})
		Expect(err).NotTo(HaveOccurred())
		Expect(set.Names()).To(ContainElements("terminal", "terminal-mobile", "session"))
		for _, j := range set.All() {
			Expect(j.Steps).NotTo(BeEmpty())
		}
	})
})

var _ = Describe("EachConds", func() {
	It("visits the conditions of every command and frames line in file order, and stops at an error", func() {
		j, err := journeys.Parse("j.txtar", []byte("kind desktop\n-- script --\nstep a\n[cap:x] client go\nclient stay\nstep b\n[!cap:y] client on\n-- frames --\n[frame:Z] H>C Z\n"))
		Expect(err).NotTo(HaveOccurred())
		var seen []string
		Expect(j.EachConds(func(line int, conds []journeys.Cond) error {
			for _, c := range conds {
				seen = append(seen, fmt.Sprintf("%d %s", line, c))
			}
			return nil
		})).To(Succeed())
		Expect(seen).To(Equal([]string{"4 [cap:x]", "7 [!cap:y]", "9 [frame:Z]"}))

		stop := errors.New("stop")
		calls := 0
		Expect(j.EachConds(func(int, []journeys.Cond) error { calls++; return stop })).To(MatchError(stop))
		Expect(calls).To(Equal(1))
	})
})
