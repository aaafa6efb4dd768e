module github.com/skewtest/skewtest/examples/notesd

go 1.26.8

require (
	github.com/creachadair/jrpc2 v1.3.1
	github.com/gorilla/websocket v1.5.3
	github.com/skewtest/skewtest v0.0.0-00010101000000-000000000000
)

require (
	github.com/creachadair/mds v0.23.0 // indirect
	golang.org/x/sync v0.25.0 // indirect
)

replace github.com/skewtest/skewtest => /work/wt-kit
