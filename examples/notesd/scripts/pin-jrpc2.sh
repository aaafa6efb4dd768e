#!/bin/sh
# pin-jrpc2.sh: (re)write each release's go.mod and go.sum overlay (history/<tag>/) from
# this directory's go.mod, with the jrpc2 version the release shipped with. Run it from
# anywhere after changing go.mod; it needs the Go module proxy (or a warm module cache).
set -eu
here=$(cd "$(dirname "$0")/.." && pwd)
# The skewtest module (for the driver kit), as go.mod replaces it: kept as written, and
# resolved for the copy that is tidied elsewhere.
replace=$(cd "$here" && go list -m -f '{{with .Replace}}{{.Path}}{{end}}' github.com/skewtest/skewtest)
skewtest=$(cd "$here" && cd "$replace" && pwd)
pin() { # tag jrpc2-version
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	(cd "$here" && tar --exclude=./history -cf - .) | (cd "$tmp" && tar -xf -)
	cd "$tmp"
	go mod edit -replace "github.com/skewtest/skewtest=$skewtest"
	# Start from the direct requirements only, so the indirect ones are what that jrpc2
	# version asks for, not what a newer one left behind.
	for m in $(go list -m -f '{{if .Indirect}}{{.Path}}{{end}}' all); do go mod edit -droprequire "$m"; done
	go get "github.com/creachadair/jrpc2@$2" >/dev/null 2>&1
	go mod tidy
	go build ./...
	go mod edit -replace "github.com/skewtest/skewtest=$replace"
	mkdir -p "$here/history/$1"
	cp go.mod go.sum "$here/history/$1/"
	cd "$here"
	rm -rf "$tmp"
	trap - EXIT
	echo "history/$1: jrpc2 $2"
}
pin v0.1.0 v1.3.1
pin v0.2.0 v1.3.5
pin v0.3.0 v1.3.6
