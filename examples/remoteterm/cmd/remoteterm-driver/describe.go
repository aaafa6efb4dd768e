package main

import (
	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/chunker"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// describe describes the terminal actions' parameters in hello, for skewtest explore
// (docs/explore.md): output is cut into frames of at most chunker.MaxFrameBytes, and the
// text of emit-output and input feeds the contract's screen and input streams. Explore
// leaves some actions to journeys: subscribe and unsubscribe open and close what the others
// act on, pause needs a capability not every host offers, and request-snapshot's stream
// (snapshot-rows) compares the rows asked for with the rows rendered, which holds only
// with that much scrollback above the screen.
func describe(kit *driverkit.Driver, role, kind string) {
	terminal := driverkit.Param{Name: "terminal", Type: driverkit.ID, Example: "t1"}
	switch {
	case role == driverkit.Host:
		kit.Describe("emit-output", terminal,
			driverkit.Param{Name: "text", Type: driverkit.Text, Limits: []int{chunker.MaxFrameBytes}, Feeds: "screen"})
		kit.Describe("emit-transformed", terminal,
			driverkit.Param{Name: "text", Type: driverkit.Text, UTF8: true, Limits: []int{chunker.MaxFrameBytes}},
			driverkit.Param{Name: "rawLength", Type: driverkit.Int, Min: 1, Max: 1 << 16})
		kit.Describe("set-writable", terminal, driverkit.Param{Name: "writable", Type: driverkit.Bool})
		kit.Describe("set-cwd", terminal, driverkit.Param{Name: "cwd", Type: driverkit.Text, UTF8: true, Min: 1, Max: 4096})
	case kind == "desktop" || kind == "mobile":
		kit.Describe("input", terminal, driverkit.Param{Name: "text", Type: driverkit.Text, Max: 1 << 16, Feeds: "input"})
		kit.Describe("resize", terminal, driverkit.Param{Name: "cols", Type: driverkit.Int, Min: wire.MinCols, Max: wire.MaxCols},
			driverkit.Param{Name: "rows", Type: driverkit.Int, Min: wire.MinRows, Max: wire.MaxRows})
		kit.Describe("resubscribe", terminal)
	}
}
