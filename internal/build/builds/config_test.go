package builds_test

import (
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/framing"
	"github.com/skewtest/skewtest/internal/declare/pins"
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
		Expect(c.ContractCommand).To(BeNil())
		Expect(c.ContractCommandArgv("/out")).To(BeNil())
	})

	It("reads contractCommand, relative to the output directory like a driver", func() {
		c, err := builds.ParseConfig("skewtest.yaml", []byte(goodConfig+"contractCommand: [./remoteterm-driver, contract]\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.ContractCommandArgv("/out")).To(Equal([]string{filepath.Join("/out", "remoteterm-driver"), "contract"}))
	})

	It("reads drivers.env", func() {
		c, err := builds.ParseConfig("skewtest.yaml", []byte("product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers:\n  host: [./d]\n  clients: {a: [./d]}\n  env: [GOMAXPROCS=1, \"EMPTY=\"]\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Drivers.Env).To(Equal([]string{"GOMAXPROCS=1", "EMPTY="}))
	})

	It("reads channels' transports: WebSocket unless one says otherwise", func() {
		base := "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\n"
		c, err := builds.ParseConfig("skewtest.yaml", []byte(base))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Transport()).To(Equal(builds.Transport{Scheme: "ws"}))
		c, err = builds.ParseConfig("skewtest.yaml", []byte(base+"channels:\n  rpc: {transport: tcp, framing: lines}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Transport()).To(Equal(builds.Transport{Scheme: "tcp", Channel: "rpc", Framing: "lines"}))
		Expect(c.Transport().Stream()).To(BeTrue())
		c, err = builds.ParseConfig("skewtest.yaml", []byte(base+"channels:\n  wire:\n    transport: tcp\n    framing: u16le\n    lengthOffset: 2\n    headerLength: 8\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Transport()).To(Equal(builds.Transport{Scheme: "tcp", Channel: "wire", Framing: "u16le", Length: framing.Length{Offset: 2, Header: 8}}))
		Expect(c.Transport().String()).To(Equal("tcp (channel wire, u16le framing, length at byte 2 of a 8-byte header)"))
		c, err = builds.ParseConfig("skewtest.yaml", []byte(base+"channels:\n  bin: {transport: tls}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Transport()).To(Equal(builds.Transport{Scheme: "tls", Channel: "bin", Framing: "raw"}))
		Expect(c.Transport().TLS()).To(BeTrue())
		c, err = builds.ParseConfig("skewtest.yaml", []byte(base+"channels:\n  a: {transport: wss}\n  b: {transport: wss}\n"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Transport()).To(Equal(builds.Transport{Scheme: "wss"}))
		Expect((*builds.Config)(nil).Transport()).To(Equal(builds.Transport{Scheme: "ws"}))
	})

	DescribeTable("errors say file, line and what is wrong",
		Entry("channels: an unknown transport", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  rpc:\n    transport: quic\n",
			`skewtest.yaml:7: channels.rpc.transport "quic": want ws, wss, tcp, tls`),
		Entry("channels: an unknown framing", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  rpc: {transport: tcp, framing: crlf}\n",
			`skewtest.yaml:6: channels.rpc.framing "crlf": want raw, lines, u16be, u32be, u16le, u32le, varint`),
		Entry("channels: a length offset on a framing without a fixed-width length", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  rpc:\n    transport: tcp\n    framing: varint\n    lengthOffset: 1\n",
			`skewtest.yaml:9: channels.rpc.lengthOffset: a length inside a header needs a fixed-width length framing (u16be, u32be, u16le, u32le), not "varint"`),
		Entry("channels: a header too short for its length", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  rpc:\n    transport: tcp\n    framing: u32le\n    lengthOffset: 2\n    headerLength: 4\n",
			`skewtest.yaml:10: channels.rpc.headerLength: 4 bytes cannot hold a 4-byte length at byte 2: want at least 6`),
		Entry("channels: a framing for WebSocket", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  rpc: {framing: lines}\n",
			"skewtest.yaml:6: channels.rpc.framing: only a tcp or tls channel is cut by a framing"),
		Entry("channels: two transports for one host URL", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  a: {transport: tcp}\n  b: {transport: ws}\n",
			"skewtest.yaml:5: channels: the host reports one URL, so its channels share one transport; these differ: b (ws); a (tcp)"),
		Entry("channels: two channels on one byte stream", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nchannels:\n  a: {transport: tcp}\n  b: {transport: tcp}\n",
			"skewtest.yaml:5: channels: a and b over tcp: a byte stream carries one channel"),
		func(body, want string) {
			_, err := builds.ParseConfig("skewtest.yaml", []byte(body))
			Expect(err).To(HaveOccurred())
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(err.Error()).To(ContainSubstring(want))
			Expect(err.Error()).NotTo(MatchRegexp(`!!\w|unmarshal|\[\]string|map\[`), "no YAML tags or Go types")
		},
		Entry("support: a cut without a reason", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nsupport:\n  clients: {last: 3}\n  cuts:\n    - {role: client, range: \"<v2.0.0\"}\n",
			"skewtest.yaml:8: support.cuts[0] has no reason"),
		Entry("support: since is not a stable tag", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nsupport:\n  hosts: {since: latest}\n",
			"skewtest.yaml:6: support.hosts.since \"latest\" is not a stable tag vX.Y.Z"),
		Entry("allow: a rule the static tier does not have", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nallow:\n  - rule: gate-addded\n    reason: reviewed\n",
			`skewtest.yaml:6: allow[0].rule "gate-addded" is not a rule of the static tier`),
		Entry("allow: no reason", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nallow:\n  - {rule: gate-added, frame: Span}\n",
			`skewtest.yaml:6: allow[0] has no reason: say why the finding is acceptable`),
		Entry("allow: refs that are neither a range nor a pair", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nallow:\n  - rule: gate-added\n    refs: \"since forever\"\n    reason: r\n",
			`skewtest.yaml:7: allow[0].refs "since forever" is neither a semver range of tags`),
		Entry("allow: an unknown key", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nallow:\n  - {rule: gate-added, why: r}\n",
			`skewtest.yaml:6: unknown key "why" (known keys here: rule, frame, path, pointer, refs, reason)`),
		Entry("fuzz: an empty generator pattern", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nfuzz:\n  - fuzz/*.txtar\n  - \"\"\n",
			"skewtest.yaml:7: fuzz[1] is empty"),
		Entry("fuzz: a generator outside the repository", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nfuzz: [../gen.txtar]\n",
			`skewtest.yaml:5: fuzz[0] "../gen.txtar" is not a path inside the repository`),
		Entry("drivers.env: not KEY=VALUE", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers:\n  host: [./d]\n  clients: {a: [./d]}\n  env:\n    - GOMAXPROCS=1\n    - GOMAXPROCS\n",
			`skewtest.yaml:9: drivers.env[1] "GOMAXPROCS": give KEY=VALUE`),
		Entry("drivers.env: a variable skewtest sets", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers:\n  host: [./d]\n  clients: {a: [./d]}\n  env: [SKEWTEST_ROLE=host]\n",
			`skewtest.yaml:7: drivers.env[0] "SKEWTEST_ROLE=host": skewtest sets the SKEWTEST_ variables`),
		Entry("fuzz: not a list", "product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nfuzz: {a: b}\n",
			"skewtest.yaml:5"),
		Entry("unknown top-level key",
			"product: p\ncontract: c.json\ndrivres: {}\n",
			`skewtest.yaml:3: unknown key "drivres" (known keys here: product, contract, build, drivers, contractCommand, pins, versions, journeys, fuzz, fixtures, support, allow)`),
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
			`skewtest.yaml:6: drivers.host is a string ("./d host"), want a list of strings, the command's argv, such as ["./driver", "host"]`),
		Entry("a long string where a list belongs is shown whole (B11)",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: \"remoteterm-driver host --with many arguments\"\n",
			`drivers.host is a string ("remoteterm-driver host --with many arguments"), want a list of strings`),
		Entry("a number where a list belongs (B09)",
			"product: p\ncontract: c.json\nbuild:\n  steps: 42\n",
			`skewtest.yaml:4: build.steps is a number ("42"), want a list of strings`),
		Entry("a list where a mapping belongs",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: [./d]\n  clients: [a, b]\n",
			`skewtest.yaml:7: drivers.clients is a list, want a mapping of names to lists of strings`),
		Entry("a string where a number belongs",
			"product: p\ncontract: c.json\nbuild: {steps: [x]}\ndrivers: {host: [./d], clients: {a: [./d]}}\nsupport:\n  clients: {last: three}\n",
			`skewtest.yaml:6: support.clients.last is a string ("three"), want a whole number`),
		Entry("a document marker and nothing else (found by FuzzParseConfig)", "---\n", "skewtest.yaml:1: empty file"),
		Entry("a YAML tag skewtest does not read (found by FuzzParseConfig)", "product: p\ncontract: c.json\nbuild: !foo bar\n",
			`skewtest.yaml:3: build is a value tagged !foo ("bar"), want a mapping of steps`),
		Entry("a string over two lines where a section belongs (found by FuzzParseConfig)", "product: p\ncontract: c.json\nbuild: \"0\n  0\"\n",
			`skewtest.yaml:3: build is a string ("0 0"), want a mapping of steps`),
		Entry("a scalar where a section belongs",
			"product: p\ncontract: c.json\nbuild: 7\n",
			`skewtest.yaml:3: build is a number ("7"), want a mapping of steps`),
		Entry("bad indentation: the line indented wrongly, not the mapping's first (was line 3, build:)",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\n   oops: 1\n",
			"skewtest.yaml:5: did not find expected key"),
		Entry("B07: a [ left open, at its line (was one line early)",
			"product: p\ncontract: c.json\nbuild:\n  steps:\n    - [go build, oops\ndrivers:\n  host: [./d]\n",
			"skewtest.yaml:5: did not find expected ',' or ']'"),
		Entry("a [ left open after one that spans two lines",
			"product: p\nbuild:\n  steps: [a,\n    b]\ndrivers:\n  host: [x\n",
			"skewtest.yaml:6: did not find expected ',' or ']'"),
		Entry("a list item indented wrongly",
			"product: p\nbuild:\n  steps:\n    - a\n    - b\n   - c\n",
			"skewtest.yaml:6: did not find expected key"),
		Entry("a block sequence followed by a key at its level",
			"- a\nb: c\n", "skewtest.yaml:2: did not find expected '-' indicator"),
		Entry("a stray ] on the first line (had no line)",
			"a: [1, 2]]\n", "skewtest.yaml:1: did not find expected key"),
		Entry("a scanner error keeps yaml.v3's line, which is right",
			"product: 'unterminated\ncontract: c\n", "skewtest.yaml:3: found unexpected end of stream"),
		Entry("duplicate key",
			"product: p\nproduct: q\n",
			`skewtest.yaml:2: mapping key "product" already defined at line 1`),
		Entry("empty file", "", "skewtest.yaml:1: empty file"),
		Entry("empty contract command",
			"product: p\ncontract: c.json\nbuild:\n  steps: [make]\ndrivers:\n  host: [./d]\n  clients: {desktop: [./d]}\ncontractCommand: []\n",
			"skewtest.yaml:8: contractCommand is empty"),
		Entry("unknown pins key",
			goodConfig+"pins:\n  lats: 3\n",
			`skewtest.yaml:13: unknown key "lats" (known keys here: refs, last, window, ignore)`),
		Entry("unknown ref key",
			goodConfig+"pins:\n  refs:\n    - {ref: v1, why: x}\n",
			`skewtest.yaml:14: unknown key "why" (known keys here: ref, reason)`),
		Entry("negative last",
			goodConfig+"pins:\n  last: -2\n",
			"skewtest.yaml:13: pins.last is -2"),
		Entry("ref without a reason",
			goodConfig+"pins:\n  refs:\n    - ref: v1.4.173\n",
			"skewtest.yaml:14: pins.refs[0] (v1.4.173) has no reason: say why it is pinned"),
		Entry("bad ignore glob",
			goodConfig+"pins:\n  ignore: [\"v1.[\"]\n",
			`skewtest.yaml:13: pins.ignore[0]: "v1.[" is not a glob`),
		Entry("unknown versions key",
			goodConfig+"versions:\n  - range: \"<v1\"\n    overlays: [a]\n",
			`skewtest.yaml:14: unknown key "overlays" (known keys here: range, overlay, recipe, toolchain, contract)`),
		Entry("row without a range",
			goodConfig+"versions:\n  - recipe: [make]\n",
			"skewtest.yaml:13: versions[0].range is empty"),
		Entry("bad range",
			goodConfig+"versions:\n  - recipe: [make]\n    range: \"before 1.4\"\n",
			`skewtest.yaml:14: versions[0].range "before 1.4": improper constraint`),
		Entry("overlay outside the tree",
			goodConfig+"versions:\n  - range: \"<v2\"\n    overlay:\n      - cmd\n      - ../x\n",
			`skewtest.yaml:16: versions[0].overlay[1] "../x" is not a path inside the working tree`),
		Entry("overlay of .git",
			goodConfig+"versions:\n  - range: \"<v2\"\n    overlay: [.git/hooks]\n",
			`versions[0].overlay[0] ".git/hooks" is not a path inside the working tree`),
		Entry("overlay twice",
			goodConfig+"versions:\n  - range: \"<v2\"\n    overlay: [cmd, ./cmd]\n",
			`versions[0].overlay[1] "./cmd" is listed twice`),
		Entry("empty recipe",
			goodConfig+"versions:\n  - range: \"<v2\"\n    recipe: []\n",
			"skewtest.yaml:14: versions[0].recipe is empty"),
		Entry("bad toolchain",
			goodConfig+"versions:\n  - range: \"<v2\"\n    toolchain: \"go 1.22\"\n",
			`skewtest.yaml:14: versions[0].toolchain "go 1.22"`),
		Entry("a row's contract outside the tree",
			goodConfig+"versions:\n  - range: \"<v2\"\n    contract: ../c.json\n",
			`skewtest.yaml:14: versions[0].contract "../c.json" is not a path inside the working tree (or REF:PATH)`),
		Entry("a row's contract with an empty ref",
			goodConfig+"versions:\n  - range: \"<v2\"\n    contract: \":c.json\"\n",
			`skewtest.yaml:14: versions[0].contract ":c.json": give a path of the working tree, or REF:PATH`),
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

var _ = Describe("the working tree's pins and versions", func() {
	const full = goodConfig + `pins:
  last: 3
  window: true
  refs:
    - {ref: v1.4.173, reason: "the real v1.4.173 release client"}
  ignore: ["v1.4.19?-*"]
versions:
  - range: "<v1.4.150"          # drivers came later
    overlay: [cmd/remoteterm-driver, driverproto/]
    recipe: ["go build ./..."]
    toolchain: go1.26
  - range: ">=v1.4.150 <v1.4.173"
    overlay: [cmd/remoteterm-driver]
`

	It("reads them", func() {
		c, err := builds.ParseConfig("skewtest.yaml", []byte(full))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Pins).To(Equal(pins.Options{
			Last: 3, Window: true, Ignore: []string{"v1.4.19?-*"},
			Refs: []pins.Ref{{Ref: "v1.4.173", Reason: "the real v1.4.173 release client"}},
		}))
		Expect(c.Versions).To(HaveLen(2))
		Expect(c.Versions[0].Overlay).To(Equal([]string{"cmd/remoteterm-driver", "driverproto"}))
		Expect(c.Versions[0].Line).To(Equal(19))
		Expect(c.Versions[1].Line).To(Equal(23))
	})

	DescribeTable("the first row whose range covers a tag applies",
		func(label string, row int) {
			c, err := builds.ParseConfig("skewtest.yaml", []byte(full))
			Expect(err).NotTo(HaveOccurred())
			r := c.Versions.Match(label)
			if row < 0 {
				Expect(r).To(BeNil())
				return
			}
			Expect(r).To(BeIdenticalTo(&c.Versions[row]))
		},
		Entry("old tag", "v1.4.120", 0),
		Entry("upper bound excluded", "v1.4.150", 1),
		Entry("second row", "v1.4.172", 1),
		Entry("pre-release inside a range", "v1.4.150-rc.1", 0),
		Entry("newer tag", "v1.4.173", -1),
		Entry("worktree", "worktree", -1),
		Entry("branch", "main", -1),
		Entry("foreign prefix", "mobile-v1.0.0", -1),
		Entry("not semver", "v799", -1),
	)
})

var _ = Describe("docs/subject.md", func() {
	It("shows pins and versions sections that parse", func() {
		data, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "subject.md"))
		Expect(err).NotTo(HaveOccurred())
		blocks := regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1)
		n := 0
		for _, m := range blocks {
			if !strings.HasPrefix(m[1], "pins:") && !strings.HasPrefix(m[1], "versions:") {
				continue
			}
			n++
			_, err := builds.ParseConfig("subject.md", []byte(goodConfig+m[1]))
			Expect(err).NotTo(HaveOccurred(), m[1])
		}
		Expect(n).To(Equal(2))
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

	// The trial's N04 and N05 (R5): both exited 3 with the read's error.
	DescribeTable("says what is wrong with a skewtest.yaml that is not a readable file, as a configuration error",
		func(lay func(path string), want string) {
			path := filepath.Join(GinkgoT().TempDir(), "skewtest.yaml")
			lay(path)
			_, err := builds.LoadConfig(path)
			var ce *builds.ConfigError
			Expect(errors.As(err, &ce)).To(BeTrue(), "%v", err)
			Expect(ce.File).To(Equal(path))
			Expect(err.Error()).To(Equal(path + ": " + want))
		},
		Entry("a directory", func(path string) { Expect(os.Mkdir(path, 0o755)).To(Succeed()) },
			"is a directory, not a file: a subject's skewtest.yaml is a YAML file at the root of its repository (see docs/subject.md)"),
		Entry("a symbolic link to itself", func(path string) { Expect(os.Symlink(filepath.Base(path), path)).To(Succeed()) },
			"is a symbolic link that loops (too many levels of symbolic links): make it the YAML file, or a link to one (see docs/subject.md)"),
		Entry("two symbolic links to each other", func(path string) {
			other := filepath.Join(filepath.Dir(path), "other.yaml")
			Expect(os.Symlink(other, path)).To(Succeed())
			Expect(os.Symlink(path, other)).To(Succeed())
		}, "is a symbolic link that loops (too many levels of symbolic links): make it the YAML file, or a link to one (see docs/subject.md)"),
	)

	It("reads a skewtest.yaml through a symbolic link (control)", func() {
		dir := GinkgoT().TempDir()
		Expect(os.WriteFile(filepath.Join(dir, "real.yaml"), []byte(goodConfig), 0o644)).To(Succeed())
		Expect(os.Symlink("real.yaml", filepath.Join(dir, "skewtest.yaml"))).To(Succeed())
		c, err := builds.LoadConfig(filepath.Join(dir, "skewtest.yaml"))
		Expect(err).NotTo(HaveOccurred())
		Expect(c.Product).To(Equal("remoteterm"))
	})
})
