package builds_test

import (
	"errors"
	"path/filepath"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/builds"
)

const goodConfig = `product: remoteterm
# Path, inside the checkout, of this build's wire contract.
contract: skewtest-contract.json
build:
  steps:
    - go build -trimpath -o "$SKEWTEST_OUT/remoteterm-driver" ./cmd/remoteterm-driver
drivers:
  host: ["./remoteterm-driver", "host"]
  clients:
    mobile: ["./remoteterm-driver", "client", "mobile"]
    desktop: ["./remoteterm-driver", "client", "desktop"]
`

var _ = Describe("ParseConfig", func() {
	It("reads the documented example", func() {
		c, err := builds.ParseConfig("skewtest.yaml", []byte(goodConfig))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Product).To(Equal("remoteterm"))
		Expect(c.Contract).To(Equal("skewtest-contract.json"))
		Expect(c.Build.Steps).To(HaveLen(1))
		Expect(c.Drivers.Host).To(Equal([]string{"./remoteterm-driver", "host"}))
		Expect(c.ClientKinds()).To(Equal([]string{"desktop", "mobile"}))
	})

	DescribeTable("errors say file, line and what is wrong",
		func(body, want string) {
			_, err := builds.ParseConfig("skewtest.yaml", []byte(body))
			Expect(err).To(HaveOccurred())
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(want))
		},
		Entry("unknown top-level key",
			"product: p\ncontract: c.json\ndrivres: {}\n",
			`skewtest.yaml:3: unknown key "drivres" (known keys here: product, contract, build, drivers)`),
		Entry("unknown nested key",
			"product: p\ncontract: c.json\nbuild:\n  step: [make]\n",
			`skewtest.yaml:4: unknown key "step" (known keys here: steps)`),
		Entry("missing host driver",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  clients:\n    desktop: [./d]\n",
			"skewtest.yaml:5: drivers.host is missing or empty"),
		Entry("no client kind",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: [./d]\n",
			"skewtest.yaml:5: drivers.clients is empty"),
		Entry("no build step",
			"product: p\ncontract: c.json\nbuild:\n  steps: []\ndrivers:\n  host: [./d]\n  clients: {desktop: [./d]}\n",
			"skewtest.yaml:4: build.steps is empty"),
		Entry("empty product",
			"product: \"\"\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: [./d]\n  clients: {desktop: [./d]}\n",
			"skewtest.yaml:1: product is empty"),
		Entry("contract outside the checkout",
			"product: p\ncontract: ../c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: [./d]\n  clients: {desktop: [./d]}\n",
			`skewtest.yaml:2: contract "../c.json" is not a path inside the checkout`),
		Entry("argv given as a string",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: ./d host\n",
			"skewtest.yaml:6: cannot unmarshal"),
		Entry("bad indentation",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\n   oops: 1\n",
			"skewtest.yaml:3: did not find expected key"),
		Entry("duplicate key",
			"product: p\nproduct: q\n",
			`skewtest.yaml:2: mapping key "product" already defined at line 1`),
		Entry("empty file", "", "skewtest.yaml:1: empty file"),
		Entry("not a mapping", "- a\n- b\n", "skewtest.yaml:1: the file must be a mapping"),
	)

	It("reports every problem it finds, in line order", func() {
		_, err := builds.ParseConfig("skewtest.yaml", []byte("product: p\ncontract: \"\"\ndrivers:\n  host: []\n"))
		Expect(err).To(MatchError(
			"skewtest.yaml:1: build.steps is empty: give at least one shell command that writes the drivers to $SKEWTEST_OUT\n" +
				"skewtest.yaml:2: contract is empty: give the path of this build's wire contract inside the checkout, e.g. contract: skewtest-contract.json\n" +
				"skewtest.yaml:3: drivers.clients is empty: give at least one client kind, e.g. clients: {desktop: [\"./driver\", \"client\", \"desktop\"]}\n" +
				"skewtest.yaml:4: drivers.host is missing or empty: give the host driver's argv, e.g. host: [\"./driver\", \"host\"]"))
	})
})

var _ = Describe("LoadConfig", func() {
	It("says how to fix a missing file", func() {
		path := filepath.Join(GinkgoT().TempDir(), "skewtest.yaml")
		_, err := builds.LoadConfig(path)
		var ce *builds.ConfigError
		Expect(errors.As(err, &ce)).To(BeTrue())
		Expect(ce.File).To(Equal(path))
		Expect(err.Error()).To(Equal(path + ": not found: a subject needs skewtest.yaml at the root of its repository (see docs/subject.md)"))
	})
})
