package future_test

import (
	"testing"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// BenchmarkRewrite measures the tap's cost per message of the future-peer pass: a JSON frame
// with nested objects, features and commands rewritten with every variant, and a text frame
// behind a binary header that is left alone.
func BenchmarkRewrite(b *testing.B) {
	c, err := contract.Parse("sample.json", []byte(sample))
	if err != nil {
		b.Fatal(err)
	}
	rw := future.New(future.Config{Seed: 1, Senders: map[string]*contract.Contract{"H>C": c}})
	for _, bc := range []struct {
		name string
		f    tap.Frame
	}{
		{"json", tap.Frame{Conn: 1, Path: "/rpc", Dir: tap.HostToClient, Data: []byte(info)}},
		{"text-left-alone", tap.Frame{Conn: 1, Path: "/bin", Dir: tap.HostToClient, Binary: true, Data: append([]byte{2, 0, 0, 0}, make([]byte, 4096)...)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(bc.f.Data)))
			for b.Loop() {
				rw.Rewrite(bc.f)
			}
		})
	}
}
