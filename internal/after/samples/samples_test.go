package samples_test

import (
	"compress/gzip"
	"os"
	"path/filepath"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/reports"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// doc is a contract with a JSON channel and a binary one with a one-byte opcode header.
const doc = `{
  "contractVersion": 2, "product": "sample", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [
    {"name": "rpc", "paths": ["/rpc"], "text": {"json": {"discriminator": "type"}},
     "frames": [
       {"type": "hello", "name": "hello", "direction": "C>H", "payload": "json", "fields": {"v": {"type": "integer"}}},
       {"type": "info", "name": "info", "direction": "H>C", "payload": "json"}
     ]},
    {"name": "bin", "paths": ["/bin"],
     "binary": {"header": {"length": 1, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
     "frames": [
       {"opcode": 2, "name": "Text", "direction": "H>C", "payload": "text"}
     ]}
  ]}`

func sampleContract() *contract.Contract {
	GinkgoHelper()
	c, err := contract.Parse("sample.json", []byte(doc))
	Expect(err).NotTo(HaveOccurred())
	return c
}

var _ = Describe("Sample frames", func() {
	It("come one per line, in hex, base64, text or JSON, with a direction and path or the defaults", func() {
		frames, err := samples.Parse("in.txt", []byte(strings.Join([]string{
			"# a comment, then a blank line",
			"",
			`C>H /rpc {"type":"hello","v":1}`,
			"/bin hex:02 68 69",
			"base64:Amhp",
			"0268",
			`H>C /rpc text:{"type":"info"}`,
		}, "\n")), samples.Defaults{Dir: "H>C", Path: "/bin"})
		Expect(err).NotTo(HaveOccurred())
		Expect(frames).To(HaveLen(5))
		Expect(frames[0]).To(And(HaveField("Dir", "C>H"), HaveField("Path", "/rpc"), HaveField("Binary", false), HaveField("Step", "line 3")))
		Expect(frames[1]).To(And(HaveField("Dir", "H>C"), HaveField("Path", "/bin"), HaveField("Binary", true), HaveField("Data", []byte{2, 'h', 'i'})))
		Expect(frames[2].Data).To(Equal([]byte{2, 'h', 'i'}))
		Expect(frames[3].Data).To(Equal([]byte{2, 'h'}))
		Expect(frames[4]).To(And(HaveField("Path", "/rpc"), HaveField("Data", []byte(`{"type":"info"}`))))
		for i, f := range frames {
			Expect(f.Index).To(Equal(i))
		}
	})

	DescribeTable("refuse a line that is no frame, with file:line", func(text string, d samples.Defaults, want string) {
		_, err := samples.Parse("in.txt", []byte("H>C /rpc {}\n"+text+"\n"), d)
		var ue *usage.Error
		Expect(err).To(BeAssignableToTypeOf(ue))
		Expect(err).To(MatchError("in.txt:2: " + want))
	},
		Entry("no direction", "/rpc {}", samples.Defaults{}, "no direction: start the line with H>C or C>H, or give --dir"),
		Entry("no path", "H>C {}", samples.Defaults{}, "no WebSocket path: put /PATH before the payload, or give --path"),
		Entry("not a payload", "H>C /rpc hello there", samples.Defaults{}, `"hello there" is no frame: give hex:…, base64:…, text:… or a JSON message`),
		Entry("odd hex", "H>C /rpc hex:abc", samples.Defaults{}, `"hex:abc": encoding/hex: odd length hex string`),
	)

	It("refuse a file with none", func() {
		_, err := samples.Parse("in.txt", []byte("# nothing\n\n"), samples.Defaults{})
		Expect(err).To(MatchError(ContainSubstring("in.txt: no frame")))
	})

	It("may be a recorded transcript, read anew", func() {
		dir := GinkgoT().TempDir()
		t := &transcript.Transcript{Kind: "desktop", Journey: "j", Frames: []transcript.Frame{
			{Index: 0, Dir: "H>C", Path: "/bin", Binary: true, Data: []byte{2, 'h'}, Read: []transcript.ReadFrame{{Name: "Old"}}},
		}}
		Expect(transcript.Write(filepath.Join(dir, transcript.File), t, gzip.BestSpeed)).To(Succeed())
		for _, path := range []string{dir, filepath.Join(dir, transcript.File)} {
			frames, err := samples.Read(path, nil, samples.Defaults{})
			Expect(err).NotTo(HaveOccurred())
			Expect(frames).To(HaveLen(1))
			Expect(frames[0].Read).To(BeNil(), "what was read when it was recorded is not kept")
		}
	})
})

var _ = Describe("Decoding samples with a contract", func() {
	It("names each frame and reads its fields, as a pairing's receiver would", func() {
		frames, err := samples.Parse("in.txt", []byte("C>H /rpc {\"type\":\"hello\",\"v\":1}\nH>C /bin 026869\n"), samples.Defaults{})
		Expect(err).NotTo(HaveOccurred())
		t, unread := samples.Decode(sampleContract(), frames, "")
		Expect(t.Frames[0].Read).To(HaveLen(1))
		Expect(t.Frames[0].Read[0].Name).To(Equal("hello"))
		Expect(string(t.Frames[0].Read[0].Value)).To(MatchJSON(`{"type":"hello","v":1}`))
		Expect(t.Frames[1].Read[0].Name).To(Equal("Text"))
		Expect(t.Frames[1].Read[0].Text).To(Equal("hi"))
		Expect(unread).To(BeEmpty())
	})

	It("says which frames it could not read, and why", func() {
		frames, err := samples.Parse("in.txt", []byte("H>C /bin 09\nH>C /nowhere {}\nH>C /rpc {\"type\":\"info\"}\nC>H /rpc {\"type\":\"info\"}\n"), samples.Defaults{})
		Expect(err).NotTo(HaveOccurred())
		_, unread := samples.Decode(sampleContract(), frames, "")
		Expect(unread).To(Equal([]string{
			"#0 H>C Opcode9: the contract lists no such frame from host to client",
			"#1 H>C Unknown: no channel serves /nowhere in either contract",
			"#3 C>H info: the contract lists no such frame from client to host",
		}))
	})

	It("reads frames filed under / with a contract of one channel: a byte stream recorded without a path", func() {
		one, err := contract.Parse("one.json", []byte(`{"contractVersion": 2, "protocol": {"version": 1, "minCompatible": 1},
			"channels": [{"name": "bin", "paths": ["/bin"],
			  "binary": {"header": {"length": 1, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
			  "frames": [{"opcode": 2, "name": "Text", "direction": "H>C", "payload": "text"}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		frames := []transcript.Frame{{Index: 1, Conn: 1, Dir: "H>C", Path: "/", Binary: true, Data: []byte("\x02hi")}}
		t, unread := samples.Decode(one, frames, "")
		Expect(unread).To(BeEmpty())
		Expect(t.Frames[0].Read[0].Name).To(Equal("Text"))
		Expect(t.Frames[0].Path).To(Equal("/"), "filed where it was recorded")
		Expect(one.Channels[0].Paths).To(Equal([]string{"/bin"}), "the caller's contract is left as it was")

		_, unread = samples.Decode(sampleContract(), frames, "")
		Expect(unread).To(Equal([]string{"#1 H>C Unknown: no channel serves / in either contract"}),
			"the negative control: with two channels, the path says which, and / says none")
		frames[0].Path = "/elsewhere"
		_, unread = samples.Decode(one, frames, "")
		Expect(unread).To(Equal([]string{"#1 H>C Unknown: no channel serves /elsewhere in either contract"}),
			"the negative control: a path other than / is one the contract does not serve")
	})
})

var _ = BeforeSuite(func() {
	// Read is given standard input for "-": nothing here reads the process's own.
	Expect(os.Stdin).NotTo(BeNil())
})

var _ = Describe("a versioned field, as contract decode and skewtest transcript show it", func() {
	// CONNACK's second byte: returnCode up to protocol 4, reasonCode from 5 on.
	connack := func(protocol string) *contract.Contract {
		GinkgoHelper()
		c, err := contract.Parse("c.json", []byte(`{"contractVersion":2,`+protocol+`
		  "channels":[{"name":"mqtt","paths":["/mqtt"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[{"opcode":2,"name":"CONNACK","direction":"H>C","payload":"binary","fields":{
		      "returnCode":{"offset":1,"encoding":"u8","until":4},
		      "reasonCode":{"offset":1,"encoding":"u8","since":5}}}]}]}`))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	text := func(c *contract.Contract) string {
		GinkgoHelper()
		frames := []transcript.Frame{{Index: 1, Conn: 1, Path: "/mqtt", Dir: "H>C", Binary: true, Data: []byte{0x20, 0x02, 0x00, 0x05}}}
		t, unread := samples.Decode(c, frames, "")
		Expect(unread).To(BeEmpty())
		var b strings.Builder
		Expect(reports.Transcript(&b, t, reports.TranscriptOptions{})).To(Succeed())
		return b.String()
	}

	It("shows only the fields of the contract's protocol version", func() {
		out := text(connack(`"protocol":{"version":5,"minCompatible":4},`))
		Expect(out).To(ContainSubstring(`{"reasonCode":5}`))
		Expect(out).NotTo(ContainSubstring("returnCode"))
		out = text(connack(`"protocol":{"version":4,"minCompatible":4},`))
		Expect(out).To(ContainSubstring(`{"returnCode":5}`))
		Expect(out).NotTo(ContainSubstring("reasonCode"))
	})

	It("shows every field when the contract says no version (the negative control)", func() {
		Expect(text(connack(""))).To(ContainSubstring(`{"reasonCode":5,"returnCode":5}`))
	})
})
