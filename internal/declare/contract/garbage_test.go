package contract_test

import (
	"math/rand/v2"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// feedChecked feeds messages to a stream and checks what must hold whatever the bytes: no
// panic, every error explains itself, and the stream never holds more than it was fed.
func feedChecked(s *contract.Stream, isBinary bool, msgs ...[]byte) ([]contract.Packet, error) {
	var out []contract.Packet
	fed := 0
	for _, m := range msgs {
		fed += len(m)
		out = append(out, s.Feed(isBinary, m)...)
		if s.Pending() > fed {
			return out, errorf("holds %d bytes after being fed %d", s.Pending(), fed)
		}
	}
	for _, p := range out {
		if p.Err != nil && p.Err.Error() == "" {
			return out, errorf("an error without a message")
		}
	}
	return out, nil
}

var _ = Describe("Garbage", func() {
	for _, fr := range framings {
		Describe(fr.name, func() {
			var ch *contract.Channel
			var samples [][]byte
			BeforeEach(func() {
				ch = mustChannel(fr.doc, fr.path)
				var err error
				samples, err = fr.samples()
				Expect(err).NotTo(HaveOccurred())
			})

			It("decodes its samples without error", func() {
				for _, m := range samples {
					ps, err := feedChecked(ch.NewStream(fr.dir), fr.binary, m)
					Expect(err).NotTo(HaveOccurred())
					Expect(ps).NotTo(BeEmpty())
					for _, p := range ps {
						Expect(p.Err).NotTo(HaveOccurred())
					}
				}
			})

			It("survives every truncation and every split of its samples", func() {
				for _, m := range samples {
					for i := range len(m) {
						_, err := feedChecked(ch.NewStream(fr.dir), fr.binary, m[:i])
						Expect(err).NotTo(HaveOccurred())
						_, err = feedChecked(ch.NewStream(fr.dir), fr.binary, m[:i], m[i:])
						Expect(err).NotTo(HaveOccurred())
					}
				}
			})

			It("survives random bytes, and random flips of its samples", func() {
				r := rand.New(rand.NewPCG(1, uint64(len(fr.name))))
				for range 500 {
					b := make([]byte, r.IntN(64))
					for i := range b {
						b[i] = byte(r.UintN(256))
					}
					_, err := feedChecked(ch.NewStream(fr.dir), fr.binary, b, b)
					Expect(err).NotTo(HaveOccurred())
					for _, m := range samples {
						m = append([]byte(nil), m...)
						if len(m) > 0 {
							m[r.IntN(len(m))] ^= byte(1 + r.UintN(255))
						}
						_, err := feedChecked(ch.NewStream(fr.dir), fr.binary, m)
						Expect(err).NotTo(HaveOccurred())
					}
				}
			})

			It("reports its garbage as malformed", func() {
				ps, err := feedChecked(ch.NewStream(fr.dir), fr.binary, fr.garbage)
				Expect(err).NotTo(HaveOccurred())
				Expect(ps).NotTo(BeEmpty())
				Expect(ps[len(ps)-1].Err).To(HaveOccurred())
			})
		})
	}
})
