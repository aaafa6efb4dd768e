package infer_test

import (
	"encoding/binary"
	"fmt"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/after/infer"
	"github.com/skewtest/skewtest/internal/after/samples"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// recording is a hand-made pairing of build v1.0.0 with itself: its frames, numbered in order,
// on one connection per path.
func recording(kind string, frames ...transcript.Frame) infer.Recording {
	return pairing("v1.0.0", "v1.0.0", kind, frames...)
}

func pairing(host, client, kind string, frames ...transcript.Frame) infer.Recording {
	conns := map[string]int{}
	for i := range frames {
		if conns[frames[i].Path] == 0 {
			conns[frames[i].Path] = len(conns) + 1
		}
		frames[i].Index, frames[i].Conn, frames[i].Step = i, conns[frames[i].Path], "s"
	}
	return infer.Recording{Path: fmt.Sprintf("%s-%s-%s", host, kind, client), T: &transcript.Transcript{
		Host: transcript.Build{Label: host}, Client: transcript.Build{Label: client}, Kind: kind, Journey: "j", Frames: frames}}
}

func text(dir, path, s string) transcript.Frame {
	return transcript.Frame{Dir: dir, Path: path, Data: []byte(s)}
}

func bin(dir, path string, b []byte) transcript.Frame {
	return transcript.Frame{Dir: dir, Path: path, Binary: true, Data: b}
}

// termFrame is a remoteterm-like binary frame: byte 0 0x74, byte 1 version 1, byte 2 the
// opcode, bytes 4-7 the stream id (u32 LE), bytes 8-15 seq as two u32 LE words, high first;
// then the payload.
func termFrame(dir string, op byte, stream uint32, seq uint64, payload string) transcript.Frame {
	h := make([]byte, 16)
	h[0], h[1], h[2] = 0x74, 1, op
	binary.LittleEndian.PutUint32(h[4:], stream)
	binary.LittleEndian.PutUint32(h[8:], uint32(seq>>32))
	binary.LittleEndian.PutUint32(h[12:], uint32(seq))
	return bin(dir, "/terminal", append(h, payload...))
}

// draft drafts a contract from recordings and expects it to read every frame of them.
func draft(recs ...infer.Recording) *infer.Result {
	GinkgoHelper()
	r, err := infer.Draft(recs)
	Expect(err).NotTo(HaveOccurred())
	Expect(r.Unread).To(BeEmpty())
	for _, rec := range recs {
		_, unread := samples.Decode(r.Contract, slices.Clone(rec.T.Frames), rec.T.Kind)
		Expect(unread).To(BeEmpty(), rec.Path)
	}
	return r
}

// unread decodes frames with c and returns what it cannot read.
func unread(c *contract.Contract, frames ...transcript.Frame) []string {
	for i := range frames {
		frames[i].Index, frames[i].Conn = i, 1
	}
	_, un := samples.Decode(c, frames, "")
	return un
}

// frame returns the draft's frame of that type or opcode in dir.
func frame(c *contract.Contract, path, dir string, name string) *contract.Frame {
	GinkgoHelper()
	ch := c.Channel(path)
	Expect(ch).NotTo(BeNil(), "a channel serves %s", path)
	f := ch.Named(name, dir, "")
	Expect(f).NotTo(BeNil(), "%s %s", dir, name)
	Expect(f.Direction).To(Equal(dir))
	return f
}
