package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

// fakeSubjectContract is the harness specs' fake subject's contract (harness/testdata/
// fakedriver): binary frames with a 16-byte header, JSON text frames.
const fakeSubjectContract = `{"contractVersion":2,"channels":[{"name":"terminal","paths":["/terminal.multiplex"],
  "binary":{"header":{"length":16,"fields":[{"name":"magic","offset":0,"encoding":"u8","value":116},
    {"name":"type","offset":2,"encoding":"u8"},{"name":"stream","offset":4,"encoding":"u32le"},
    {"name":"seq","offset":8,"encoding":"u32le-hi-lo"}]}},
  "text":{"json":{"discriminator":"type"}},
  "frames":[{"opcode":1,"name":"Output","direction":"H>C"},{"opcode":2,"name":"SnapshotStart","direction":"H>C"},
    {"opcode":3,"name":"SnapshotChunk","direction":"H>C"},{"opcode":4,"name":"SnapshotEnd","direction":"H>C"},
    {"opcode":7,"name":"Input","direction":"C>H"},{"opcode":9,"name":"Subscribe","direction":"C>H"},
    {"opcode":10,"name":"Unsubscribe","direction":"C>H"},
    {"type":"ready","name":"ready","direction":"H>C"},{"type":"subscribed","name":"subscribed","direction":"H>C"}]}]}`

// fakeSubjectJourney subscribes, types and unsubscribes.
const fakeSubjectJourney = `kind desktop
timeout 10s
-- script --
step subscribe
client subscribe
await client rendered-snapshot
step input
client input text="hi\r"
await host input text="hi\r"
step unsubscribe
client unsubscribe
await frame C>H Unsubscribe
`

var _ = Describe("transcript", func() {
	transcriptCLI := func(args ...string) (code int, stdout, stderr string) {
		var out, errs bytes.Buffer
		err := dispatch(context.Background(), append([]string{"transcript"}, args...), &out, &errs)
		code = exitCode(err, &errs)
		return code, out.String(), errs.String()
	}

	DescribeTable("parses --json and one directory, flags before or after it",
		func(args []string, want transcriptOptions) {
			o, err := parseTranscript(args, io.Discard)
			Expect(err).NotTo(HaveOccurred())
			Expect(*o).To(Equal(want))
		},
		Entry("a directory", []string{"pairings/003"}, transcriptOptions{Path: "pairings/003"}),
		Entry("--json first", []string{"--json", "d"}, transcriptOptions{JSON: true, Path: "d"}),
		Entry("--json last", []string{"d", "-json"}, transcriptOptions{JSON: true, Path: "d"}),
	)

	DescribeTable("refuses a bad command line with exit code 2",
		func(args []string, want string) {
			code, _, stderr := transcriptCLI(args...)
			Expect(code).To(Equal(exitUsage))
			Expect(stderr).To(ContainSubstring(want))
			Expect(strings.Count(stderr, "\n")).To(Equal(1), "one line: %s", stderr)
		},
		Entry("no directory", []string{}, "transcript: give a pairing's directory (pairings/NNN-… in a report directory) or a transcript file"),
		Entry("two directories", []string{"a", "b"}, "transcript: give one pairing's directory, not 2"),
		Entry("an unknown flag", []string{"--jsn", "a"}, "transcript: flag provided but not defined: -jsn (skewtest transcript -h lists its flags)"),
	)

	It("prints its help, exit 0, and is listed in skewtest's", func() {
		code, stdout, stderr := transcriptCLI("-h")
		Expect(code).To(Equal(exitOK))
		Expect(stdout + stderr).To(HavePrefix("Usage: skewtest transcript [--json] PAIRING_DIR"))
		Expect(stdout + stderr).To(MatchRegexp(`(?m)^  -json\b`))
		var help bytes.Buffer
		Expect(dispatch(context.Background(), []string{"help"}, &help, io.Discard)).To(Succeed())
		Expect(help.String()).To(ContainSubstring("skewtest transcript [--json] PAIRING_DIR"))
	})

	DescribeTable("refuses what is not a transcript with exit code 2 and a clear error",
		func(setup func(dir string) string, want string) {
			dir := GinkgoT().TempDir()
			code, stdout, stderr := transcriptCLI(setup(dir))
			Expect(code).To(Equal(exitUsage))
			Expect(stdout).To(BeEmpty())
			Expect(stderr).To(HavePrefix("skewtest: transcript: "))
			Expect(stderr).To(ContainSubstring(want))
			Expect(stderr).NotTo(ContainSubstring("panic"))
		},
		Entry("a directory that does not exist", func(dir string) string { return filepath.Join(dir, "nope") }, "nope does not exist"),
		Entry("a directory without a transcript (a report directory)", func(dir string) string { return dir },
			"has no transcript.json.gz: give a pairing's directory"),
		Entry("a file that is not JSON", func(dir string) string {
			p := filepath.Join(dir, "transcript.json.gz")
			Expect(os.WriteFile(p, []byte("host.log\n"), 0o644)).To(Succeed())
			return dir
		}, "transcript.json.gz: not a transcript: it is not JSON"),
		Entry("a gzip stream cut short", func(dir string) string {
			p := filepath.Join(dir, "transcript.json.gz")
			Expect(os.WriteFile(p, []byte{0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff, 1}, 0o644)).To(Succeed())
			return p
		}, "not a transcript"),
		Entry("a results.json", func(dir string) string {
			p := filepath.Join(dir, "results.json")
			Expect(os.WriteFile(p, []byte(`{"schemaVersion":1,"pairings":[]}`), 0o644)).To(Succeed())
			return p
		}, "results.json: not a transcript: it names no journey and no builds"),
	)

	It("lists an older transcript's frames and says their decoded values are missing", func() {
		old := `{"host":{"label":"v1.4.120","revision":"a"},"client":{"label":"v1.4.120","revision":"a"},"kind":"desktop","journey":"terminal",
		  "steps":[{"name":"subscribe","done":true}],
		  "frames":[{"index":1,"conn":1,"path":"/terminal.multiplex","dir":"C>H","binary":true,"data":"dAEJAAEAAAAAAAAAAAAAAHt9","step":"subscribe"},
		    {"index":2,"conn":1,"path":"/terminal.multiplex","dir":"H>C","binary":false,"data":"","step":"subscribe","control":"close"}]}`
		var z bytes.Buffer
		zw := gzip.NewWriter(&z)
		_, err := zw.Write([]byte(old))
		Expect(err).NotTo(HaveOccurred())
		Expect(zw.Close()).To(Succeed())
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, transcript.File), z.Bytes(), 0o644)).To(Succeed())

		code, stdout, _ := transcriptCLI(dir)
		Expect(code).To(Equal(exitOK))
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		Expect(lines[0]).To(ContainSubstring("2 messages; decoded values missing"))
		Expect(strings.Fields(lines[2])).To(Equal([]string{"1", "C>H", "?", "subscribe", "1", "18", "B", "-"}))
		Expect(strings.Fields(lines[3])).To(Equal([]string{"2", "H>C", "close", "subscribe", "1", "0", "B", "-"}))

		code, stdout, _ = transcriptCLI("--json", dir)
		Expect(code).To(Equal(exitOK))
		Expect(stdout).To(ContainSubstring(`"decoded": false`))
	})

	Describe("on a transcript a real pairing wrote", Ordered, func() {
		var dir string
		BeforeAll(func(ctx SpecContext) {
			driver := filepath.Join(GinkgoT().TempDir(), "fakedriver")
			out, err := exec.CommandContext(ctx, "go", "build", "-o", driver, "../../internal/run/harness/testdata/fakedriver").CombinedOutput()
			Expect(err).NotTo(HaveOccurred(), string(out))
			c, err := contract.Parse("fake", []byte(fakeSubjectContract))
			Expect(err).NotTo(HaveOccurred())
			j, err := journeys.Parse("fake.txtar", []byte(fakeSubjectJourney))
			Expect(err).NotTo(HaveOccurred())
			b := func(label string) *harness.Build {
				return &harness.Build{Label: label, Revision: label, Dir: filepath.Dir(driver), Contract: c,
					Host: []string{driver, "ok"}, Clients: map[string][]string{"desktop": {driver, "ok"}}}
			}
			dir = filepath.Join(GinkgoT().TempDir(), "pairings", "001-v2-desktop-v1-fake")
			p, _ := harness.Run(ctx, harness.Pairing{Host: b("v2"), Client: b("v1"), Kind: "desktop", Journey: j, Index: 1},
				harness.Options{Dir: dir})
			Expect(p.Status).To(Equal(results.StatusPass), "%v %s", p.Findings, p.Error)
		}, NodeTimeout(2*time.Minute))

		It("prints one line per frame with its decoded header fields and value", func() {
			code, stdout, stderr := transcriptCLI(dir)
			Expect(code).To(Equal(exitOK), stderr)
			AddReportEntry("skewtest transcript", stdout)
			lines := strings.Split(strings.TrimSpace(stdout), "\n")
			Expect(lines[0]).To(HavePrefix("host v2 × desktop client v1 · fake: "))
			Expect(lines[0]).To(ContainSubstring("frames read (strings over 256 bytes"))
			line := func(dir, name string) string {
				GinkgoHelper()
				for _, l := range lines {
					if f := strings.Fields(l); len(f) > 2 && f[1] == dir && f[2] == name {
						return strings.Join(f, " ")
					}
				}
				Fail("no " + dir + " " + name + " line in:\n" + stdout)
				return ""
			}
			Expect(line("C>H", "Subscribe")).To(MatchRegexp(`^\d+ C>H Subscribe subscribe 1 30 B 14 B opcode=9 stream=1 seq=0 magic=116 \{"streamId":1\}$`))
			Expect(line("C>H", "Input")).To(MatchRegexp(`^\d+ C>H Input input 1 19 B 3 B opcode=7 stream=1 seq=0 magic=116 text="hi\\r"$`))
			Expect(line("H>C", "ready")).To(MatchRegexp(`^\d+ H>C ready subscribe 1 16 B 16 B type=ready \{"type":"ready"\}$`))
			Expect(line("H>C", "SnapshotEnd")).To(MatchRegexp(`^\d+ H>C SnapshotEnd subscribe 1 16 B 0 B opcode=4 stream=1 seq=0 magic=116$`))
		})

		It("writes them as JSON with --json, from the directory or the file", func() {
			for _, path := range []string{dir, filepath.Join(dir, transcript.File)} {
				code, stdout, stderr := transcriptCLI("--json", path)
				Expect(code).To(Equal(exitOK), stderr)
				var doc struct {
					Journey string `json:"journey"`
					Decoded bool   `json:"decoded"`
					Frames  []struct {
						Dir  string                 `json:"dir"`
						Size int                    `json:"size"`
						Read []transcript.ReadFrame `json:"read"`
					} `json:"frames"`
				}
				Expect(json.Unmarshal([]byte(stdout), &doc)).To(Succeed())
				Expect(doc.Journey).To(Equal("fake"))
				Expect(doc.Decoded).To(BeTrue())
				found := false
				for _, f := range doc.Frames {
					for _, r := range f.Read {
						if r.Name == "Subscribe" {
							found = true
							Expect(f.Size).To(Equal(30))
							Expect(r.Payload).To(Equal(14))
							Expect(*r.Opcode).To(Equal(9))
							var v map[string]any
							Expect(json.Unmarshal(r.Value, &v)).To(Succeed())
							Expect(v).To(Equal(map[string]any{"streamId": 1.0}))
						}
					}
				}
				Expect(found).To(BeTrue(), "the Subscribe frame was read")
			}
		})
	})
})
