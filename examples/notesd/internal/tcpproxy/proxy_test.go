package tcpproxy_test

import (
	"bufio"
	"net"
	"time"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/internal/tcpproxy"
)

// echo serves line echo on loopback.
func echo() string {
	GinkgoHelper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(ln.Close)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				sc := bufio.NewScanner(c)
				for sc.Scan() {
					_, _ = c.Write(append(sc.Bytes(), '\n'))
				}
			}()
		}
	}()
	return ln.Addr().String()
}

func roundTrip(addr string) error {
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err != nil {
		return err
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(time.Second))
	if _, err := c.Write([]byte("hi\n")); err != nil {
		return err
	}
	_, err = bufio.NewReader(c).ReadString('\n')
	return err
}

var _ = Describe("Proxy", func() {
	It("forwards, drops, blocks and unblocks", func() {
		p, err := tcpproxy.Start(echo())
		Expect(err).NotTo(HaveOccurred())
		DeferCleanup(p.Close)
		Expect(roundTrip(p.Addr())).To(Succeed())

		c, err := net.Dial("tcp", p.Addr())
		Expect(err).NotTo(HaveOccurred())
		defer c.Close()
		Expect(c.Write([]byte("x\n"))).To(Equal(2))
		Expect(bufio.NewReader(c).ReadString('\n')).To(Equal("x\n"))
		p.Drop()
		_ = c.SetReadDeadline(time.Now().Add(time.Second))
		_, err = c.Read(make([]byte, 1))
		Expect(err).To(HaveOccurred())

		p.Block()
		Expect(roundTrip(p.Addr())).NotTo(Succeed())
		p.Unblock()
		Expect(roundTrip(p.Addr())).To(Succeed())
	})
})
