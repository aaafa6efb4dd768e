package future_test

import (
	"testing"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/future"
)

// FuzzVariants feeds messages to Variants with the sample contract: it must never panic, and
// every variant must still decode as the same frame with the sender's contract (a future
// frame is a frame the receiver can read).
func FuzzVariants(f *testing.F) {
	c, err := contract.Parse("sample.json", []byte(sample))
	if err != nil {
		f.Fatal(err)
	}
	f.Add("/rpc", false, []byte(info), int64(1))
	f.Add("/rpc", false, []byte(`{"type":"hello","commands":{"ping":[1]}}`), int64(2))
	f.Add("/bin", true, append([]byte{1, 0, 0, 0}, `{"capabilities":{"zoom":1}}`...), int64(3))
	f.Add("/bin", true, []byte{2, 0, 0, 0, '{'}, int64(4))
	f.Fuzz(func(t *testing.T, path string, binary bool, data []byte, seed int64) {
		for _, dir := range []string{contract.HostToClient, contract.ClientToHost} {
			fr := future.Frame{Sender: c, Path: path, Dir: dir, Binary: binary, Data: data}
			ch := c.Channel(path)
			for _, v := range future.Variants(future.Rand(seed, 1, dir, 1), fr) {
				want, err := ch.Decode(binary, data)
				if err != nil {
					t.Fatalf("a variant of a message that does not decode: %v", err)
				}
				got, err := ch.Decode(binary, v.Data)
				if err != nil {
					t.Fatalf("%s %s: the variant does not decode: %v\n%q", v.Rule, v.What, err, v.Data)
				}
				if got.Type != want.Type || got.Opcode != want.Opcode {
					t.Fatalf("%s %s: the variant is another frame: %q, was %q", v.Rule, v.What, got.Type, want.Type)
				}
			}
		}
	})
}
