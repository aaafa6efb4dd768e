// Package linerpc carries JSON-RPC 2.0 over a byte stream (a TCP or TLS connection): a jrpc2
// channel.Channel in which one record is one line, the JSON value and a newline (jrpc2's
// channel.Line). A batch is one record (a JSON array), so it is one line. jrpc2 writes
// compact JSON, in which a newline only ever appears escaped inside a string, so a record
// never holds one; Send refuses a record that does.
//
// It is wsrpc's twin for the tcp and tls transports, and ends the same way: a close by the
// peer or the network, or by this side, is io.EOF to Recv.
package linerpc

import (
	"errors"
	"io"
	"net"
	"sync/atomic"

	"github.com/creachadair/jrpc2/channel"
)

// Channel is a jrpc2 channel over one connection. Send and Close may be called from any
// goroutine (each record is one Write, and a net.Conn takes concurrent writes whole);
// Recv belongs to one reader, as jrpc2 uses it.
type Channel struct {
	conn   net.Conn
	line   channel.Channel // channel.Line over conn
	closed atomic.Bool
}

// New wraps an established connection (for TLS, a *tls.Conn: its handshake runs on the
// first read or write if it has not yet).
func New(conn net.Conn) *Channel {
	return &Channel{conn: conn, line: channel.Line(conn, conn)}
}

// Send writes one record as one line.
func (c *Channel) Send(record []byte) error {
	if c.closed.Load() {
		return net.ErrClosed
	}
	return c.line.Send(record)
}

// Recv reads the next record: one line, without its newline. A close by the peer or the
// network, or by Close, ends the channel with io.EOF, which jrpc2 takes as an orderly end;
// an unterminated last line is a record cut short, and is dropped. Any other error (a
// reset connection, a failed TLS handshake) is returned as it is.
func (c *Channel) Recv() ([]byte, error) {
	rec, err := c.line.Recv()
	switch {
	case err == nil:
		return rec, nil
	case errors.Is(err, io.EOF), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, net.ErrClosed):
		// channel.Line returns a cut-short last line with io.EOF (and one byte short): a
		// WebSocket message cut short is dropped the same way.
		return nil, io.EOF
	}
	return nil, err
}

// Close closes the connection (for TLS, after a close_notify alert). It is safe to call
// more than once, and from any goroutine: a Recv it interrupts returns io.EOF.
func (c *Channel) Close() error {
	if !c.closed.CompareAndSwap(false, true) {
		return nil
	}
	return c.conn.Close()
}
