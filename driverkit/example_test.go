package driverkit_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"

	"github.com/skewtest/skewtest/driverkit"
)

// A client driver with one action, "greet", driven here through a string of actions as
// skewtest would write them on its standard input. In a driver's main, in and out are
// the process's (driverkit.Stdio).
func ExampleNew() {
	in := strings.NewReader(`{"id":1,"action":"greet","args":{"name":"ada"}}` + "\n" +
		`{"id":2,"action":"stop"}` + "\n")
	d := driverkit.New(in, os.Stdout, driverkit.Hello{Role: driverkit.Client, Kind: "cli", Product: "shop", Version: "v1.2.0"})
	d.Handle("greet", func(ctx context.Context, raw json.RawMessage) (any, error) {
		args, err := driverkit.Args[struct{ Name string }](raw)
		if err != nil {
			return nil, err
		}
		return map[string]string{"greeting": "hello " + args.Name}, nil // the product's real code goes here
	})
	if err := d.Run(context.Background(), nil); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"type":"hello","protocol":1,"role":"client","kind":"cli","build":{"product":"shop","version":"v1.2.0"},"actions":["greet","stop"]}
	// {"type":"ready"}
	// {"type":"result","id":1,"ok":true,"data":{"greeting":"hello ada"}}
	// {"type":"result","id":2,"ok":true,"data":{}}
}
