package contract_test

import (
	"encoding/binary"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// wireMessage encodes a message of testdata/proto/wire.proto from its JSON form.
func wireMessage(name, js string) []byte {
	GinkgoHelper()
	b, err := wireBytes(name, js)
	Expect(err).NotTo(HaveOccurred())
	return b
}

// varintFrames prefixes each message with its length as a varint.
func varintFrames(msgs ...[]byte) []byte {
	var out []byte
	for _, m := range msgs {
		out = binary.AppendUvarint(out, uint64(len(m)))
		out = append(out, m...)
	}
	return out
}

var _ = Describe("Protobuf codecs", func() {
	var ch *contract.Channel
	BeforeEach(func() { ch = mustChannel(protobufDoc, "/wire") })

	It("names varint-prefixed frames by their oneof, per direction, with their JSON form", func() {
		msg := varintFrames(
			wireMessage("skewtest.wire.Command", `{"id": 1, "connect": {"client": "desktop", "features": ["spans"]}}`),
			wireMessage("skewtest.wire.Command", `{"id": 2, "publish": {"topic": "t", "data": "aGk=", "seq": "9"}}`),
			wireMessage("skewtest.wire.Command", `{"id": 3, "ping": {}}`),
			wireMessage("skewtest.wire.Command", `{}`))
		ds := feed(ch, "C>H", true, msg)
		Expect(names(ch, "C>H", ds)).To(Equal([]string{"Connect", "Publish", "Ping", "KeepAlive"}))
		Expect(ds[0].Value).To(Equal(map[string]any{"id": 1.0, "connect": map[string]any{"client": "desktop", "features": []any{"spans"}}}))
		Expect(ds[0].JSON).To(Equal(ds[0].Value))
		Expect(ds[1].Value).To(HaveKeyWithValue("publish", map[string]any{"topic": "t", "data": "aGk=", "seq": "9"}))
		Expect(ch.Lookup(ds[0], "C>H", "").CheckFields(ds[0].Value)).To(BeEmpty())
	})

	It("decodes H>C frames with the H>C message, enums by name", func() {
		ds := feed(ch, "H>C", true, varintFrames(
			wireMessage("skewtest.wire.Reply", `{"id": 1, "connected": {"server": "h"}}`),
			wireMessage("skewtest.wire.Reply", `{"failure": {"code": 3, "level": "FATAL"}}`)))
		Expect(names(ch, "H>C", ds)).To(Equal([]string{"Connected", "Failure"}))
		Expect(ds[1].Value).To(Equal(map[string]any{"failure": map[string]any{"code": 3.0, "level": "FATAL"}}))
	})

	It("ignores unknown fields", func() {
		known := wireMessage("skewtest.wire.Command", `{"ping": {}}`)
		unknown := protowireField(99, "later")
		ds := feed(ch, "C>H", true, varintFrames(append(known, unknown...)))
		Expect(ds[0].Type).To(Equal("ping"))
	})

	It("joins frames across messages in stream mode", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "w", "paths": ["/w"],
		  "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Command"}, "batch": "varint", "stream": true},
		  "frames": [{"type": "connect", "name": "Connect", "direction": "C>H"}]}]}`, "/w")
		all := varintFrames(wireMessage("skewtest.wire.Command", `{"connect": {"client": "c"}}`))
		s := ch.NewStream("")
		Expect(s.Feed(true, all[:3])).To(BeEmpty())
		ps := s.Feed(true, all[3:])
		Expect(ps).To(HaveLen(1))
		Expect(ps[0].Decoded.Type).To(Equal("connect"))
	})

	It("names a message without a oneof by its naming rules", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "w", "paths": ["/w"],
		  "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Plain",
		             "naming": {"discriminator": "kind"}}},
		  "frames": [{"type": "note", "name": "Note", "direction": "H>C"}]}]}`, "/w")
		d, err := ch.Decode(true, wireMessage("skewtest.wire.Plain", `{"kind": "note", "text": "x"}`))
		Expect(err).NotTo(HaveOccurred())
		Expect(ch.Lookup(d, "H>C", "").Name).To(Equal("Note"))
	})

	It("names a frame by the key present at a nested pointer of the message's JSON form", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "w", "paths": ["/w"],
		  "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Command",
		             "naming": {"nested": [{"pointer": "/publish", "keys": ["data", "topic"]}], "keys": ["connect", "publish", "ping"], "empty": "keepalive"}},
		             "batch": "varint"},
		  "frames": [{"type": "publish.data", "name": "PublishData", "direction": "C>H"},
		             {"type": "publish.topic", "name": "PublishTopic", "direction": "C>H"},
		             {"type": "publish", "name": "Publish", "direction": "C>H"},
		             {"type": "connect", "name": "Connect", "direction": "C>H"},
		             {"type": "keepalive", "name": "KeepAlive", "direction": "C>H"}]}]}`, "/w")
		ds := feed(ch, "C>H", true, varintFrames(
			wireMessage("skewtest.wire.Command", `{"publish": {"topic": "t", "data": "aGk="}}`),
			wireMessage("skewtest.wire.Command", `{"publish": {"topic": "t"}}`),
			// protojson leaves out fields at their zero value: "" and empty bytes are absent.
			wireMessage("skewtest.wire.Command", `{"publish": {"topic": "", "seq": "4"}}`),
			wireMessage("skewtest.wire.Command", `{"connect": {"client": "c"}}`),
			wireMessage("skewtest.wire.Command", `{}`)))
		Expect(names(ch, "C>H", ds)).To(Equal([]string{"PublishData", "PublishTopic", "Publish", "Connect", "KeepAlive"}))
		Expect(ds[1].Type).To(Equal("publish.topic"))
	})

	It("says why a nested rule named a message nothing, its oneof left unread", func() {
		ch := mustChannel(`{"contractVersion": 2, "channels": [{"name": "w", "paths": ["/w"],
		  "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb", "message": "skewtest.wire.Command",
		             "naming": {"nested": [{"pointer": "/publish", "keys": ["data"]}]}}},
		  "frames": [{"type": "publish.data", "name": "PublishData", "direction": "C>H"}]}]}`, "/w")
		_, err := ch.Decode(true, wireMessage("skewtest.wire.Command", `{"ping": {}}`))
		Expect(err).To(MatchError("frame names no frame type: nothing at /publish"))
		_, err = ch.Decode(true, wireMessage("skewtest.wire.Command", `{"publish": {"topic": "t"}}`))
		Expect(err).To(MatchError(`frame names no frame type: none of the keys "data" is present at /publish`))
	})

	It("reports bytes that are not the message, and a oneof with nothing set", func() {
		ps := ch.NewStream("C>H").Feed(true, varintFrames([]byte{0x0a, 0xff}))
		Expect(ps[0].Err).To(MatchError(ContainSubstring("frame is not protobuf skewtest.wire.Command")))
		ps = ch.NewStream("C>H").Feed(true, varintFrames(wireMessage("skewtest.wire.Command", `{"id": 5}`)))
		Expect(ps[0].Err).To(MatchError("frame names no frame type: no field of oneof body is set and the message is not empty"))
		ps = ch.NewStream("C>H").Feed(true, []byte{5, 1})
		Expect(ps[0].Err).To(MatchError("varint batch: truncated: the varint prefix says 5 bytes, 1 follow"))
	})

	It("needs the direction when each direction has its message", func() {
		_, err := ch.Decode(true, varintFrames(wireMessage("skewtest.wire.Command", `{"ping": {}}`)))
		Expect(err).To(MatchError(ContainSubstring(`no protobuf message for direction ""`)))
	})
})

// protowireField is a length-delimited field of number n that no message of wire.proto has.
func protowireField(n int, s string) []byte {
	b := binary.AppendUvarint(nil, uint64(n)<<3|2)
	b = binary.AppendUvarint(b, uint64(len(s)))
	return append(b, s...)
}
