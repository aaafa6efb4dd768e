package contract_test

import (
	"bytes"
	"slices"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

var _ = Describe("Header codecs", func() {
	Describe("remoteterm's fixed 16-byte header", func() {
		var ch *contract.Channel
		BeforeEach(func() { ch = mustChannel(remotetermDoc, "/terminal.multiplex") })

		It("reads opcode, stream, seq and the named fields, and a JSON payload", func() {
			ds := feed(ch, "H>C", true, rtFrame(2, 7, 1<<32|2, `{"kind":"scrollback","cols":80}`))
			Expect(ds).To(HaveLen(1))
			d := ds[0]
			Expect(d.Binary).To(BeTrue())
			Expect(d.HasOpcode).To(BeTrue())
			Expect(d.Opcode).To(Equal(2))
			Expect(d.HasStream).To(BeTrue())
			Expect(d.Stream).To(Equal(uint32(7)))
			Expect(d.HasSeq).To(BeTrue())
			Expect(d.Seq).To(Equal(uint64(1)<<32 | 2))
			Expect(d.Header).To(Equal(map[string]uint64{"magic": 0x74, "version": 1}))
			Expect(d.JSON).To(HaveKeyWithValue("kind", "scrollback"))
			Expect(d.Value).To(Equal(map[string]any{"kind": "scrollback", "cols": 80.0}))
			Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("SnapshotStart"))
		})

		It("keeps a text payload as bytes, with no value", func() {
			d := feed(ch, "H>C", true, rtFrame(1, 1, 9, "hello"))[0]
			Expect(string(d.Payload)).To(Equal("hello"))
			Expect(d.Value).To(BeNil())
		})

		It("names text frames by the discriminator", func() {
			d := feed(ch, "H>C", false, []byte(`{"type":"ready"}`))[0]
			Expect(d.Type).To(Equal("ready"))
			Expect(ch.Lookup(d, "H>C", "mobile").Name).To(Equal("ready"))
		})

		DescribeTable("refuses bytes that are not the header",
			func(data []byte, want string) {
				ps := ch.NewStream("H>C").Feed(true, data)
				Expect(ps).To(HaveLen(1))
				var he *contract.HeaderError
				Expect(ps[0].Err).To(BeAssignableToTypeOf(he))
				Expect(ps[0].Err).To(MatchError(want))
			},
			Entry("empty", []byte{}, "0-byte frame: shorter than the 16-byte header"),
			Entry("short", []byte{0x74, 1, 2}, "3-byte frame: shorter than the 16-byte header"),
			Entry("bad magic", make([]byte, 16), "16-byte frame: field magic at byte 0 is 0x0, want 0x74"),
			Entry("bad version", append([]byte{0x74, 2}, make([]byte, 14)...), "16-byte frame: field version at byte 1 is 0x2, want 0x1"),
		)
	})

	Describe("an MQTT-style bit-field header with a varint length, in stream mode", func() {
		var ch *contract.Channel
		connect := mqttPacket(1, 0, concat(u16str("MQTT"), []byte{4, 2, 0, 60}, u16str("abc"))...)
		connack := mqttPacket(2, 0, 1, 0)
		publish := mqttPacket(3, 0b0011, concat(u16str("a/b"), []byte{0, 7}, []byte("hello"))...)
		suback := mqttPacket(9, 0, 0, 7, 1, 128)
		pingreq := mqttPacket(12, 0)
		BeforeEach(func() { ch = mustChannel(mqttDoc, "/mqtt") })

		It("reads CONNECT with its payload fields", func() {
			d := feed(ch, "C>H", true, connect)[0]
			Expect(d.Opcode).To(Equal(1))
			Expect(d.HasStream).To(BeFalse())
			Expect(d.HasSeq).To(BeFalse())
			Expect(d.Header).To(Equal(map[string]uint64{"dup": 0, "qos": 0, "retain": 0}))
			f := ch.Lookup(d, "C>H", "")
			Expect(f.Name).To(Equal("CONNECT"))
			Expect(d.Value).To(Equal(map[string]any{"protocolName": "MQTT", "level": 4.0, "cleanSession": 1.0, "keepAlive": 60.0}))
			Expect(f.CheckFields(d.Value)).To(BeEmpty())
		})

		It("reads CONNACK, SUBACK and PINGREQ", func() {
			ds := feed(ch, "H>C", true, connack, suback)
			Expect(names(ch, "H>C", ds)).To(Equal([]string{"CONNACK", "SUBACK"}))
			Expect(ds[0].Value).To(Equal(map[string]any{"sessionPresent": 1.0, "returnCode": 0.0}))
			Expect(ds[1].Value).To(Equal(map[string]any{"packetId": 7.0, "codes": []any{1.0, 128.0}}))

			ping := feed(ch, "C>H", true, pingreq)
			Expect(pingreq).To(HaveLen(2))
			Expect(names(ch, "C>H", ping)).To(Equal([]string{"PINGREQ"}))
			Expect(ping[0].Payload).To(BeEmpty())
		})

		It("exposes a PUBLISH's flags as bit fields (dup 0, QoS 1, retain) and knows it in both directions", func() {
			d := feed(ch, "H>C", true, publish)[0]
			Expect(d.Header).To(Equal(map[string]uint64{"dup": 0, "qos": 1, "retain": 1}))
			dupQoS2 := feed(ch, "H>C", true, mqttPacket(3, 0b1100, concat(u16str("a/b"), []byte{0, 7}, []byte("x"))...))[0]
			Expect(dupQoS2.Header).To(Equal(map[string]uint64{"dup": 1, "qos": 2, "retain": 0}))
			Expect(d.Value).To(HaveKeyWithValue("topic", "a/b"))
			Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("PUBLISH"))
			Expect(ch.Lookup(d, "C>H", "").Name).To(Equal("PUBLISH"))
		})

		It("joins a packet split across two messages", func() {
			s := ch.NewStream("C>H")
			Expect(s.Feed(true, connect[:5])).To(BeEmpty())
			Expect(s.Pending()).To(Equal(5))
			ps := s.Feed(true, connect[5:])
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).NotTo(HaveOccurred())
			Expect(ps[0].Decoded.Opcode).To(Equal(1))
			Expect(s.Pending()).To(BeZero())
		})

		It("cuts two packets from one message, and keeps the start of a third", func() {
			s := ch.NewStream("H>C")
			ps := s.Feed(true, concat(connack, suback, publish[:1]))
			Expect(ps).To(HaveLen(2))
			Expect(s.Pending()).To(Equal(1))
			ps = s.Feed(true, publish[1:])
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Decoded.Opcode).To(Equal(3))
		})

		It("reads a remaining length of two varint bytes, split inside the varint", func() {
			big := mqttPacket(3, 0, concat(u16str("t"), bytes.Repeat([]byte("x"), 300))...)
			Expect(big[1] & 0x80).NotTo(BeZero())
			s := ch.NewStream("H>C")
			Expect(s.Feed(true, big[:2])).To(BeEmpty())
			ps := s.Feed(true, big[2:])
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Decoded.Payload).To(HaveLen(303))
		})

		It("reports a varint that never ends and drops what it holds", func() {
			s := ch.NewStream("H>C")
			ps := s.Feed(true, []byte{0x30, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff})
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).To(MatchError(ContainSubstring("field length at byte 1: varint longer than 10 bytes")))
			Expect(s.Pending()).To(BeZero())
		})

		It("decodes a whole message with Decode when it is one packet", func() {
			d, err := ch.Decode(true, pingreq)
			Expect(err).NotTo(HaveOccurred())
			Expect(d.Opcode).To(Equal(12))
			_, err = ch.Decode(true, connect[:4])
			Expect(err).To(MatchError(ContainSubstring("ends inside its first packet")))
		})
	})

	It("counts the header in the length when lengthIncludesHeader is set", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "c", "paths": ["/c"],
		  "binary": {"header": {"lengthIncludesHeader": true, "fields": [
		    {"name": "length", "offset": 0, "encoding": "u16be"},
		    {"name": "type", "offset": 2, "encoding": "u8"}]}, "stream": true},
		  "frames": [{"opcode": 1, "name": "A", "direction": "H>C"}]}]}`, "/c")
		s := ch.NewStream("H>C")
		ps := s.Feed(true, []byte{0, 5, 1, 'h', 'i', 0, 3, 1})
		Expect(ps).To(HaveLen(2))
		Expect(string(ps[0].Decoded.Payload)).To(Equal("hi"))
		Expect(ps[1].Decoded.Payload).To(BeEmpty())
		bad := s.Feed(true, []byte{0, 2, 1})
		Expect(bad[0].Err).To(MatchError(ContainSubstring("length 2 is shorter than the 3-byte header it includes")))
	})

	It("cuts back-to-back packets from a message that is not a stream, and reports a truncated last one", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "c", "paths": ["/c"],
		  "binary": {"header": {"fields": [
		    {"name": "type", "offset": 0, "encoding": "u8"},
		    {"name": "length", "offset": 1, "encoding": "u8"}]}},
		  "frames": [{"opcode": 1, "name": "A", "direction": "H>C"}]}]}`, "/c")
		ps := ch.NewStream("H>C").Feed(true, []byte{1, 1, 'x', 1, 0, 1, 5, 'y'})
		Expect(ps).To(HaveLen(3))
		Expect(ps[0].Err).NotTo(HaveOccurred())
		Expect(ps[1].Err).NotTo(HaveOccurred())
		Expect(ps[2].Err).To(MatchError("3-byte frame: truncated: the header says the packet has 7 bytes"))
	})
})

var _ = Describe("PacketEnd", func() {
	It("says where each packet of a stream codec ends, and 0 until it has", func() {
		mqtt := mustChannel(mqttDoc, "/mqtt")
		packets := [][]byte{mqttPacket(1, 0, concat(u16str("MQTT"), []byte{4, 2, 0, 60}, u16str("abc"))...), mqttPacket(12, 0),
			mqttPacket(3, 1, concat(u16str("a"), []byte("x"))...)}
		stream := concat(packets...)
		var got [][]byte
		for start, end := 0, 1; end <= len(stream); end++ { // a byte at a time, as a slow link brings them
			n, err := mqtt.PacketEnd(true, stream[start:end])
			Expect(err).NotTo(HaveOccurred())
			if n > 0 {
				got = append(got, stream[start:start+n])
				start += n
			}
		}
		Expect(got).To(Equal(packets))

		opaque := mustChannel(driverDoc, "/opaque")
		Expect(opaque.PacketEnd(true, []byte{0, 0, 0, 2, 'h', 'i', 0})).To(Equal(6), "the u32be prefix and the item")
		for _, c := range []struct {
			batch  string
			prefix []byte
		}{{"u16le", []byte{2, 0}}, {"u32le", []byte{2, 0, 0, 0}}} {
			le := mustChannel(`{"contractVersion": 2, "protocol": {"version": 1, "minCompatible": 1}, "channels": [{"name": "le", "paths": ["/le"],
				"binary": {"driver": true, "batch": "`+c.batch+`", "stream": true}, "frames": []}]}`, "/le")
			Expect(le.PacketEnd(true, append(slices.Clone(c.prefix), 'h', 'i', 9))).To(Equal(len(c.prefix)+2), "the %s prefix and the item", c.batch)
			Expect(le.PacketEnd(true, append(slices.Clone(c.prefix), 'h'))).To(Equal(0), "%s: not yet", c.batch)
			ps := le.NewStream("C>H").Feed(true, append(slices.Clone(c.prefix), 'h', 'i'))
			Expect(ps).To(HaveLen(1))
			Expect(ps[0].Err).NotTo(HaveOccurred())
			Expect(string(ps[0].Decoded.Payload)).To(Equal("hi"))
		}
		_, err := opaque.PacketEnd(true, []byte{0xff, 0xff, 0xff, 0xff})
		Expect(err).To(HaveOccurred(), "a length no packet has")
		_, err = mustChannel(jsonrpcDoc, "/rpc").PacketEnd(false, []byte(`{}`))
		Expect(err).To(MatchError(contract.ErrNoPacketEnd))
	})
})
