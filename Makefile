GO      ?= go
BIN     := bin/skewtest
SUBJECT := examples/remoteterm
# The second subject: a product on a third-party JSON-RPC library (its own module too).
NOTESD  := examples/notesd
# notesd's skew test: skewtest's library from go test (skewtesting), a module of its own.
NOTESD_SKEW := examples/notesd/skew
# Specs of both modules; -p 2 keeps a 2-core machine responsive.
TESTFLAGS ?= -count=1 -timeout 40m

.PHONY: build test demo lint bench generate docker-note fuzz race screenshot

build:
	$(GO) build -o $(BIN) ./cmd/skewtest

test: docker-note
	$(GO) test $(TESTFLAGS) ./...
	cd $(SUBJECT) && $(GO) test $(TESTFLAGS) ./...
	cd $(NOTESD) && $(GO) test $(TESTFLAGS) ./...
	cd $(NOTESD_SKEW) && $(GO) test $(TESTFLAGS) ./...

# Whether the container-runner specs (label docker) run on this machine, and why not: go test
# hides a passing suite's output, so its skip messages would not show.
docker-note:
	@$(GO) test -count=1 -v -run '^TestDockerNote$$' ./builds/container 2>/dev/null | grep '^docker specs' || true

demo: build
	./$(BIN) demo

# The example subjects' sources and the driver kit, built into the binary (example/sources.zip);
# a spec of ./example fails when it is stale.
generate:
	$(GO) generate ./example

# The README's picture of report.html (docs/report.png), taken with a headless Chromium
# (chromium or chromium-browser on PATH, or $SKEWTEST_CHROMIUM) of the page rendered now from
# a real run's results.json (docs/testdata/report-results.json), with the digest of that page
# (docs/testdata/report.digest): a docs spec fails when the page no longer matches it.
screenshot:
	$(GO) run ./internal/cmd/reportshot

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
FUZZ_TARGETS := contract:FuzzParse contract:FuzzFeed contract:FuzzDiff journeys:FuzzParse \
	builds:FuzzParseConfig pins:FuzzParseLock harness/driver:FuzzDecodeLine

fuzz:
	@set -e; for t in $(FUZZ_TARGETS); do pkg=$${t%%:*}; fn=$${t##*:}; \
		echo "fuzz ./$$pkg $$fn for $(FUZZTIME)"; \
		$(GO) test ./$$pkg -run '^$$' -fuzz "^$$fn\$$" -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZETIME); done

# The race detector over skewtest's concurrent packages. A race-built program sleeps 1s as it
# exits (the race runtime's atexit_sleep_ms), and the process guardian is the test binary run
# again: without the setting a polite driver outlives the specs' short stop grace.
race:
	GORACE=atexit_sleep_ms=0 $(GO) test -race -count=1 -timeout 40m ./harness/... ./driverkit/... ./proc/... ./fuzz/...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
