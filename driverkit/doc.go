// Package driverkit is the plumbing of skewtest's driver protocol (version 1) for drivers
// written in Go: the JSON lines a driver writes on stdout (hello, ready, results,
// observations), the actions it reads on stdin, and the built-in actions stop, decode,
// open-lane and close-lane. It uses the standard library only, so a product can vendor it.
//
// A driver registers a Handler per action, then calls Run:
//
//	func main() {
//		in, out := driverkit.Stdio() // stdout is the protocol's from here on
//		env := driverkit.FromEnv()
//		d := driverkit.New(in, out, driverkit.Hello{Role: env.Role, Kind: env.Kind, Product: "shop", Version: shop.Version})
//		d.Handle("order", func(ctx context.Context, raw json.RawMessage) (any, error) {
//			args, err := driverkit.Args[struct{ Item string }](raw)
//			if err != nil {
//				return nil, err
//			}
//			return client.Order(ctx, args.Item) // the product's real code
//		})
//		if err := d.Run(context.Background(), nil); err != nil {
//			log.Fatal(err)
//		}
//	}
//
// Ordinary actions run one at a time, in the order they arrive, and each is answered with
// one result; decode runs beside them (it is pure). Observations may be written from any
// goroutine at any time; each line is written whole, and lines written while another
// write is in progress go out together in the next one.
//
// A driver may also serve lanes (Lanes): several independent instances of its role in one
// process, each running one pairing. A lane is a *Lane with its own handlers, whose
// observations carry its number; its actions run in order on a goroutine of its own,
// beside other lanes'. Code that builds the role against an Instance, which both the
// *Driver and a *Lane are, builds the driver's own instance and every lane's:
//
//	build(d, env.HostURL) // the driver's own instance
//	d.Lanes(func(ctx context.Context, l *driverkit.Lane) (string, error) {
//		c := build(l, l.HostURL()) // a fresh one for the lane
//		l.OnClose(c.Close)         // at close-lane, or when the driver stops
//		return "", nil             // a host lane returns the URL it listens on
//	})
//
// See docs/driver-protocol.md and docs/driver-authors.md in the skewtest repository.
package driverkit
