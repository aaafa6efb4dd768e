package builds

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

// ConfigFile is the name of a subject's configuration, at the root of its repository.
const ConfigFile = "skewtest.yaml"

// DefaultFixtures is where a subject keeps its fixtures when its skewtest.yaml names no
// other directory (Config.Fixtures).
const DefaultFixtures = "skewtest/fixtures"

// FixturesDir is the fixtures directory, relative to the repository root; a nil config
// (no skewtest.yaml) keeps them at DefaultFixtures.
func (c *Config) FixturesDir() string {
	if c == nil || c.Fixtures == "" {
		return DefaultFixtures
	}
	return filepath.FromSlash(c.Fixtures)
}

// Config is a build's skewtest.yaml (see docs/subject.md).
type Config struct {
	// Product names the subject.
	Product string `yaml:"product"`
	// Contract is the path, inside the checkout, of this build's wire contract.
	Contract string `yaml:"contract"`
	// Build is the recipe.
	Build Recipe `yaml:"build"`
	// Drivers are the commands that run this build's code in each role.
	Drivers Drivers `yaml:"drivers"`
	// ContractCommand, when set, is the argv of a command of the build (a first word
	// starting with "./" is relative to the build's output directory, like drivers) that
	// prints the contract the build's code really speaks, for `skewtest contract verify`.
	ContractCommand []string `yaml:"contractCommand"`

	// Pins are the pin rules. Only the working tree's are used; command-line flags
	// override them (pins.Options.Override).
	Pins pins.Options `yaml:"pins"`
	// Versions is the table of version-specific build differences (overlays, recipes,
	// toolchains). Only the working tree's is used, for every pin it builds.
	Versions Versions `yaml:"versions"`
	// Journeys are the subject's journey files (paths or globs relative to the repository
	// root): the journeys a run covers by default, and the names --journey picks from. Only
	// the working tree's list is used.
	Journeys []string `yaml:"journeys"`
	// Fuzz are the subject's generator files (paths or globs relative to the repository
	// root) that skewtest fuzz draws cases from (see docs/fuzz.md). Only the working tree's
	// list is used.
	Fuzz []string `yaml:"fuzz"`
	// Fixtures is the directory (relative to the repository root) of the recordings of
	// earlier releases that skewtest record writes and run replays into the working tree's
	// decoders first (see docs/bisect.md); default DefaultFixtures. Only the working tree's
	// is used.
	Fixtures string `yaml:"fixtures"`
	// Support is the working tree's support policy: which releases, per role, it must
	// still work with (see docs/subject.md). Only the working tree's is used.
	Support pins.Support `yaml:"support"`
	// Allow lists the static findings the team reviewed and accepts, each with its reason:
	// reported as allowed, they fail nothing (see docs/subject.md). Only the working tree's
	// list is used.
	Allow []pins.Reviewed `yaml:"allow"`
	// Channels says, by contract channel name, how this build's host carries a channel:
	// WebSocket unless a channel says otherwise (transport.go, docs/subject.md). Every
	// build's own: a host's transport is that build's.
	Channels map[string]ChannelConfig `yaml:"channels"`

	// driverLines are the lines the drivers are declared at: the host's under "", each
	// client's under its kind (DriverLine).
	driverLines map[string]int
	// allowLines are the lines of the allow list's entries.
	allowLines []int
}

// AllowLine is the line of skewtest.yaml that entry i of the allow list starts at; 0 when
// unknown.
func (c *Config) AllowLine(i int) int {
	if i < 0 || i >= len(c.allowLines) {
		return 0
	}
	return c.allowLines[i]
}

// DriverLine is the line of skewtest.yaml that declares a driver: the host driver for kind
// "", else the client driver of kind; 0 when unknown. Messages about a driver name it, not
// a path in the build cache.
func (c *Config) DriverLine(kind string) int {
	return c.driverLines[kind]
}

// Recipe is how to build a checkout.
type Recipe struct {
	// Steps run in order, each with `sh -c` in the checkout.
	Steps []string `yaml:"steps"`
}

// Drivers are argv lists; a first word starting with "./" is relative to the build's
// output directory.
type Drivers struct {
	Host    []string            `yaml:"host"`
	Clients map[string][]string `yaml:"clients"`
	// Env is KEY=VALUE settings added to the environment of every driver of the build
	// (before --env, which may override them).
	Env []string `yaml:"env"`
}

// ClientKinds returns the client kinds, sorted.
func (c *Config) ClientKinds() []string {
	kinds := make([]string, 0, len(c.Drivers.Clients))
	for k := range c.Drivers.Clients {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	return kinds
}

// LoadConfig reads and checks a skewtest.yaml. Errors carry the path as given. A file
// that is missing, a directory, a symbolic link that loops or unreadable is a
// *ConfigError: the user's to fix.
func LoadConfig(path string) (*Config, error) {
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, &ConfigError{File: path, Msg: "not found: a subject needs " + ConfigFile +
			" at the root of its repository (see docs/subject.md)"}
	}
	if err != nil {
		if why := unreadable(path, err); why != "" {
			return nil, &ConfigError{File: path, Msg: why}
		}
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	return ParseConfig(path, data)
}

// unreadable says why a skewtest.yaml at path could not be read (err) when the fix is the
// user's, and how to fix it; "" when the file system itself failed.
func unreadable(path string, err error) string {
	switch {
	case errors.Is(err, syscall.ELOOP):
		return "is a symbolic link that loops (too many levels of symbolic links): make it the YAML file, or a link to one (see docs/subject.md)"
	case errors.Is(err, os.ErrPermission):
		return "cannot be read (permission denied): make it readable by the user skewtest runs as"
	}
	if fi, serr := os.Stat(path); serr == nil && fi.IsDir() {
		return "is a directory, not a file: a subject's " + ConfigFile + " is a YAML file at the root of its repository (see docs/subject.md)"
	}
	return ""
}

// ParseConfig parses and checks the contents of a skewtest.yaml; name is used in errors.
// Unknown keys are refused. Every problem found is a *ConfigError; when there are several,
// the error is their errors.Join, oldest line first, so errors.As still finds the first.
func ParseConfig(name string, data []byte) (*Config, error) {
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, syntaxError(name, data, err)
	}
	if len(root.Content) == 0 || (root.Content[0].Kind == yaml.ScalarNode && root.Content[0].ShortTag() == "!!null") { // nothing, or only "---" and comments
		return nil, &ConfigError{File: name, Line: 1, Msg: "empty file: set product, contract, build.steps and drivers (see docs/subject.md)"}
	}
	if doc := root.Content[0]; doc.Kind != yaml.MappingNode {
		return nil, &ConfigError{File: name, Line: doc.Line, Msg: "the file must be a mapping of product, contract, build and drivers"}
	}

	var c Config
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, yamlError(name, err, &root)
	}
	if errs := c.validate(name, root.Content[0]); len(errs) > 0 {
		if len(errs) == 1 {
			return nil, errs[0]
		}
		return nil, errors.Join(errs...)
	}
	for i := range c.Allow {
		c.allowLines = append(c.allowLines, lineOf(root.Content[0], "allow", strconv.Itoa(i)))
	}
	c.driverLines = map[string]int{"": lineOf(root.Content[0], "drivers", "host")}
	for kind := range c.Drivers.Clients {
		c.driverLines[kind] = lineOf(root.Content[0], "drivers", "clients", kind)
	}
	return &c, nil
}

var clientKind = regexp.MustCompile(`^[a-z0-9][a-z0-9._-]*$`)

// validate checks what the YAML decoder cannot; doc is the document's mapping, used for
// line numbers.
func (c *Config) validate(name string, doc *yaml.Node) []error {
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &ConfigError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	if strings.TrimSpace(c.Product) == "" {
		add(lineOf(doc, "product"), "product is empty: name the product, e.g. product: chatd")
	}
	switch {
	case strings.TrimSpace(c.Contract) == "":
		add(lineOf(doc, "contract"), "contract is empty: give the path of this build's wire contract inside the checkout, e.g. contract: skewtest-contract.json")
	case !filepath.IsLocal(c.Contract):
		add(lineOf(doc, "contract"), "contract %q is not a path inside the checkout", c.Contract)
	}
	if len(c.Build.Steps) == 0 {
		add(lineOf(doc, "build", "steps"), "build.steps is empty: give at least one shell command that writes the drivers to $SKEWTEST_OUT")
	}
	for i, s := range c.Build.Steps {
		if strings.TrimSpace(s) == "" {
			add(lineOf(doc, "build", "steps", strconv.Itoa(i)), "build.steps[%d] is empty", i)
		}
	}
	if !validArgv(c.Drivers.Host) {
		add(lineOf(doc, "drivers", "host"), `drivers.host is missing or empty: give the host driver's argv, e.g. host: ["./driver", "host"]`)
	}
	if len(c.Drivers.Clients) == 0 {
		add(lineOf(doc, "drivers", "clients"), `drivers.clients is empty: give at least one client kind, e.g. clients: {desktop: ["./driver", "client", "desktop"]}`)
	}
	for _, kind := range c.ClientKinds() {
		switch {
		case !clientKind.MatchString(kind):
			add(lineOf(doc, "drivers", "clients", kind), "client kind %q: use lower-case letters, digits, '.', '_' and '-'", kind)
		case !validArgv(c.Drivers.Clients[kind]):
			add(lineOf(doc, "drivers", "clients", kind), "drivers.clients.%s is empty: give the driver's argv", kind)
		}
	}
	for i, kv := range c.Drivers.Env {
		k, _, ok := strings.Cut(kv, "=")
		switch {
		case !ok || !envKey.MatchString(k):
			add(lineOf(doc, "drivers", "env", strconv.Itoa(i)), "drivers.env[%d] %q: give KEY=VALUE, e.g. GOMAXPROCS=1", i, kv)
		case strings.HasPrefix(k, "SKEWTEST_"):
			add(lineOf(doc, "drivers", "env", strconv.Itoa(i)), "drivers.env[%d] %q: skewtest sets the SKEWTEST_ variables of a driver itself (docs/driver-protocol.md)", i, kv)
		}
	}
	if c.ContractCommand != nil && !validArgv(c.ContractCommand) {
		add(lineOf(doc, "contractCommand"), `contractCommand is empty: give the argv of a command that prints the contract the build speaks, e.g. contractCommand: ["./driver", "contract"], or leave it out`)
	}
	for i, p := range c.Journeys {
		at := lineOf(doc, "journeys", strconv.Itoa(i))
		switch {
		case strings.TrimSpace(p) == "":
			add(at, "journeys[%d] is empty: give a journey file or glob relative to the repository root, e.g. journeys/*.txtar", i)
		case !filepath.IsLocal(filepath.FromSlash(p)):
			add(at, "journeys[%d] %q is not a path inside the repository", i, p)
		default:
			if _, err := path.Match(p, ""); err != nil {
				add(at, "journeys[%d] %q is not a valid glob: %v", i, p, err)
			}
		}
	}
	for i, p := range c.Fuzz {
		at := lineOf(doc, "fuzz", strconv.Itoa(i))
		switch {
		case strings.TrimSpace(p) == "":
			add(at, "fuzz[%d] is empty: give a generator file or glob relative to the repository root, e.g. fuzz/*.txtar", i)
		case !filepath.IsLocal(filepath.FromSlash(p)):
			add(at, "fuzz[%d] %q is not a path inside the repository", i, p)
		default:
			if _, err := path.Match(p, ""); err != nil {
				add(at, "fuzz[%d] %q is not a valid glob: %v", i, p, err)
			}
		}
	}
	errs = append(errs, c.validateChannels(name, doc)...)
	if c.Fixtures != "" && !filepath.IsLocal(filepath.FromSlash(c.Fixtures)) {
		add(lineOf(doc, "fixtures"), "fixtures %q is not a path inside the repository", c.Fixtures)
	}
	for _, msg := range c.Support.Validate() {
		// The message names the key (support.clients.last, support.cuts[1].range …).
		key := strings.Fields(msg)[0]
		path := []string{"support"}
		for _, part := range strings.Split(strings.TrimPrefix(key, "support."), ".") {
			if i := strings.IndexByte(part, '['); i >= 0 {
				path = append(path, part[:i], strings.Trim(part[i:], "[]"))
				continue
			}
			path = append(path, part)
		}
		add(lineOf(doc, path...), "%s", msg)
	}
	for i := range c.Allow {
		at := fmt.Sprintf("allow[%d]", i)
		for _, msg := range c.Allow[i].Validate(at) {
			field := strings.TrimPrefix(strings.Fields(msg)[0], at+".")
			if field == at {
				add(lineOf(doc, "allow", strconv.Itoa(i)), "%s", msg)
			} else {
				add(lineOf(doc, "allow", strconv.Itoa(i), field), "%s", msg)
			}
		}
	}
	errs = append(errs, c.validatePins(name, doc)...)
	errs = append(errs, c.validateVersions(name, doc)...)
	slices.SortStableFunc(errs, func(a, b error) int {
		return a.(*ConfigError).Line - b.(*ConfigError).Line
	})
	return errs
}

func validArgv(argv []string) bool {
	return len(argv) > 0 && strings.TrimSpace(argv[0]) != ""
}

// lineOf returns the line of the deepest node found along path (mapping keys, or sequence
// indexes as decimal strings), so a missing key is reported at its parent.
func lineOf(n *yaml.Node, path ...string) int {
	line := n.Line
	for _, p := range path {
		var next *yaml.Node
		switch n.Kind {
		case yaml.MappingNode:
			for i := 0; i+1 < len(n.Content); i += 2 {
				if n.Content[i].Value == p {
					line = n.Content[i].Line
					next = n.Content[i+1]
				}
			}
		case yaml.SequenceNode:
			if i, err := strconv.Atoi(p); err == nil && i < len(n.Content) {
				next = n.Content[i]
				line = next.Line
			}
		}
		if next == nil {
			return line
		}
		n = next
	}
	return line
}

var (
	yamlLine     = regexp.MustCompile(`(?s)^(?:yaml: )?line (\d+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (\S+) not found in type (\S+)$`)
	envKey       = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
)

// knownKeys lists the keys of each config type, for "unknown key" messages.
var knownKeys = map[string]string{
	"builds.Config":      "product, contract, build, drivers, contractCommand, pins, versions, journeys, fuzz, fixtures, support, allow",
	"pins.Reviewed":      "rule, frame, path, pointer, refs, reason",
	"pins.Support":       "clients, hosts, cuts",
	"pins.SupportRule":   "last, since",
	"pins.Cut":           "role, range, reason",
	"builds.Recipe":      "steps",
	"builds.Drivers":     "host, clients, env",
	"builds.VersionRule": "range, overlay, recipe, toolchain, contract",
	"pins.Options":       "refs, last, window, ignore",
	"pins.Ref":           "ref, reason",
}

// parserProblems are the messages of yaml.v3's parser (as opposed to its scanner's). The
// parser reports its line 0-based: one line early ("line 6" for a "[" left open on line 7).
var parserProblems = map[string]bool{
	"did not find expected <stream-start>":   true,
	"did not find expected <document start>": true,
	"did not find expected key":              true,
	"did not find expected '-' indicator":    true,
	"did not find expected ',' or ']'":       true,
	"did not find expected ',' or '}'":       true,
	"did not find expected node content":     true,
	"found undefined tag handle":             true,
	"found duplicate %YAML directive":        true,
	"found incompatible YAML document":       true,
	"found duplicate %TAG directive":         true,
}

// syntaxError is the ConfigError of a YAML syntax error in data, at the line of the actual
// problem where yaml.v3's message allows: a parser message's line is made 1-based (no line
// at all means the first), and, as the parser names the line where the collection the
// problem is in starts (a block mapping's first key for a line indented wrongly below it),
// the line is moved down to the first line from which the file, cut after it, fails with
// the same message: the line that breaks it.
func syntaxError(name string, data []byte, err error) error {
	raw := err.Error()
	m := strings.TrimPrefix(raw, "yaml: ")
	line := 0
	if sm := yamlLine.FindStringSubmatch(raw); sm != nil {
		line, _ = strconv.Atoi(sm[1])
		m = sm[2]
	}
	if !parserProblems[m] {
		return yamlError(name, err, nil)
	}
	line++ // 0-based, and absent for the first line
	return &ConfigError{File: name, Line: brokenLine(data, raw, line), Msg: m}
}

// brokenLine is the first line from line on (at most a screenful of lines below it, in a
// file of at most a MiB) at which data cut after that line fails to parse with the message
// raw; line when there is none.
func brokenLine(data []byte, raw string, line int) int {
	if len(data) > 1<<20 {
		return line
	}
	end := 0
	for i, l := range bytes.SplitAfter(data, []byte("\n")) {
		end += len(l)
		if i+1 < line {
			continue
		}
		if i+1 > line+100 {
			break
		}
		var n yaml.Node
		if err := yaml.Unmarshal(data[:end], &n); err != nil && err.Error() == raw {
			return i + 1
		}
	}
	return line
}

// yamlError turns a yaml.v3 error (which carries line numbers only in its text) into
// ConfigErrors; root, when the document parsed, gives a type error its key and whole value.
func yamlError(name string, err error, root *yaml.Node) error {
	var msgs []string
	var te *yaml.TypeError
	if errors.As(err, &te) {
		msgs = te.Errors
	} else {
		msgs = []string{err.Error()}
	}
	var errs []error
	for _, m := range msgs {
		ce := &ConfigError{File: name, Msg: strings.TrimPrefix(m, "yaml: ")}
		if sm := yamlLine.FindStringSubmatch(m); sm != nil {
			ce.Line, _ = strconv.Atoi(sm[1])
			ce.Msg = sm[2]
			if plain := typeMismatch(ce.Msg, ce.Line, root); plain != "" {
				ce.Msg = plain
			}
		}
		if fm := unknownField.FindStringSubmatch(ce.Msg); fm != nil {
			ce.Msg = fmt.Sprintf("unknown key %q", fm[1])
			if known, ok := knownKeys[fm[2]]; ok {
				ce.Msg += " (known keys here: " + known + ")"
			}
		}
		errs = append(errs, ce)
	}
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

// validatePins checks the pins section: the rules pins.Options.Validate checks, with
// lines, and a reason for every explicit ref.
func (c *Config) validatePins(name string, doc *yaml.Node) []error {
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &ConfigError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	p := c.Pins
	if p.Last < 0 {
		add(lineOf(doc, "pins", "last"), "pins.last is %d: give how many of the newest stable tags to pin, e.g. last: 3", p.Last)
	}
	for i, r := range p.Refs {
		at := lineOf(doc, "pins", "refs", strconv.Itoa(i))
		switch {
		case strings.TrimSpace(r.Ref) == "":
			add(at, "pins.refs[%d].ref is empty: name a tag, branch or commit, e.g. {ref: v1.4.173, reason: \"the real v1.4.173 release client\"}", i)
		case strings.TrimSpace(r.Reason) == "":
			add(at, "pins.refs[%d] (%s) has no reason: say why it is pinned, e.g. reason: \"the release mobile clients still run\"", i, r.Ref)
		}
	}
	for i, g := range p.Ignore {
		o := pins.Options{Ignore: []string{g}}
		if err := o.Validate(); err != nil {
			add(lineOf(doc, "pins", "ignore", strconv.Itoa(i)), "pins.ignore[%d]: %q is not a glob of tag names like \"v1.4.19?-*\"", i, g)
		}
	}
	return errs
}

var toolchainName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$`)

// validateVersions checks the versions table and records each row's line and range.
func (c *Config) validateVersions(name string, doc *yaml.Node) []error {
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &ConfigError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	for i := range c.Versions {
		r := &c.Versions[i]
		row := strconv.Itoa(i)
		r.Line = lineOf(doc, "versions", row)
		if strings.TrimSpace(r.Range) == "" {
			add(r.Line, "versions[%d].range is empty: give a semver range of tags, e.g. range: \"<v1.4.150\"", i)
		} else if cons, err := parseRange(r.Range); err != nil {
			add(lineOf(doc, "versions", row, "range"), "versions[%d].range %q: %v (e.g. \"<v1.4.150\" or \">=v1.4.120 <v1.4.150\")", i, r.Range, err)
		} else {
			r.constraint = cons
		}
		seen := map[string]bool{}
		for j, o := range r.Overlay {
			at := lineOf(doc, "versions", row, "overlay", strconv.Itoa(j))
			clean := path.Clean(o)
			switch {
			case strings.TrimSpace(o) == "" || clean == ".":
				add(at, "versions[%d].overlay[%d] is empty: give a path of the working tree, e.g. cmd/chatd-driver", i, j)
			case !safePath(clean):
				add(at, "versions[%d].overlay[%d] %q is not a path inside the working tree", i, j, o)
			case seen[clean]:
				add(at, "versions[%d].overlay[%d] %q is listed twice", i, j, o)
			}
			seen[clean] = true
			r.Overlay[j] = clean
		}
		for j, s := range r.Recipe {
			if strings.TrimSpace(s) == "" {
				add(lineOf(doc, "versions", row, "recipe", strconv.Itoa(j)), "versions[%d].recipe[%d] is empty", i, j)
			}
		}
		if r.Recipe != nil && len(r.Recipe) == 0 {
			add(lineOf(doc, "versions", row, "recipe"), "versions[%d].recipe is empty: leave it out to use the checkout's build.steps", i)
		}
		if r.Contract != "" {
			at := lineOf(doc, "versions", row, "contract")
			ref, p, isRef := strings.Cut(r.Contract, ":")
			switch {
			case isRef && (ref == "" || p == ""):
				add(at, "versions[%d].contract %q: give a path of the working tree, or REF:PATH", i, r.Contract)
			case !isRef && !safePath(path.Clean(r.Contract)):
				add(at, "versions[%d].contract %q is not a path inside the working tree (or REF:PATH)", i, r.Contract)
			}
		}
		if r.Toolchain != "" && !toolchainName.MatchString(r.Toolchain) {
			add(lineOf(doc, "versions", row, "toolchain"), "versions[%d].toolchain %q: use letters, digits, '.', '_' and '-' (it names the image skewtest/toolchain:<name>)", i, r.Toolchain)
		}
	}
	return errs
}
