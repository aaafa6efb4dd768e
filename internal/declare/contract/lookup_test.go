package contract_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

var _ = Describe("Lookup by direction", func() {
	const doc = `{"contractVersion": 2, "channels": [{"name": "s", "paths": ["/s"],
	  "binary": {"header": {"length": 2, "fields": [{"name": "type", "offset": 0, "encoding": "u8"}]}},
	  "text": {"json": {"discriminator": "type"}},
	  "frames": [
	    {"opcode": 0, "name": "Zero", "direction": "H>C"},
	    {"opcode": 5, "name": "Resized", "direction": "H>C"},
	    {"opcode": 9, "name": "Subscribe", "direction": "C>H", "kinds": ["desktop"]},
	    {"type": "ping", "name": "PingFromHost", "direction": "H>C", "periodic": true},
	    {"type": "ping", "name": "PingFromClient", "direction": "C>H"},
	    {"type": "bye", "name": "bye", "direction": "both"}
	  ]}]}`
	var ch *contract.Channel
	BeforeEach(func() { ch = mustChannel(doc, "/s") })

	It("tells the same type name apart by direction", func() {
		d := feed(ch, "", false, []byte(`{"type":"ping"}`))[0]
		Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("PingFromHost"))
		Expect(ch.Lookup(d, "C>H", "").Name).To(Equal("PingFromClient"))
		Expect(ch.Lookup(d, "H>C", "").Periodic).To(BeTrue(), "the host's, sent on a timer")
		Expect(ch.Lookup(d, "C>H", "").Periodic).To(BeFalse())
	})

	It("does not know a C>H opcode it knows only H>C", func() {
		d := feed(ch, "C>H", true, []byte{5, 0})[0]
		Expect(ch.Lookup(d, "C>H", "")).To(BeNil())
		Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("Resized"))
		Expect(ch.Opcode(5, "C>H", "")).To(BeNil())
		Expect(ch.Opcode(5, "", "").Name).To(Equal("Resized"), `"" is any direction`)
	})

	It("knows opcode 0 when the contract lists it", func() {
		d := feed(ch, "H>C", true, []byte{0, 0})[0]
		Expect(d.HasOpcode).To(BeTrue())
		Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("Zero"))
	})

	It("knows a frame of direction both either way", func() {
		d := feed(ch, "", false, []byte(`{"type":"bye"}`))[0]
		Expect(ch.Lookup(d, "H>C", "mobile").Name).To(Equal("bye"))
		Expect(ch.Lookup(d, "C>H", "mobile").Name).To(Equal("bye"))
	})

	It("knows a frame for the kinds that list it, and for the host", func() {
		d := feed(ch, "C>H", true, []byte{9, 0})[0]
		Expect(ch.Lookup(d, "C>H", "desktop")).NotTo(BeNil())
		Expect(ch.Lookup(d, "C>H", "mobile")).To(BeNil())
		Expect(ch.Lookup(d, "C>H", "")).NotTo(BeNil())
		Expect(ch.Named("Subscribe", "C>H", "desktop").Opcode).To(Equal(9))
		Expect(ch.Named("Subscribe", "H>C", "desktop")).To(BeNil())
	})

	It("leaves frames a driver names to the driver", func() {
		ch := mustChannel(driverDoc, "/opaque")
		d := feed(ch, "H>C", false, []byte(`{"t":1}`))[0]
		Expect(d.Driver).To(BeTrue())
		Expect(d.JSON).To(HaveKeyWithValue("t", 1.0))
		Expect(ch.Lookup(d, "H>C", "")).To(BeNil())
		d.Type = "hello" // as the driver named it
		Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("hello"))
		Expect(ch.Binary.Driver).To(BeTrue())
	})

	It("cuts driver frames by their u32 BE prefix across messages", func() {
		ch := mustChannel(driverDoc, "/opaque")
		s := ch.NewStream("C>H")
		Expect(s.Feed(true, []byte{0, 0, 0, 3, 'a'})).To(BeEmpty())
		ps := s.Feed(true, []byte{'b', 'c', 0, 0, 0, 0})
		Expect(ps).To(HaveLen(2))
		Expect(string(ps[0].Decoded.Payload)).To(Equal("abc"))
		Expect(ps[1].Decoded.Payload).To(BeEmpty())
		Expect(ps[0].Decoded.Driver).To(BeTrue())
	})
})
