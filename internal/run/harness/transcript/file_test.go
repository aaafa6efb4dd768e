package transcript_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

var _ = Describe("Load", func() {
	sample := func() *transcript.Transcript {
		op := 9
		return &transcript.Transcript{
			Host: transcript.Build{Label: "v1", Revision: "a"}, Client: transcript.Build{Label: "v2", Revision: "b"},
			Kind: "desktop", Journey: "terminal", ReadLimits: &transcript.ReadLimits,
			Frames: []transcript.Frame{{Index: 1, Conn: 1, Dir: "C>H", Binary: true, Data: []byte("0123456789abcdef{}"), Step: "subscribe",
				Read: []transcript.ReadFrame{{Name: "Subscribe", Header: transcript.Header{Opcode: &op}, Value: json.RawMessage(`{}`), Payload: 2}}}},
		}
	}
	write := func(path string, t *transcript.Transcript, gzipped bool) {
		GinkgoHelper()
		b, err := json.Marshal(t)
		Expect(err).NotTo(HaveOccurred())
		if gzipped {
			var z bytes.Buffer
			zw := gzip.NewWriter(&z)
			_, err = zw.Write(b)
			Expect(err).NotTo(HaveOccurred())
			Expect(zw.Close()).To(Succeed())
			b = z.Bytes()
		}
		Expect(os.WriteFile(path, b, 0o644)).To(Succeed())
	}

	It("reads a pairing directory's transcript, with what its frames carried", func() {
		dir := GinkgoT().TempDir()
		write(filepath.Join(dir, transcript.File), sample(), true)
		t, err := transcript.Load(dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Journey).To(Equal("terminal"))
		Expect(*t.ReadLimits).To(Equal(transcript.ReadLimits))
		Expect(t.Frames[0].Read).To(HaveLen(1))
		Expect(*t.Frames[0].Read[0].Opcode).To(Equal(9))
		Expect(string(t.Frames[0].Read[0].Value)).To(Equal(`{}`))
	})

	It("reads a transcript file, gzipped or not", func() {
		path := filepath.Join(GinkgoT().TempDir(), "t.json")
		write(path, sample(), false)
		t, err := transcript.Load(path)
		Expect(err).NotTo(HaveOccurred())
		Expect(t.Host.Label).To(Equal("v1"))
	})

	DescribeTable("says clearly what is not a transcript",
		func(content []byte, want string) {
			path := filepath.Join(GinkgoT().TempDir(), transcript.File)
			Expect(os.WriteFile(path, content, 0o644)).To(Succeed())
			_, err := transcript.Load(path)
			Expect(err).To(MatchError(transcript.ErrNotTranscript))
			Expect(err.Error()).To(ContainSubstring(path + ": not a transcript: " + want))
		},
		Entry("an empty file", []byte{}, "it is empty"),
		Entry("text", []byte("hello"), "it is not JSON (at byte 1: invalid character 'h'"),
		Entry("a broken gzip stream", []byte{0x1f, 0x8b, 8, 0, 0, 0}, "unexpected EOF"),
		Entry("JSON of something else (a results.json)", []byte(`{"schemaVersion":1,"pairings":[]}`), "it names no journey and no builds"),
		Entry("a JSON array", []byte(`[1,2]`), "it is a JSON array, not an object"),
		Entry("a field of the wrong type", []byte(`{"journey":"j","frames":"none"}`), "its frames is a JSON string"),
	)

	It("says a path does not exist, and a directory is not a pairing's", func() {
		_, err := transcript.Load(filepath.Join(GinkgoT().TempDir(), "nope"))
		Expect(errors.Is(err, fs.ErrNotExist)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring("nope does not exist"))

		dir := GinkgoT().TempDir()
		_, err = transcript.Load(dir)
		Expect(errors.Is(err, fs.ErrNotExist)).To(BeTrue())
		Expect(err.Error()).To(ContainSubstring(dir + " has no transcript.json.gz: give a pairing's directory"))
	})
})
