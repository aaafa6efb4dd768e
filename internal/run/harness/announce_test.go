package harness_test

import (
	"errors"
	"path/filepath"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
	"github.com/skewtest/skewtest/internal/run/harness"
)

var _ = Describe("Announce", func() {
	// script is a host driver that says hello with params, gets ready and waits for stop.
	script := func(params string) *harness.Build {
		hello := `{"type":"hello","protocol":1,"role":"host","build":{"product":"p","version":"v1"},"actions":["emit","stop"],"params":` + params + `}`
		return &harness.Build{Label: "v1", Dir: GinkgoT().TempDir(),
			Host: []string{"sh", "-c", "printf '%s\\n' '" + hello + `' '{"type":"ready","url":"ws://127.0.0.1:1"}'; read line; printf '{"type":"result","id":1,"ok":true}\n'`}}
	}

	It("returns what a driver announces and describes, and stops it", func(ctx SpecContext) {
		h, err := harness.Announce(ctx, script(`{"emit":[{"name":"text","type":"text","limits":[48]}]}`), "host", "", filepath.Join(GinkgoT().TempDir(), "host.log"))
		Expect(err).NotTo(HaveOccurred())
		Expect(h.Actions).To(Equal([]string{"emit", "stop"}))
		Expect(h.Params["emit"]).To(HaveLen(1))
		Expect(h.Params["emit"][0].Limits).To(Equal([]int{48}))
	}, NodeTimeout(30*time.Second))

	It("refuses a description it cannot draw from as a usage error naming the driver, the action and the parameter", func(ctx SpecContext) {
		_, err := harness.Announce(ctx, script(`{"emit":[{"name":"mode","type":"enum"}]}`), "host", "", "")
		var u *usage.Error
		Expect(errors.As(err, &u)).To(BeTrue(), "%v", err)
		Expect(err).To(MatchError(ContainSubstring("host v1 driver's hello: params of emit, parameter 1: parameter mode: an enum needs values")))
	}, NodeTimeout(30*time.Second))
})
