// Package wsrpc carries JSON-RPC 2.0 over WebSocket: a jrpc2 channel.Channel in which one
// record is one text message. A batch is one record (a JSON array), so it is one message.
package wsrpc

import (
	"errors"
	"io"
	"net"
	"sync"
	"time"

	"github.com/gorilla/websocket"
)

// Path is where a notesd host serves JSON-RPC.
const Path = "/rpc"

// closeWait bounds how long Close waits to write the close message.
const closeWait = time.Second

// Channel is a jrpc2 channel over one WebSocket connection. Send and Close may be called
// from any goroutine (gorilla/websocket allows one writer at a time, so writes are
// serialized); Recv belongs to one reader, as jrpc2 uses it.
type Channel struct {
	conn *websocket.Conn

	wmu    sync.Mutex
	closed bool
}

// New wraps an established connection.
func New(conn *websocket.Conn) *Channel {
	return &Channel{conn: conn}
}

// ErrBinary is returned by Recv for a binary message: JSON-RPC over notesd is text only.
var ErrBinary = errors.New("binary WebSocket message on a JSON-RPC channel")

// Send writes one record as one text message.
func (c *Channel) Send(record []byte) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed {
		return net.ErrClosed
	}
	return c.conn.WriteMessage(websocket.TextMessage, record)
}

// Recv reads the next record (Record). A close by the peer or the network ends the channel
// with io.EOF, which jrpc2 takes as an orderly end.
func (c *Channel) Recv() ([]byte, error) {
	typ, data, err := c.conn.ReadMessage()
	if err != nil {
		var ce *websocket.CloseError
		if errors.As(err, &ce) || errors.Is(err, net.ErrClosed) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, io.EOF
		}
		return nil, err
	}
	return Record(typ != websocket.TextMessage, data)
}

// Close says goodbye with a normal close message and closes the connection. It is safe to
// call more than once.
func (c *Channel) Close() error {
	c.wmu.Lock()
	if c.closed {
		c.wmu.Unlock()
		return nil
	}
	c.closed = true
	_ = c.conn.WriteControl(websocket.CloseMessage,
		websocket.FormatCloseMessage(websocket.CloseNormalClosure, ""), time.Now().Add(closeWait))
	c.wmu.Unlock()
	return c.conn.Close()
}
