package driverkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/skewtest/skewtest/driverkit"
)

// BenchmarkActions measures the kit's cost per action: read, route, answer, one
// observation and one result written.
func BenchmarkActions(b *testing.B) {
	var in strings.Builder
	for i := range b.N {
		fmt.Fprintf(&in, `{"id":%d,"action":"input","args":{"terminal":"t1","bytes":"ZWNobyBoaQ0="}}`+"\n", i+1)
	}
	d := driverkit.New(strings.NewReader(in.String()), io.Discard, driverkit.Hello{Role: driverkit.Client, Kind: "desktop", Product: "p", Version: "v1"})
	d.Handle("input", func(_ context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct {
			Terminal string `json:"terminal"`
			Bytes    []byte `json:"bytes"`
		}](raw)
		if err != nil {
			return nil, err
		}
		d.Observe("input", map[string]any{"terminal": args.Terminal, "bytes": args.Bytes})
		return nil, nil
	})
	b.ReportAllocs()
	b.ResetTimer()
	if err := d.Run(context.Background(), nil); err != nil {
		b.Fatal(err)
	}
}
