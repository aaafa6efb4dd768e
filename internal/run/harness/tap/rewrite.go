package tap

// Rewriter replaces data messages on their way through the tap: the future-peer pass uses one
// to send a receiver what a later release of its peer is allowed to send (harness/future).
// The tap calls it from the goroutine pumping one direction of one connection, so calls for
// different connections or directions may run concurrently; the calls for one direction of
// one connection come in the order the messages travel.
type Rewriter interface {
	// Rewrite returns the bytes to forward instead of f.Data, what it did for the transcript
	// ("added optional field /cursor/x"), and true; or false to forward f unchanged. It must
	// not modify f.Data. Control frames are never offered.
	Rewrite(f Frame) (data []byte, what string, ok bool)
}

// Option changes how Start runs the proxy.
type Option func(*Proxy)

// ListenOn makes the proxy listen on addr ("127.0.0.1:9000", ":0") instead of a free port
// of 127.0.0.1: a standalone tap that a product's own tests are pointed at.
func ListenOn(addr string) Option {
	return func(p *Proxy) { p.listen = addr }
}

// WithRewriter makes the proxy offer every data message to rw before forwarding it; a
// rewritten message is recorded as forwarded (Frame.Data) with the sender's bytes in
// Frame.Original. A nil rw forwards every message unchanged.
func WithRewriter(rw Rewriter) Option {
	return func(p *Proxy) { p.rewrite = rw }
}

// WithStream says how a byte-stream tap (tcp://, tls://) cuts what it carries into messages
// and files them; it does nothing for a WebSocket tap.
func WithStream(s Stream) Option {
	return func(p *Proxy) { p.stream = s }
}

// WithTLS gives the tap the run's certificate authority, which wss:// and tls:// upstreams
// need: the tap presents the CA's certificate to clients and trusts the CA alone towards the
// host. It records what travels inside TLS.
func WithTLS(ca *CA) Option {
	return func(p *Proxy) { p.ca = ca }
}
