package tap

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// closeGrace is how long the tap waits for the other side to answer a close it forwarded
// before it closes both sides itself.
const closeGrace = 2 * time.Second

// conn is one proxied connection: the client's side and the host's.
type conn struct {
	id     int
	path   string
	client wire // a *websocket.Conn, or a *stream on a byte-stream tap
	host   wire
	done   chan struct{} // closed once the close is recorded
	ended  chan struct{} // closed when end closes both sides

	once  sync.Once
	whyMu sync.Mutex
	why   string // how it ended: the first close forwarded, or what ended it

	// kept are the last messages of each direction a redelivery keeps (each written by its
	// direction's pump only, read once both have stopped).
	kept [2][]message // by dirIndex
}

// dirIndex numbers the directions: C>H 0, H>C 1.
func dirIndex(dir Direction) int {
	if dir == HostToClient {
		return 1
	}
	return 0
}

// run pumps both ways until both pumps have stopped, then closes both sides. Each side has
// one reader (the pump from it) and one writer (the pump to it); control frames are written
// with WriteControl, which gorilla allows beside the writer.
func (c *conn) run(p *Proxy) {
	c.forwardControl(p, c.client, c.host, ClientToHost)
	c.forwardControl(p, c.host, c.client, HostToClient)
	var wg sync.WaitGroup
	wg.Go(func() { c.pump(p, c.host, c.client, HostToClient) })
	c.pump(p, c.client, c.host, ClientToHost)
	wg.Wait()
	c.end("", nil)
}

// forwardControl makes src's pings and pongs travel on to dst, recorded, instead of being
// answered by the tap: a peer that stops answering pings is then visible, as it is without
// the tap. Closes are forwarded by pump (the close handler only keeps gorilla from
// answering a close itself).
func (c *conn) forwardControl(p *Proxy, srcWire, dstWire wire, dir Direction) {
	src, ok := srcWire.(*websocket.Conn)
	dst, ok2 := dstWire.(*websocket.Conn)
	if !ok || !ok2 { // a byte stream has no control frames
		return
	}
	forward := func(kind string, mt int) func(string) error {
		return func(data string) error {
			p.frame(c, dir, mt, []byte(data), kind)
			err := dst.WriteControl(mt, []byte(data), time.Now().Add(closeTimeout))
			if errors.Is(err, websocket.ErrCloseSent) {
				return nil
			}
			return err
		}
	}
	src.SetPingHandler(forward(ControlPing, websocket.PingMessage))
	src.SetPongHandler(forward(ControlPong, websocket.PongMessage))
	src.SetCloseHandler(func(int, string) error { return nil })
}

// pump forwards messages from src to dst, recording each one first. A close from src is
// forwarded with its code and reason; dst's answer comes back through the other pump, which
// is given closeGrace to see it.
func (c *conn) pump(p *Proxy, src, dst wire, dir Direction) {
	from, to := "client", "host"
	if dir == HostToClient {
		from, to = to, from
	}
	// Once the journey delays or fragments the direction, a forwarder writes to dst (its
	// one writer) to the end of the connection, so nothing overtakes what it holds.
	var fw *forwarder
	defer func() {
		if fw != nil {
			close(fw.q)
			<-fw.done
		}
	}()
	// A redelivery: what the path's previous connection carried, again, after this one's
	// first `after` messages.
	again, after := p.redeliveries(c.path, dir)
	var kept []message
	defer func() { c.kept[dirIndex(dir)] = kept }()
	sent := 0
	for {
		if len(again) > 0 && sent == after {
			for _, m := range again {
				if !c.deliver(p, dst, dir, from, to, m.mt, m.data, p.routeOf(c.path, dir), &fw) {
					return
				}
			}
			again = nil
		}
		mt, data, err := src.ReadMessage()
		if err != nil {
			if ce := closing(err); ce != nil {
				// A close frame, or a stream's end between messages: pass it on. (1005 goes
				// on as an empty close frame, or as the end of a stream.)
				if fw != nil {
					fw.send(c, p, item{closing: ce, due: fw.due(delay{}, time.Now())})
					return
				}
				c.closeOn(p, dst, dir, from, ce)
				return
			}
			c.end(readError(from, err), nil)
			return
		}
		if h := p.hold(dir); h != nil { // a slow reader (Hold): this message waits, and so does src
			select {
			case <-h:
			case <-c.ended:
				return
			case <-p.ctx.Done():
				return
			}
		}
		rt := p.routeOf(c.path, dir)
		if rt.keep > 0 {
			kept = append(kept, message{mt, data})
			kept = kept[max(0, len(kept)-rt.keep):]
		}
		if !c.deliver(p, dst, dir, from, to, mt, data, rt, &fw) {
			return
		}
		sent++
	}
}

// deliver forwards one message to dst: at once, or through the direction's forwarder once
// the journey delays or fragments it (*fw is started then). It reports whether the
// connection goes on.
func (c *conn) deliver(p *Proxy, dst wire, dir Direction, from, to string, mt int, data []byte, rt route, fw **forwarder) bool {
	if d, fr := rt.delay, rt.frag; *fw != nil || d.d > 0 || d.jitter > 0 || fr.size > 0 {
		if *fw == nil {
			*fw = c.forward(p, dst, dir, from, to)
		}
		return (*fw).send(c, p, item{mt: mt, data: data, due: (*fw).due(d, time.Now()), fr: fr})
	}
	data = p.message(c, dir, mt, data)
	if err := dst.WriteMessage(mt, data); err != nil {
		c.end(fmt.Sprintf("write to %s: %v", to, err), nil)
		return false
	}
	return true
}

// closeOn forwards a close frame from's side sent (in dir) to dst, and gives dst's answer
// closeGrace to come back.
func (c *conn) closeOn(p *Proxy, dst wire, dir Direction, from string, ce *websocket.CloseError) {
	msg := websocket.FormatCloseMessage(ce.Code, ce.Text)
	p.frame(c, dir, websocket.CloseMessage, msg, ControlClose)
	if _, ok := dst.(*stream); ok {
		c.because(from + " ended its stream")
	} else {
		c.because(fmt.Sprintf("%s closed: %d %s", from, ce.Code, ce.Text))
	}
	writeClose(dst, ce.Code, ce.Text)
	_ = dst.SetReadDeadline(time.Now().Add(closeGrace))
}

// item is a message, or a close, on its way through a delayed or fragmented direction.
type item struct {
	mt      int
	data    []byte
	closing *websocket.CloseError
	due     time.Time
	fr      fragment
}

// forwarder delivers one direction of a connection at each message's due time, in order, in
// the frames its fragment says.
type forwarder struct {
	q    chan item
	done chan struct{}
	last time.Time  // the latest due time given: dues never go back
	rnd  *rand.Rand // the jitter, fixed by the connection and direction
}

// forwardQueue bounds the messages a delayed direction holds before the tap stops reading.
const forwardQueue = 1024

// forward starts the forwarder of direction dir, which writes to dst from now on.
func (c *conn) forward(p *Proxy, dst wire, dir Direction, from, to string) *forwarder {
	seed := uint64(1)
	if dir == HostToClient {
		seed = 2
	}
	fw := &forwarder{q: make(chan item, forwardQueue), done: make(chan struct{}), rnd: rand.New(rand.NewPCG(uint64(c.id), seed))}
	go func() {
		defer close(fw.done)
		for it := range fw.q {
			if wait := time.Until(it.due); wait > 0 {
				t := time.NewTimer(wait)
				select {
				case <-t.C:
				case <-c.ended:
					t.Stop()
					return
				case <-p.ctx.Done():
					t.Stop()
					return
				}
			}
			if it.closing != nil {
				c.closeOn(p, dst, dir, from, it.closing)
				continue
			}
			data := p.message(c, dir, it.mt, it.data)
			var err error
			if it.fr.size > 0 {
				// The tap writes to the host as a client: its frames are masked.
				err = writeFragmented(dst, it.mt, data, it.fr, dir == ClientToHost)
			} else {
				err = dst.WriteMessage(it.mt, data)
			}
			if err != nil {
				c.end(fmt.Sprintf("write to %s: %v", to, err), nil)
				return
			}
		}
	}()
	return fw
}

// due is when a message read at now goes on under delay d: never before the one before it.
func (fw *forwarder) due(d delay, now time.Time) time.Time {
	at := now.Add(d.d)
	if d.jitter > 0 {
		at = at.Add(time.Duration(fw.rnd.Int64N(int64(d.jitter) + 1)))
	}
	if at.Before(fw.last) {
		at = fw.last
	}
	fw.last = at
	return at
}

// send queues it, unless the connection or the tap ends first.
func (fw *forwarder) send(c *conn, p *Proxy, it item) bool {
	select {
	case fw.q <- it:
		return true
	case <-c.ended:
		return false
	case <-p.ctx.Done():
		return false
	}
}

// because records why the connection ends, unless a reason is already known.
func (c *conn) because(why string) {
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	if c.why == "" {
		c.why = why
	}
}

func (c *conn) reason() string {
	c.whyMu.Lock()
	defer c.whyMu.Unlock()
	return c.why
}

// end ends the connection for reason why (unless one is known), once: it runs before (if
// not nil) and closes both sides, which stops both pumps. It reports whether this call was
// the one that ended it.
func (c *conn) end(why string, before func()) bool {
	first := false
	c.once.Do(func() {
		first = true
		if why != "" {
			c.because(why)
		}
		if before != nil {
			before()
		}
		c.client.Close()
		c.host.Close()
		close(c.ended)
	})
	return first
}

// goAway tells both sides the tap is going away.
func (c *conn) goAway() {
	writeClose(c.client, websocket.CloseGoingAway, "tap closed")
	writeClose(c.host, websocket.CloseGoingAway, "tap closed")
}

// closing is the close a read error stands for, or nil: a close frame's (a 1006 is no close
// frame but a transport's end), or, on a stream, 1005 for an end between messages.
func closing(err error) *websocket.CloseError {
	var ce *websocket.CloseError
	if errors.As(err, &ce) && ce.Code != websocket.CloseAbnormalClosure {
		return ce
	}
	if errors.Is(err, io.EOF) {
		return &websocket.CloseError{Code: websocket.CloseNoStatusReceived}
	}
	return nil
}

func readError(side string, err error) string {
	var ce *websocket.CloseError
	if errors.As(err, &ce) { // 1006: the connection ended without a close frame
		return fmt.Sprintf("%s transport closed: %s", side, ce.Text)
	}
	return fmt.Sprintf("%s: %v", side, err)
}
