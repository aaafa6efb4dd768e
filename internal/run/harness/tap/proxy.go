// Package tap is the wire tap: a proxy between a client and a host that forwards every
// message unchanged and records it. It carries WebSocket connections (ws://, and wss://
// over TLS), or byte streams (tcp://, and tls:// over TLS) that it cuts into messages by a
// framing (Stream).
//
// Each connection has exactly one reader and one writer per side (gorilla's
// rule): one goroutine pumps client to host and another host to client.
// When one side closes, the close is forwarded and the other side closed.
package tap

import (
	"cmp"
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

const (
	// dialTimeout bounds reaching the host for a new connection.
	dialTimeout = 10 * time.Second
	// closeTimeout bounds writing a close frame.
	closeTimeout = 250 * time.Millisecond
	// bufferSize is the read buffer of each side.
	bufferSize = 32 << 10
	// writeBufferSize is the write buffer of each side: large enough that common messages
	// (a terminal's 48 KiB chunks among them) go on as a single frame, as their sender
	// wrote them. A tap's connections share their write buffers: a buffer is held only
	// while a message is written.
	writeBufferSize = 64 << 10
)

// Proxy is a running tap. It listens on a loopback port of its own and
// forwards each connection to the same path and query on the upstream.
type Proxy struct {
	upstream string // ws://host:port, no trailing slash
	scheme   string // the upstream's, which is also the tap's: ws, wss, tcp or tls
	rec      Recorder
	stream   Stream   // how a byte-stream tap cuts messages (WithStream)
	ca       *CA      // the TLS of wss and tls (WithTLS)
	rewrite  Rewriter // nil: every message is forwarded unchanged
	listen   string   // the address to listen on (ListenOn)
	ln       net.Listener
	srv      *http.Server // WebSocket taps
	addr     string       // where ln listens
	upgrader websocket.Upgrader
	dialer   websocket.Dialer

	ctx       context.Context // dials; cancelled by Close
	cancel    context.CancelFunc
	stopAfter func() bool // the AfterFunc that closes on Start's ctx
	serveDone chan struct{}

	recMu sync.Mutex // serializes calls to rec
	seq   int

	mu       sync.Mutex
	closed   bool
	blocked  bool
	held     map[Direction]chan struct{} // per direction, closed by Release
	delays   map[Direction]delay         // per direction, set by Delay
	frags    map[Direction]fragment      // per direction, set by Fragment
	redo     map[Direction]*redelivery   // per direction, set by Redeliver until used
	nextConn int
	live     map[int]*conn
	handlers sync.WaitGroup

	closeOnce sync.Once
	closeErr  error
}

// Start listens on 127.0.0.1 port 0 (or ListenOn's address) and proxies to upstream:
// "ws://127.0.0.1:PORT" (optionally with a base path) or "wss://…" for WebSocket,
// "tcp://127.0.0.1:PORT" or "tls://…" for a byte stream (WithStream says how to cut it).
// wss and tls need WithTLS. The proxy closes when ctx is done or Close is called. rec may
// be nil.
func Start(ctx context.Context, upstream string, rec Recorder, opts ...Option) (*Proxy, error) {
	u, err := url.Parse(upstream)
	if err != nil {
		return nil, fmt.Errorf("tap upstream %q: %w", upstream, err)
	}
	byteStream := u.Scheme == "tcp" || u.Scheme == "tls"
	if (u.Scheme != "ws" && u.Scheme != "wss" && !byteStream) || u.Host == "" || u.RawQuery != "" ||
		(byteStream && strings.Trim(u.Path, "/") != "") {
		return nil, fmt.Errorf("tap upstream %q: want ws://, wss://, tcp:// or tls://host:port", upstream)
	}
	if rec == nil {
		rec = discard{}
	}
	writeBuffers := &sync.Pool{}
	p := &Proxy{
		upstream: strings.TrimSuffix(upstream, "/"),
		scheme:   u.Scheme,
		rec:      rec,
		listen:   "127.0.0.1:0",
		upgrader: websocket.Upgrader{
			ReadBufferSize:  bufferSize,
			WriteBufferSize: writeBufferSize,
			WriteBufferPool: writeBuffers,
			// Whoever may reach loopback may use the tap.
			CheckOrigin: func(*http.Request) bool { return true },
		},
		dialer: websocket.Dialer{
			NetDialContext:   dialWire,
			HandshakeTimeout: dialTimeout,
			ReadBufferSize:   bufferSize,
			WriteBufferSize:  writeBufferSize,
			WriteBufferPool:  writeBuffers,
		},
		serveDone: make(chan struct{}),
		live:      make(map[int]*conn),
	}
	for _, o := range opts {
		o(p)
	}
	if !slices.Contains(Framings, cmp.Or(p.stream.Framing, FramingRaw)) {
		return nil, fmt.Errorf("tap framing %q: want one of %s", p.stream.Framing, strings.Join(Framings, ", "))
	}
	if err := p.stream.Length.Check(p.stream.Framing); err != nil {
		return nil, fmt.Errorf("tap framing %s: %w", p.stream.Framing, err)
	}
	var serverTLS *tls.Config
	if u.Scheme == "wss" || u.Scheme == "tls" {
		if p.ca == nil {
			return nil, fmt.Errorf("tap upstream %q: %s needs the run's certificate authority (WithTLS)", upstream, u.Scheme)
		}
		serverTLS = p.ca.server()
		p.dialer.NetDialTLSContext = p.dialTLS
	}
	if p.ln, err = net.Listen("tcp", p.listen); err != nil {
		return nil, fmt.Errorf("tap listen: %w", err)
	}
	p.addr = p.ln.Addr().String()
	ln := listener{p.ln, serverTLS}
	p.ctx, p.cancel = context.WithCancel(context.WithoutCancel(ctx))
	if byteStream {
		go func() {
			defer close(p.serveDone)
			p.accept(ln) // ends with Close
		}()
	} else {
		p.srv = &http.Server{Handler: http.HandlerFunc(p.serve), ReadHeaderTimeout: dialTimeout}
		go func() {
			defer close(p.serveDone)
			_ = p.srv.Serve(ln) // ends with Close
		}()
	}
	// ctx may have ended already: Close then runs at once, beside this.
	stop := context.AfterFunc(ctx, func() { _ = p.Close() })
	p.mu.Lock()
	p.stopAfter = stop
	p.mu.Unlock()
	return p, nil
}

// URL returns the tap's base URL, ws://127.0.0.1:PORT, with the upstream's scheme.
func (p *Proxy) URL() string { return p.scheme + "://" + p.addr }

// Drop makes a transport drop: it closes the network connection on both
// sides of every live connection, without a close frame, so both peers
// see an abnormal closure (1006). It returns how many connections it
// dropped, once each has been recorded as closed.
func (p *Proxy) Drop() int {
	n := 0
	for _, c := range p.liveConns() {
		if c.end("dropped", func() { p.event(c, EventDrop, ""); c.reset() }) {
			n++
		}
		<-c.done
	}
	return n
}

// CloseWith ends every live connection with a close frame of code and reason to both sides,
// as if each peer had closed it: a server restart's 1012, a product's own 4000-4999. It
// returns how many connections it closed, once each has been recorded as closed.
func (p *Proxy) CloseWith(code int, reason string) int {
	detail := fmt.Sprintf("%d %s", code, reason)
	n := 0
	for _, c := range p.liveConns() {
		if c.end("tap closed with "+detail, func() {
			p.event(c, EventCloseWith, detail)
			writeClose(c.client, code, reason)
			writeClose(c.host, code, reason)
		}) {
			n++
		}
		<-c.done
	}
	return n
}

// Hold makes the tap a slow reader in direction dir: from the message it reads next on, it
// forwards nothing in that direction, on every connection, and reads nothing more from the
// sender, until Release. What the sender writes meanwhile backs up in its socket and
// WebSocket buffers, as it does behind a reader that stopped reading. Held messages are
// recorded when they go on.
func (p *Proxy) Hold(dir Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.held == nil {
		p.held = map[Direction]chan struct{}{}
	}
	if p.held[dir] == nil {
		p.held[dir] = make(chan struct{})
	}
}

// Release lets the messages held in direction dir go on, in order.
func (p *Proxy) Release(dir Direction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if h := p.held[dir]; h != nil {
		close(h)
		delete(p.held, dir)
	}
}

// delay is how long a direction's messages wait in the tap: d, and up to jitter more.
type delay struct{ d, jitter time.Duration }

// Delay makes every message in direction dir wait d in the tap, plus a part of jitter that
// the message's place on its connection fixes, from the message it reads next on, on every
// connection; Delay(dir, 0, 0) ends it. The tap goes on reading meanwhile (latency, not a
// slow reader) and keeps the order: no message overtakes another. A delayed message is
// recorded when it goes on.
func (p *Proxy) Delay(dir Direction, d, jitter time.Duration) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.delays == nil {
		p.delays = map[Direction]delay{}
	}
	p.delays[dir] = delay{max(d, 0), max(jitter, 0)}
}

// Fragment makes every message in direction dir travel as WebSocket frames of at most size
// payload bytes (the first with the message's opcode, then continuation frames), each frame
// in transport writes of at most split bytes (0: one write), from the message it reads next
// on, on every connection; Fragment(dir, 0, 0) ends it. The receiver must put the message
// back together (RFC 6455 5.4); the tap records the message whole.
func (p *Proxy) Fragment(dir Direction, size, split int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.frags == nil {
		p.frags = map[Direction]fragment{}
	}
	p.frags[dir] = fragment{max(size, 0), max(split, 0)}
}

// redelivery is a Redeliver under way in one direction: what each path's latest
// connection carried last, and what the next connection on a path gets again.
type redelivery struct {
	n, after int
	pending  map[string][]message // by path, once its connection ended
	used     map[string]bool      // paths whose next connection got theirs
}

// message is a data message as the tap forwarded it.
type message struct {
	mt   int
	data []byte
}

// Redeliver makes the next connection on a path get, in direction dir, the last n messages
// its predecessor on the path carried that way (from now on) once more, after its own first
// after messages: what an at-least-once resume does wrong, duplicate and out of order. It
// applies once per path; the redelivered messages are recorded as they go on.
func (p *Proxy) Redeliver(dir Direction, n, after int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.redo == nil {
		p.redo = map[Direction]*redelivery{}
	}
	p.redo[dir] = &redelivery{n: max(n, 0), after: max(after, 0), pending: map[string][]message{}, used: map[string]bool{}}
}

// route is how the journey has the next message of a connection's direction go: how many
// of the last messages to keep for a redelivery, and how to delay and fragment it.
type route struct {
	keep  int
	delay delay
	frag  fragment
}

// routeOf is the route of the next message in direction dir on a connection of path. A
// path whose redelivery has been used keeps nothing for another.
func (p *Proxy) routeOf(path string, dir Direction) route {
	p.mu.Lock()
	defer p.mu.Unlock()
	rt := route{delay: p.delays[dir], frag: p.frags[dir]}
	if r := p.redo[dir]; r != nil && !r.used[path] {
		rt.keep = r.n
	}
	return rt
}

// ended hands what a connection kept to the next on its path.
func (p *Proxy) ended(c *conn) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for dir, r := range p.redo {
		if kept := c.kept[dirIndex(dir)]; len(kept) > 0 && !r.used[c.path] {
			r.pending[c.path] = kept
		}
	}
}

// redeliveries takes what a new connection on path gets again in direction dir, and after
// how many of its own messages.
func (p *Proxy) redeliveries(path string, dir Direction) ([]message, int) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r := p.redo[dir]
	if r == nil || len(r.pending[path]) == 0 {
		return nil, 0
	}
	msgs := r.pending[path]
	delete(r.pending, path)
	r.used[path] = true
	return msgs, r.after
}

// hold returns the channel Release closes while dir is held, else nil.
func (p *Proxy) hold(dir Direction) chan struct{} {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.held[dir]
}

// Block holds the client offline: it drops every live connection (as Drop) and refuses new
// ones (HTTP 503, recorded as EventRefused) until Unblock. A client that reconnects at once,
// as real clients do, stays offline for as long as the journey wants.
func (p *Proxy) Block() int {
	p.mu.Lock()
	p.blocked = true
	p.mu.Unlock()
	return p.Drop()
}

// Unblock lets new connections through again.
func (p *Proxy) Unblock() {
	p.mu.Lock()
	p.blocked = false
	p.mu.Unlock()
}

// Close stops accepting, closes every live connection with 1001 (going
// away) on both sides, and waits for all of the proxy's goroutines.
func (p *Proxy) Close() error {
	p.closeOnce.Do(func() {
		p.mu.Lock()
		stop := p.stopAfter
		p.closed = true
		p.mu.Unlock()
		if stop != nil {
			stop() // nil: ctx ended while Start registered it, which is why Close runs
		}
		p.cancel()
		var err error
		if p.srv != nil {
			err = p.srv.Close() // the listener and connections not yet upgraded
		} else if err = p.ln.Close(); errors.Is(err, net.ErrClosed) {
			err = nil
		}
		for _, c := range p.liveConns() {
			c.end("tap closed", func() { c.goAway() })
		}
		p.handlers.Wait()
		<-p.serveDone
		if err != nil {
			p.closeErr = fmt.Errorf("close tap: %w", err)
		}
	})
	return p.closeErr
}

func (p *Proxy) liveConns() []*conn {
	p.mu.Lock()
	defer p.mu.Unlock()
	cs := make([]*conn, 0, len(p.live))
	for _, c := range p.live {
		cs = append(cs, c)
	}
	return cs
}

// serve handles one client connection for its whole life.
func (p *Proxy) serve(w http.ResponseWriter, r *http.Request) {
	if !websocket.IsWebSocketUpgrade(r) {
		http.Error(w, "the skewtest tap forwards WebSocket connections only", http.StatusBadRequest)
		return
	}
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		http.Error(w, "tap closed", http.StatusServiceUnavailable)
		return
	}
	p.nextConn++
	c := &conn{id: p.nextConn, path: r.URL.RequestURI(), done: make(chan struct{}), ended: make(chan struct{})}
	if p.blocked {
		p.mu.Unlock()
		p.event(c, EventRefused, "blocked by the journey (tap block)")
		http.Error(w, "the skewtest tap holds this client offline (tap block)", http.StatusServiceUnavailable)
		return
	}
	p.handlers.Add(1)
	p.mu.Unlock()
	defer p.handlers.Done()

	// The product's own connection: where the client offers permessage-deflate, the tap
	// offers it to the host, and accepts it from the client only where the host did; the
	// frames are recorded as the peers read them, decompressed.
	dialer := p.dialer
	dialer.EnableCompression = offersDeflate(r.Header)
	dctx, cancel := context.WithTimeout(p.ctx, dialTimeout)
	up, resp, err := dialer.DialContext(dctx, p.upstream+c.path, forwardHeader(r.Header))
	cancel()
	if err != nil {
		detail := dialError(err, resp)
		code := websocket.CloseInternalServerErr
		if p.ctx.Err() != nil {
			code, detail = websocket.CloseGoingAway, "tap closed"
		} else {
			p.event(c, EventUpstreamError, detail)
		}
		if cl, err := p.upgrader.Upgrade(w, r, nil); err == nil {
			writeClose(cl, code, "upstream: "+detail)
			cl.Close()
		}
		return
	}
	var hdr http.Header
	if sp := up.Subprotocol(); sp != "" {
		hdr = http.Header{"Sec-Websocket-Protocol": {sp}}
	}
	upgrader := p.upgrader
	upgrader.EnableCompression = dialer.EnableCompression && offersDeflate(resp.Header)
	cl, err := upgrader.Upgrade(w, r, hdr)
	if err != nil { // the upgrader has answered the client
		up.Close()
		return
	}
	detail := up.Subprotocol()
	if upgrader.EnableCompression {
		detail = strings.TrimPrefix(detail+"; "+Deflate, "; ")
	}
	p.connect(c, cl, up, detail)
}

// Deflate is the WebSocket extension that compresses messages (RFC 7692), as a connection's
// open event names it when both peers negotiated it through the tap.
const Deflate = "permessage-deflate"

// offersDeflate reports whether a handshake's Sec-WebSocket-Extensions names Deflate.
func offersDeflate(h http.Header) bool {
	for _, v := range h.Values("Sec-Websocket-Extensions") {
		for _, ext := range strings.Split(v, ",") {
			name, _, _ := strings.Cut(ext, ";")
			if strings.TrimSpace(name) == Deflate {
				return true
			}
		}
	}
	return false
}

// connect proxies c, whose sides are open, for its whole life; detail is its open event's
// (the subprotocol, and the extension the peers negotiated).
func (p *Proxy) connect(c *conn, cl, up wire, detail string) {
	c.client, c.host = cl, up
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		writeClose(cl, websocket.CloseGoingAway, "tap closed")
		cl.Close()
		up.Close()
		return
	}
	p.live[c.id] = c
	p.event(c, EventOpen, detail) // before Drop or Close can see c
	p.mu.Unlock()

	c.run(p)
	p.ended(c)
	p.event(c, EventClose, c.reason())

	p.mu.Lock()
	delete(p.live, c.id)
	p.mu.Unlock()
	close(c.done)
}

func (p *Proxy) frame(c *conn, dir Direction, mt int, data []byte, control string) {
	p.record(Frame{Conn: c.id, Path: c.path, Dir: dir, Binary: mt == websocket.BinaryMessage, Data: data,
		Control: control, At: time.Now()})
}

// message records a data message and returns the bytes to forward: the rewriter's, when it
// rewrote the message (the frame then records both).
func (p *Proxy) message(c *conn, dir Direction, mt int, data []byte) []byte {
	f := Frame{Conn: c.id, Path: c.path, Dir: dir, Binary: mt == websocket.BinaryMessage, Data: data}
	if p.rewrite != nil {
		if out, what, ok := p.rewrite.Rewrite(f); ok {
			f.Original, f.Data, f.Rewrite = data, out, what
		}
	}
	f.At = time.Now()
	p.record(f)
	return f.Data
}

func (p *Proxy) record(f Frame) {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	p.seq++
	f.Seq = p.seq
	p.rec.Frame(f)
}

func (p *Proxy) event(c *conn, event, detail string) {
	p.recMu.Lock()
	defer p.recMu.Unlock()
	p.rec.Conn(ConnEvent{Conn: c.id, Path: c.path, Event: event, Detail: detail, At: time.Now()})
}

// skipHeaders are not forwarded to the host: the handshake's own, the
// hop-by-hop ones, and Origin, which would name the tap and fail the
// host's same-origin check.
var skipHeaders = map[string]bool{
	"Host": true, "Upgrade": true, "Connection": true, "Keep-Alive": true,
	"Proxy-Connection": true, "Proxy-Authorization": true, "Te": true,
	"Trailer": true, "Transfer-Encoding": true, "Origin": true,
	"Sec-Websocket-Key": true, "Sec-Websocket-Version": true,
	"Sec-Websocket-Extensions": true, "Sec-Websocket-Accept": true,
}

// forwardHeader is the header for the host: the client's, less
// skipHeaders. Sec-WebSocket-Protocol is forwarded, so the host picks
// the subprotocol.
func forwardHeader(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, v := range h {
		if !skipHeaders[http.CanonicalHeaderKey(k)] {
			out[k] = v
		}
	}
	return out
}

func dialError(err error, resp *http.Response) string {
	if errors.Is(err, websocket.ErrBadHandshake) && resp != nil {
		return fmt.Sprintf("%v: %s", err, resp.Status)
	}
	return err.Error()
}

// writeClose sends a close frame, bounded in time, or on a stream ends its sending half;
// errors are ignored since the connection is closed next anyway.
func writeClose(w wire, code int, text string) {
	switch w := w.(type) {
	case *websocket.Conn:
		msg := websocket.FormatCloseMessage(code, truncate(text, 123))
		_ = w.WriteControl(websocket.CloseMessage, msg, time.Now().Add(closeTimeout))
	case *stream:
		w.closeWrite()
	}
}

// truncate cuts s to at most n bytes without splitting a UTF-8 sequence.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}

type discard struct{}

func (discard) Frame(Frame)    {}
func (discard) Conn(ConnEvent) {}
