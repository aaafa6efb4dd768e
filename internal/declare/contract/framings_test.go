package contract_test

import (
	"encoding/binary"
	"fmt"
	"os"

	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protodesc"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/descriptorpb"
	"google.golang.org/protobuf/types/dynamicpb"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

// The worked examples of the specs, one per framing. The same documents are in
// docs/contract.md; the fuzz targets and the garbage spec run every one of them.

// remoteterm's terminal stream: the fixed 16-byte header written in version 2 form, and
// JSON control frames named by a discriminator.
const remotetermDoc = `{
  "contractVersion": 2, "product": "remoteterm", "version": "v2.0.0",
  "protocol": {"version": 2, "minCompatible": 1},
  "channels": [{
    "name": "terminal", "paths": ["/terminal.multiplex", "/terminal.subscribe"],
    "binary": {"header": {"length": 16, "fields": [
      {"name": "magic", "offset": 0, "encoding": "u8", "value": 116},
      {"name": "version", "offset": 1, "encoding": "u8", "value": 1},
      {"name": "type", "offset": 2, "encoding": "u8"},
      {"name": "stream", "offset": 4, "encoding": "u32le"},
      {"name": "seq", "offset": 8, "encoding": "u32le-hi-lo"}]}},
    "text": {"json": {"discriminator": "type"}},
    "capabilities": [{"name": "outputSpan", "declaredBy": ["desktop"], "echoed": true}],
    "negotiation": [{"observation": "subscribed", "pointer": "/capabilities"}],
    "frames": [
      {"opcode": 1, "name": "Output", "direction": "H>C", "payload": "text"},
      {"opcode": 2, "name": "SnapshotStart", "direction": "H>C", "payload": "json", "fields": {
        "kind": {"type": "string", "required": true, "enum": ["scrollback", "resized"]},
        "cols": {"type": "integer", "required": true}}},
      {"opcode": 7, "name": "Input", "direction": "C>H", "payload": "text"},
      {"opcode": 15, "name": "OutputSpan", "direction": "H>C", "payload": "json", "kinds": ["desktop"],
       "gates": {"*": "outputSpan"}},
      {"type": "ready", "name": "ready", "direction": "H>C"},
      {"type": "subscribe", "name": "subscribe", "direction": "C>H"}
    ]
  }]
}`

// An MQTT-style channel: a bit-field header with a varint remaining length, in stream mode
// (a packet may span messages, a message may hold several packets), binary payload fields.
const mqttDoc = `{
  "contractVersion": 2, "product": "broker", "version": "v5.0.0",
  "protocol": {"version": 5, "minCompatible": 4},
  "channels": [{
    "name": "mqtt", "paths": ["/mqtt"],
    "binary": {"header": {"fields": [
      {"name": "type", "offset": 0, "encoding": "u8", "mask": 240, "shift": 4},
      {"name": "dup", "offset": 0, "encoding": "u8", "mask": 8, "shift": 3},
      {"name": "qos", "offset": 0, "encoding": "u8", "mask": 6, "shift": 1},
      {"name": "retain", "offset": 0, "encoding": "u8", "mask": 1},
      {"name": "length", "encoding": "varint"}]}, "stream": true},
    "frames": [
      {"opcode": 1, "name": "CONNECT", "direction": "C>H", "payload": "binary", "fields": {
        "protocolName": {"offset": 0, "encoding": "string-u16be", "required": true, "enum": ["MQTT"]},
        "level": {"offset": 6, "encoding": "u8", "required": true, "enum": [4, 5]},
        "cleanSession": {"offset": 7, "encoding": "u8", "mask": 2, "shift": 1},
        "keepAlive": {"offset": 8, "encoding": "u16be", "type": "integer", "required": true}}},
      {"opcode": 2, "name": "CONNACK", "direction": "H>C", "payload": "binary", "fields": {
        "sessionPresent": {"offset": 0, "encoding": "u8", "mask": 1},
        "returnCode": {"offset": 1, "encoding": "u8", "required": true, "enum": [0, 1, 2, 3, 4, 5]}}},
      {"opcode": 3, "name": "PUBLISH", "direction": "both", "payload": "binary", "fields": {
        "topic": {"offset": 0, "encoding": "string-u16be", "type": "string", "required": true}}},
      {"opcode": 8, "name": "SUBSCRIBE", "direction": "C>H", "payload": "binary", "fields": {
        "packetId": {"offset": 0, "encoding": "u16be", "required": true}}},
      {"opcode": 9, "name": "SUBACK", "direction": "H>C", "payload": "binary", "fields": {
        "packetId": {"offset": 0, "encoding": "u16be", "required": true},
        "codes": {"offset": 2, "encoding": "rest", "items": {"type": "integer", "enum": [0, 1, 2, 128]}}}},
      {"opcode": 12, "name": "PINGREQ", "direction": "C>H", "payload": "empty"},
      {"opcode": 13, "name": "PINGRESP", "direction": "H>C", "payload": "empty"}
    ]
  }]
}`

// JSON-RPC 2.0 (as MCP speaks it): requests named by /method, replies by the key they carry,
// {} a keep-alive; a message may be a batch (a JSON array).
const jsonrpcDoc = `{
  "contractVersion": 2, "product": "tools", "version": "v1.0.0",
  "protocol": {"version": 2, "minCompatible": 1},
  "channels": [{
    "name": "rpc", "paths": ["/rpc"],
    "text": {"json": {"pointer": "/method", "keys": ["result", "error"], "empty": "keepalive"}, "batch": "json-array"},
    "frames": [
      {"type": "initialize", "name": "initialize", "direction": "C>H", "payload": "json", "fields": {
        "jsonrpc": {"type": "string", "required": true, "enum": ["2.0"]},
        "id": {"type": "integer", "required": true},
        "params": {"type": "object", "required": true, "fields": {
          "clientInfo": {"type": "object", "required": true, "fields": {
            "name": {"type": "string", "required": true}}}}}}},
      {"type": "tools/call", "name": "callTool", "direction": "C>H", "payload": "json"},
      {"type": "notifications/progress", "name": "progress", "direction": "H>C", "payload": "json"},
      {"type": "result", "name": "result", "direction": "H>C", "payload": "json", "fields": {
        "id": {"type": "integer", "required": true},
        "result": {"type": "object", "fields": {
          "tools": {"type": "array", "items": {"type": "object", "fields": {
            "name": {"type": "string", "required": true},
            "kind": {"type": "string", "enum": ["read", "write"]}}}}}}}},
      {"type": "error", "name": "error", "direction": "H>C", "payload": "json"},
      {"type": "keepalive", "name": "keepalive", "direction": "both", "payload": "empty"}
    ],
    "invariants": [{"kind": "correlation", "request": ["initialize", "callTool"], "reply": ["result", "error"],
                    "pointer": "/id", "replyPointer": "/id"}]
  }]
}`

// A Centrifugo-style channel: JSON commands named by the key they carry, pushes by the key
// inside their "push" object, {} a ping, several commands per message as JSON lines; and a
// Discord-style one named by a numeric opcode.
const keysDoc = `{
  "contractVersion": 2, "product": "push", "version": "v6.0.0",
  "protocol": {"version": 6, "minCompatible": 5},
  "channels": [{
    "name": "client", "paths": ["/connection/websocket"],
    "text": {"json": {"nested": [{"pointer": "/push", "keys": ["pub", "join", "leave"]}],
                      "keys": ["connect", "subscribe", "publish", "push"], "empty": "ping"}, "batch": "newline"},
    "scope": {"pointer": "/subscribe/channel"},
    "negotiation": [{"frame": "connect", "dir": "H>C", "pointer": "/connect/features"}],
    "frames": [
      {"type": "connect", "name": "connect", "direction": "both"},
      {"type": "subscribe", "name": "subscribe", "direction": "both"},
      {"type": "publish", "name": "publish", "direction": "C>H"},
      {"type": "push", "name": "push", "direction": "H>C"},
      {"type": "push.pub", "name": "push.pub", "direction": "H>C"},
      {"type": "push.join", "name": "push.join", "direction": "H>C", "payload": "json", "fields": {
        "push": {"type": "object", "required": true, "fields": {"join": {"type": "object", "required": true, "fields": {
          "user": {"type": "string", "required": true}}}}}}},
      {"type": "push.leave", "name": "push.leave", "direction": "H>C"},
      {"type": "ping", "name": "ping", "direction": "both", "payload": "empty"}
    ]
  }, {
    "name": "gateway", "paths": ["/gateway"],
    "text": {"json": {"pointer": "/op"}},
    "frames": [
      {"type": "0", "name": "Dispatch", "direction": "H>C"},
      {"type": "1", "name": "Heartbeat", "direction": "both"},
      {"type": "2", "name": "Identify", "direction": "C>H"},
      {"type": "10", "name": "Hello", "direction": "H>C"}
    ]
  }]
}`

// Protobuf frames, each prefixed by its length as a varint (Centrifugo's protobuf format):
// a message per direction, named by the field set in its oneof; the empty message is a
// keep-alive.
const protobufDoc = `{
  "contractVersion": 2, "product": "push", "version": "v6.0.0",
  "protocol": {"version": 6, "minCompatible": 5},
  "channels": [{
    "name": "wire", "paths": ["/wire"],
    "binary": {"protobuf": {"descriptorSet": "proto/wire.binpb",
                            "message": {"H>C": "skewtest.wire.Reply", "C>H": "skewtest.wire.Command"},
                            "naming": {"empty": "keepalive"}},
               "batch": "varint"},
    "frames": [
      {"type": "connect", "name": "Connect", "direction": "C>H", "payload": "protobuf", "fields": {
        "connect": {"type": "object", "required": true, "fields": {"client": {"type": "string", "required": true}}}}},
      {"type": "publish", "name": "Publish", "direction": "both", "payload": "protobuf"},
      {"type": "ping", "name": "Ping", "direction": "C>H", "payload": "protobuf"},
      {"type": "connected", "name": "Connected", "direction": "H>C", "payload": "protobuf"},
      {"type": "failure", "name": "Failure", "direction": "H>C", "payload": "protobuf", "fields": {
        "failure": {"type": "object", "fields": {"level": {"type": "string", "enum": ["WARNING", "FATAL"]}}}}},
      {"type": "keepalive", "name": "KeepAlive", "direction": "both", "payload": "protobuf"}
    ]
  }]
}`

// Frames the receiving build's own driver names: the contract says only that, and how the
// frames are cut (a u32 BE length prefix, in stream mode).
const driverDoc = `{
  "contractVersion": 2, "product": "opaque", "version": "v1.0.0",
  "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{
    "name": "opaque", "paths": ["/opaque"],
    "binary": {"driver": true, "batch": "u32be", "stream": true},
    "text": {"driver": true, "batch": "newline"},
    "frames": [{"type": "hello", "name": "hello", "direction": "both"}]
  }]
}`

// A framing no worked example uses (spec only): a message is a u16be-prefixed batch whose
// items hold packets back to back, each with a 16-byte header whose length counts the header
// itself; the opcode and a flag share a u16 (bit fields), the seq is a u64 and a magic
// number sits at a fixed offset after them.
const packedDoc = `{
  "contractVersion": 2, "product": "packed", "version": "v1.0.0",
  "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{
    "name": "packed", "paths": ["/packed"],
    "binary": {"batch": "u16be", "header": {"length": 16, "lengthIncludesHeader": true, "fields": [
      {"name": "type", "offset": 0, "encoding": "u16be", "mask": 4095},
      {"name": "urgent", "offset": 0, "encoding": "u16be", "mask": 61440, "shift": 12},
      {"name": "length", "offset": 2, "encoding": "u16le"},
      {"name": "seq", "offset": 4, "encoding": "u64be"},
      {"name": "magic", "offset": 14, "encoding": "u8", "value": 42}]}},
    "frames": [
      {"opcode": 1, "name": "Data", "direction": "both", "payload": "binary", "fields": {
        "count": {"offset": 0, "encoding": "u32le", "type": "integer", "required": true},
        "rest": {"offset": 4, "encoding": "rest"}}},
      {"opcode": 2, "name": "Ping", "direction": "C>H", "payload": "empty"}
    ]
  }]
}`

// A little-endian stream over TCP: a version byte, a type byte, a u16le length of the
// payload, a u32le stream id, then the payload; a packet may span messages.
const leDoc = `{
  "contractVersion": 2, "product": "lelib", "protocol": {"version": 1, "minCompatible": 1},
  "channels": [{
    "name": "wire", "paths": ["/wire"],
    "binary": {"header": {"length": 8, "fields": [
      {"name": "version", "offset": 0, "encoding": "u8", "value": 1},
      {"name": "type", "offset": 1, "encoding": "u8"},
      {"name": "length", "offset": 2, "encoding": "u16le"},
      {"name": "stream", "offset": 4, "encoding": "u32le"}]}, "stream": true},
    "frames": [
      {"opcode": 0, "name": "Open", "direction": "C>H", "payload": "empty"},
      {"opcode": 1, "name": "Window", "direction": "both", "payload": "binary", "fields": {
        "delta": {"offset": 0, "encoding": "u32le", "type": "integer", "required": true}}},
      {"opcode": 2, "name": "Data", "direction": "both", "payload": "binary"}
    ]
  }]
}`

// lePacket is one packet of leDoc.
func lePacket(typ byte, stream uint32, payload ...byte) []byte {
	b := []byte{1, typ}
	b = binary.LittleEndian.AppendUint16(b, uint16(len(payload)))
	b = binary.LittleEndian.AppendUint32(b, stream)
	return append(b, payload...)
}

// packedPacket is one packet of packedDoc: the header, then the payload.
func packedPacket(opcode uint16, urgent bool, seq uint64, payload ...byte) []byte {
	b := make([]byte, 16, 16+len(payload))
	t := opcode & 0x0fff
	if urgent {
		t |= 1 << 12
	}
	binary.BigEndian.PutUint16(b, t)
	binary.LittleEndian.PutUint16(b[2:], uint16(16+len(payload)))
	binary.BigEndian.PutUint64(b[4:], seq)
	b[14] = 42
	return append(b, payload...)
}

// u16beBatch prefixes every item with its length as a u16 BE.
func u16beBatch(items ...[]byte) []byte {
	var out []byte
	for _, it := range items {
		out = binary.BigEndian.AppendUint16(out, uint16(len(it)))
		out = append(out, it...)
	}
	return out
}

// framing is one channel the garbage spec and FuzzFeed feed bytes through: valid messages
// of direction dir, and a message that is garbage to it.
type framing struct {
	name    string
	doc     string
	path    string
	binary  bool
	dir     string
	samples func() ([][]byte, error)
	garbage []byte
}

func fixed(msgs ...[]byte) func() ([][]byte, error) {
	return func() ([][]byte, error) { return msgs, nil }
}

var framings = []framing{
	{"remoteterm header", remotetermDoc, "/terminal.multiplex", true, "H>C",
		fixed(rtFrame(2, 7, 9, `{"kind":"scrollback","cols":80}`), rtFrame(1, 1, 1, "out")), make([]byte, 16)},
	{"remoteterm json", remotetermDoc, "/terminal.multiplex", false, "H>C",
		fixed([]byte(`{"type":"ready"}`)), []byte(`{"kind":"ready"}`)},
	{"mqtt stream", mqttDoc, "/mqtt", true, "C>H",
		fixed(mqttPacket(1, 0, concat(u16str("MQTT"), []byte{4, 2, 0, 60}, u16str("abc"))...), mqttPacket(12, 0),
			concat(mqttPacket(3, 1, concat(u16str("a"), []byte("x"))...), mqttPacket(8, 2, 0, 1))),
		[]byte{0x30, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff}},
	{"json-rpc", jsonrpcDoc, "/rpc", false, "H>C",
		fixed([]byte(`{"jsonrpc":"2.0","id":1,"result":{}}`), []byte(`[{"jsonrpc":"2.0","method":"notifications/progress"},{}]`)),
		[]byte(`[{"jsonrpc":"2.0","id":1}]`)},
	{"keys newline", keysDoc, "/connection/websocket", false, "C>H",
		fixed([]byte("{\"id\":1,\"connect\":{}}\n{}")), []byte("{\"id\":1,\"bogus\":{}}")},
	{"nested keys", keysDoc, "/connection/websocket", false, "H>C",
		fixed([]byte("{\"push\":{\"channel\":\"news\",\"join\":{\"user\":\"u1\"}}}\n{\"push\":{\"channel\":\"news\",\"pub\":{}}}\n{\"push\":{}}")),
		[]byte(`{"id":1,"pull":{"join":{}}}`)},
	{"pointer number", keysDoc, "/gateway", false, "H>C",
		fixed([]byte(`{"op":10,"d":{}}`)), []byte(`{"op":true}`)},
	{"protobuf varint", protobufDoc, "/wire", true, "C>H", protobufSamples, []byte{0x80, 0x80}},
	{"driver u32be stream", driverDoc, "/opaque", true, "C>H",
		fixed([]byte{0, 0, 0, 2, 'h', 'i'}), []byte{0xff, 0xff, 0xff, 0xff}},
	{"driver newline", driverDoc, "/opaque", false, "C>H", fixed([]byte("a\nb\n")), []byte("\n \n")},
	{"little-endian length in a fixed header, stream", leDoc, "/wire", true, "C>H",
		fixed(lePacket(0, 3), concat(lePacket(1, 3, 0, 0, 1, 0), lePacket(2, 3, 'h', 'i'))),
		[]byte{2, 0, 0, 0, 0, 0, 0, 0}}, // version 2
	{"u16be batch of packed headers", packedDoc, "/packed", true, "C>H",
		fixed(u16beBatch(concat(packedPacket(1, true, 1<<40, 3, 0, 0, 0, 'x'), packedPacket(2, false, 2)), packedPacket(1, false, 3, 0, 0, 0, 0))),
		u16beBatch(make([]byte, 16))}, // no magic number
}

func protobufSamples() ([][]byte, error) {
	var out [][]byte
	for _, js := range []string{`{"id": 1, "connect": {"client": "c"}}`, `{"ping": {}}`, `{}`} {
		b, err := wireBytes("skewtest.wire.Command", js)
		if err != nil {
			return nil, err
		}
		out = append(out, binary.AppendUvarint(nil, uint64(len(b))), b)
	}
	return [][]byte{concat(out...)}, nil
}

// wireBytes encodes a message of testdata/proto/wire.proto from its JSON form.
func wireBytes(name, js string) ([]byte, error) {
	data, err := os.ReadFile(wireSet)
	if err != nil {
		return nil, err
	}
	var fds descriptorpb.FileDescriptorSet
	if err := proto.Unmarshal(data, &fds); err != nil {
		return nil, err
	}
	files, err := protodesc.NewFiles(&fds)
	if err != nil {
		return nil, err
	}
	d, err := files.FindDescriptorByName(protoreflect.FullName(name))
	if err != nil {
		return nil, err
	}
	m := dynamicpb.NewMessage(d.(protoreflect.MessageDescriptor))
	if err := protojson.Unmarshal([]byte(js), m); err != nil {
		return nil, err
	}
	return proto.MarshalOptions{Deterministic: true}.Marshal(m)
}

// channelOf parses a spec document (files relative to testdata) and returns its channel
// for path.
func channelOf(doc, path string) (*contract.Channel, error) {
	c, err := contract.Parse("testdata/spec.json", []byte(doc))
	if err != nil {
		return nil, err
	}
	ch := c.Channel(path)
	if ch == nil {
		return nil, fmt.Errorf("no channel for %s", path)
	}
	return ch, nil
}
