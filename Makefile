GO      ?= go
BIN     := bin/skewtest
SUBJECT := examples/remoteterm
# Specs of both modules; -p 2 keeps a 2-core machine responsive.
TESTFLAGS ?= -count=1 -timeout 40m

.PHONY: build test demo lint bench

build:
	$(GO) build -o $(BIN) ./cmd/skewtest

test:
	$(GO) test $(TESTFLAGS) ./...
	cd $(SUBJECT) && $(GO) test $(TESTFLAGS) ./...

demo: build
	./$(BIN) demo

# lint also builds and vets for macOS, which is supported (desktop teams repro locally).
lint:
	@out=$$(gofmt -l . ); if [ -n "$$out" ]; then echo "gofmt would change:"; echo "$$out"; exit 1; fi
	$(GO) vet ./...
	cd $(SUBJECT) && $(GO) vet ./...
	GOOS=darwin $(GO) build ./...
	GOOS=darwin $(GO) vet ./...

bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...
