package checks_test

import (
	"fmt"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/declare/journeys"
	"github.com/skewtest/skewtest/internal/run/harness/checks"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
	"github.com/skewtest/skewtest/results"
)

var _ = Describe("fields that depend on the negotiated protocol version", func() {
	mqtt := func(version int) *contract.Contract {
		GinkgoHelper()
		c, err := contract.Parse("c.json", []byte(fmt.Sprintf(`{"contractVersion":2,"protocol":{"version":%d,"minCompatible":4},
		  "channels":[{"name":"mqtt","paths":["/mqtt"],
		    "binary":{"header":{"fields":[{"name":"type","offset":0,"encoding":"u8","mask":240,"shift":4},{"name":"length","encoding":"varint"}]},"stream":true},
		    "frames":[{"opcode":14,"name":"DISCONNECT","direction":"both","payload":"empty",
		      "variants":[{"since":5,"payload":"binary","fields":{"reasonCode":{"offset":0,"encoding":"u8","required":true}}}]}]}]}`, version)))
		Expect(err).NotTo(HaveOccurred())
		return c
	}
	j, err := journeys.Parse("j.txtar", []byte("kind *\n-- script --\nstep bye\nclient x\n"))
	Expect(err).NotTo(HaveOccurred())
	// An empty DISCONNECT (e0 00), as an MQTT 3.1.1 broker sends it.
	mismatches := func(host, client int) []results.Finding {
		t := &transcript.Transcript{Kind: "cli", Host: transcript.Build{Label: "h"}, Client: transcript.Build{Label: "c"},
			Conns:  []transcript.ConnEvent{{Conn: 1, Path: "/mqtt", Event: "open"}},
			Frames: []transcript.Frame{{Index: 1, Conn: 1, Path: "/mqtt", Dir: "H>C", Binary: true, Data: []byte{0xe0, 0x00}, Step: "bye"}}}
		return checks.FieldMismatch(&checks.Input{Transcript: t, Journey: j, Host: mqtt(host), Client: mqtt(client)})
	}

	It("reads a frame at the version the builds speak with each other", func() {
		Expect(mismatches(5, 4)).To(BeEmpty(), "a protocol 5 host speaks 4 to a 4 client: no reason code")
		Expect(mismatches(4, 5)).To(BeEmpty())
		fs := mismatches(5, 5)
		Expect(fs).To(HaveLen(1), "between protocol 5 builds the reason code is required")
		Expect(fs[0].Message).To(ContainSubstring("/reasonCode is missing"))
	})
})
