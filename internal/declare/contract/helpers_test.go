package contract_test

import (
	"encoding/binary"
	"os"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

func mustChannel(doc, path string) *contract.Channel {
	GinkgoHelper()
	ch, err := channelOf(doc, path)
	Expect(err).NotTo(HaveOccurred())
	return ch
}

// feed feeds messages to a new stream of dir and returns every packet, failing on errors.
func feed(ch *contract.Channel, dir string, isBinary bool, msgs ...[]byte) []contract.Decoded {
	GinkgoHelper()
	s := ch.NewStream(dir)
	var out []contract.Decoded
	for _, m := range msgs {
		for _, p := range s.Feed(isBinary, m) {
			Expect(p.Err).NotTo(HaveOccurred())
			out = append(out, p.Decoded)
		}
	}
	Expect(s.Pending()).To(BeZero())
	return out
}

// names looks every decoded frame up for the host and returns the frames' names.
func names(ch *contract.Channel, dir string, ds []contract.Decoded) []string {
	GinkgoHelper()
	out := make([]string, len(ds))
	for i, d := range ds {
		f := ch.Lookup(d, dir, "")
		Expect(f).NotTo(BeNil(), "frame %d (%+v) is not known %s", i, d, dir)
		out[i] = f.Name
	}
	return out
}

// rtFrame is a remoteterm terminal frame: 16-byte header, then the payload.
func rtFrame(opcode byte, stream uint32, seq uint64, payload string) []byte {
	b := make([]byte, 16, 16+len(payload))
	b[0], b[1], b[2] = 0x74, 1, opcode
	binary.LittleEndian.PutUint32(b[4:], stream)
	binary.LittleEndian.PutUint32(b[8:], uint32(seq>>32))
	binary.LittleEndian.PutUint32(b[12:], uint32(seq))
	return append(b, payload...)
}

// mqttPacket is an MQTT control packet: type and flags, varint remaining length, body.
func mqttPacket(typ, flags byte, body ...byte) []byte {
	b := []byte{typ<<4 | flags}
	b = binary.AppendUvarint(b, uint64(len(body)))
	return append(b, body...)
}

// u16str is an MQTT string: 2-byte big-endian length, then the bytes.
func u16str(s string) []byte {
	return append([]byte{byte(len(s) >> 8), byte(len(s))}, s...)
}

func concat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

func readTestdata(name string) ([]byte, error) {
	return os.ReadFile(filepath.Join("testdata", filepath.FromSlash(name)))
}
