GO      ?= go
# Where make build writes the binary; GOOS and GOARCH in the environment (or on the make
# command line) build it for another platform: make build BIN=dist/skewtest GOOS=darwin GOARCH=arm64.
BIN     ?= bin/skewtest
# The version the binary says it is (skewtest version, results.json's toolVersion): from git,
# such as v1.2.0, v1.2.0-3-gabc1234-dirty, or the commit alone before the first tag. Give
# VERSION=v1.2.0 to set it (a release); empty (VERSION=, or no git and no repository), the
# binary says what the Go toolchain recorded instead (its module version or commit).
VERSION ?= $(shell git describe --tags --dirty --always 2>/dev/null)
# The variable the linker stamps (internal/build/version.Var).
VERSION_VAR := github.com/skewtest/skewtest/internal/build/version.stamped
# Without a git binary the go command cannot record the commit of a checkout: leave it out
# rather than fail.
BUILDVCS := $(if $(shell command -v git 2>/dev/null),,-buildvcs=false)
SUBJECT := examples/remoteterm
# The second subject: a product on a third-party JSON-RPC library (its own module too).
NOTESD  := examples/notesd
# notesd's skew test: skewtest's library from go test (skewtesting), a module of its own.
NOTESD_SKEW := examples/notesd/skew
TESTFLAGS ?= -count=1 -timeout 40m
# The command's suite, the longest, runs on PROCS ginkgo processes (ginkgo is a go tool of
# this module: go tool ginkgo). LABELS filters every suite's specs: make test leaves out the
# long soak versions of specs it runs short (make soak runs those).
GINKGO ?= $(GO) tool ginkgo
PROCS  ?= 3
LABELS ?= !soak

.PHONY: build test test-cmd test-packages test-remoteterm test-notesd test-notesd-skew soak \
	demo lint bench generate docker-note fuzz race screenshot architecture

build:
	$(GO) build $(BUILDVCS) -ldflags "-X '$(VERSION_VAR)=$(VERSION)'" -o $(BIN) ./cmd/skewtest

# make test runs the suites at once, each target's output printed whole when it ends, and
# gives them one build cache to share ($SKEWTEST_TEST_CACHE, internal/testkit/testcache): a tag of
# the reference history builds once per make test, not once per spec file. The cache is
# removed at the end, passed or failed.
with-test-cache = cache=$$(mktemp -d "$${TMPDIR:-/tmp}/skewtest-test-cache.XXXXXX"); \
	SKEWTEST_TEST_CACHE=$$cache $(MAKE) --no-print-directory -O $(1); \
	status=$$?; chmod -R u+w "$$cache"; rm -rf "$$cache"; exit $$status

test: docker-note
	@$(call with-test-cache,-j5 test-cmd test-packages test-remoteterm test-notesd test-notesd-skew)

test-cmd:
	$(GINKGO) --procs=$(PROCS) --timeout=40m --silence-skips --label-filter='$(LABELS)' ./cmd/skewtest

test-packages:
	$(GO) test $(TESTFLAGS) $$($(GO) list ./... | grep -v '/cmd/skewtest$$') -ginkgo.label-filter='$(LABELS)'

test-remoteterm:
	cd $(SUBJECT) && $(GO) test $(TESTFLAGS) ./...

test-notesd:
	cd $(NOTESD) && $(GO) test $(TESTFLAGS) ./...

test-notesd-skew:
	cd $(NOTESD_SKEW) && $(GO) test $(TESTFLAGS) ./...

# The long versions of specs make test runs short (label soak): more cases, more rounds.
soak:
	@$(call with-test-cache,-j2 test-cmd test-packages LABELS=soak)

# Whether the container-runner specs (label docker) run on this machine, and why not: go test
# hides a passing suite's output, so its skip messages would not show.
docker-note:
	@$(GO) test -count=1 -v -run '^TestDockerNote$$' ./internal/build/builds/container 2>/dev/null | grep '^docker specs' || true

demo: build
	./$(BIN) demo

# The example subjects' sources and the driver kit, built into the binary (example/sources.zip);
# a spec of ./internal/adopt/example fails when it is stale.
generate:
	$(GO) generate ./internal/adopt/example

# The README's picture of report.html (docs/report.png), taken with a headless Chromium
# (chromium or chromium-browser on PATH, or $SKEWTEST_CHROMIUM) of the page rendered now from
# a real run's results.json (docs/testdata/report-results.json), with the digest of that page
# (docs/testdata/report.digest): a docs spec fails when the page no longer matches it.
screenshot:
	$(GO) run ./internal/cmd/reportshot

# docs/architecture.svg, the picture of docs/architecture.md: the package groups in the order a
# run flows, each package's layer and the imports between groups, drawn from the layer table
# (internal/testkit/coreguard.Architecture) and go list; a docs spec fails when it is stale.
architecture:
	$(GO) run ./internal/cmd/archdiagram

# lint also builds and vets for macOS, which is supported (desktop teams repro locally), and
# without the container runner (-tags nocontainer: see README, Install).
lint:
	@out=$$(gofmt -l . ); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	$(GO) build -tags nocontainer ./...
	$(GO) vet -tags nocontainer ./...
	cd $(SUBJECT) && $(GO) vet ./...
	cd $(NOTESD) && $(GO) vet ./...
	cd $(NOTESD_SKEW) && $(GO) vet ./...
	GOOS=darwin $(GO) build ./...
	GOOS=darwin $(GO) vet ./...

# Go's native fuzzing of skewtest's own parsers and decoders, each target for FUZZTIME. A
# failing input is written to the package's testdata/fuzz/<target>/: go test replays it
# from then on (keep it, named for what it shows, with the fix).
# Minimizing each new input bounded: the example skewtest.yaml seeds are long, and minimizing
# them unbounded stalls a short run.
FUZZTIME ?= 20s
FUZZMINIMIZETIME ?= 2s
FUZZ_TARGETS := internal/declare/contract:FuzzParse internal/declare/contract:FuzzFeed internal/declare/contract:FuzzDiff internal/declare/journeys:FuzzParse \
	internal/build/builds:FuzzParseConfig internal/declare/pins:FuzzParseLock internal/run/harness/driver:FuzzDecodeLine

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz ./$$pkg $$fn for $(FUZZTIME)"; \
		$(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME); done

# The race detector over skewtest's concurrent packages. A race-built program sleeps 1s as it
# exits (the race runtime's atexit_sleep_ms), and the process guardian is the test binary run
# again: without the setting a polite driver outlives the specs' short stop grace.
race:
	GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -timeout 40m ./internal/run/harness/... ./driverkit/... ./internal/build/proc/... ./internal/nightly/fuzz/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
