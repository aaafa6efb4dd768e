package linerpc_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"time"

	"github.com/creachadair/jrpc2"
	"github.com/creachadair/jrpc2/handler"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/linerpc"
)

// conns returns both ends of a real TCP connection on 127.0.0.1.
func conns() (client, server net.Conn) {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	defer func() { _ = ln.Close() }()
	got := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			got <- c
		}
		close(got)
	}()
	client, err = net.Dial("tcp", ln.Addr().String())
	Expect(err).NotTo(HaveOccurred())
	server = <-got
	Expect(server).NotTo(BeNil())
	DeferCleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

// pair is conns with both ends wrapped.
func pair() (client, server *linerpc.Channel) {
	GinkgoHelper()
	c, s := conns()
	client, server = linerpc.New(c), linerpc.New(s)
	DeferCleanup(func() { _ = client.Close(); _ = server.Close() })
	return client, server
}

const batch = `[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","id":2,"method":"b"}]`

var _ = Describe("Channel", func() {
	It("writes one record as one line, and reads one line as one record", func() {
		c, s := conns()
		ch := linerpc.New(c)
		Expect(ch.Send([]byte(batch))).To(Succeed())
		Expect(ch.Send([]byte(`{"jsonrpc":"2.0","method":"n"}`))).To(Succeed())
		r := bufio.NewReader(s)
		Expect(s.SetReadDeadline(time.Now().Add(5 * time.Second))).To(Succeed())
		line, err := r.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal(batch+"\n"), "a batch is one line")
		line, err = r.ReadString('\n')
		Expect(err).NotTo(HaveOccurred())
		Expect(line).To(Equal(`{"jsonrpc":"2.0","method":"n"}` + "\n"))

		_, err = s.Write([]byte(`{"jsonrpc":"2.0","id":1,"result":true}` + "\n" + batch + "\n"))
		Expect(err).NotTo(HaveOccurred())
		rec, err := ch.Recv()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(Equal(`{"jsonrpc":"2.0","id":1,"result":true}`))
		rec, err = ch.Recv()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(Equal(batch))
	})

	It("refuses to send a record holding a newline", func() {
		c, _ := pair()
		Expect(c.Send([]byte("{\n}"))).NotTo(Succeed())
	})

	It("ends with io.EOF when the peer closes, and closes once", func() {
		c, s := pair()
		Expect(s.Close()).To(Succeed())
		Expect(s.Close()).To(Succeed())
		_, err := c.Recv()
		Expect(err).To(Equal(io.EOF))
		Expect(s.Send([]byte("{}"))).NotTo(Succeed())
	})

	It("drops a last line the peer cut short, and ends with io.EOF", func() {
		c, s := conns()
		ch := linerpc.New(c)
		_, err := s.Write([]byte(`{"jsonrpc":"2.0","method":"n"}` + "\n" + `{"jsonrpc":"2.0","meth`))
		Expect(err).NotTo(HaveOccurred())
		Expect(s.Close()).To(Succeed())
		rec, err := ch.Recv()
		Expect(err).NotTo(HaveOccurred())
		Expect(string(rec)).To(Equal(`{"jsonrpc":"2.0","method":"n"}`))
		rec, err = ch.Recv()
		Expect(err).To(Equal(io.EOF))
		Expect(rec).To(BeNil())
	})

	It("ends a blocked Recv with io.EOF when this side closes", func() {
		c, _ := pair()
		done := make(chan error, 1)
		go func() {
			_, err := c.Recv()
			done <- err
		}()
		Consistently(done, 100*time.Millisecond).ShouldNot(Receive())
		Expect(c.Close()).To(Succeed())
		Eventually(done, 5*time.Second).Should(Receive(Equal(io.EOF)))
	})

	It("carries jrpc2 calls and batches end to end, and the client sees the server go", func(ctx SpecContext) {
		c, s := pair()
		srv := jrpc2.NewServer(handler.Map{
			"add": handler.New(func(_ context.Context, xs []int) (int, error) { return xs[0] + xs[1], nil }),
		}, nil).Start(s)
		DeferCleanup(srv.Stop)
		stopped := make(chan error, 1)
		cli := jrpc2.NewClient(c, &jrpc2.ClientOptions{OnStop: func(_ *jrpc2.Client, err error) { stopped <- err }})
		DeferCleanup(cli.Close)
		var sum int
		Expect(cli.CallResult(ctx, "add", []int{2, 3}, &sum)).To(Succeed())
		Expect(sum).To(Equal(5))
		rsps, err := cli.Batch(ctx, []jrpc2.Spec{{Method: "add", Params: []int{1, 1}}, {Method: "nope"}})
		Expect(err).NotTo(HaveOccurred())
		Expect(rsps).To(HaveLen(2))
		Expect(rsps[0].ResultString()).To(Equal("2"))
		Expect(rsps[1].Error().Code).To(Equal(jrpc2.MethodNotFound))

		srv.Stop()
		Expect(srv.Wait()).To(Succeed(), "the server's own close is an orderly end")
		Eventually(stopped, 5*time.Second).Should(Receive(Equal(io.EOF)), "the orderly end jrpc2's client reports, as over wsrpc")
	}, SpecTimeout(5e9))
})
