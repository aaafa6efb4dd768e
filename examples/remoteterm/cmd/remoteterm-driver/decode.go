package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/remoteterm/mobile"
	"github.com/skewtest/skewtest/examples/remoteterm/release"
	"github.com/skewtest/skewtest/examples/remoteterm/session"
	"github.com/skewtest/skewtest/examples/remoteterm/wire"
)

// frameDecoder answers the decode action: it names a frame the way this build's receiving
// side reads it, with the product's own decoders, and acts on nothing. A client reads H>C
// frames, a host C>H frames: on the terminal paths with the wire decoder of the build's
// table (the mobile client with its vendored one), on /session as the session client or the
// daemon does. Its fields never change after newFrameDecoder, so decode is pure and safe to
// call concurrently.
type frameDecoder struct {
	role, kind string
	features   release.Features
	// wire is the host's and the desktop client's decoder: the table they are built with
	// (driver.decoder, REMOTETERM_DECODER_WITHOUT applied).
	wire *wire.Decoder
}

func newFrameDecoder(d *driver) frameDecoder {
	return frameDecoder{role: d.role, kind: d.kind, features: d.features, wire: wire.NewDecoder(d.decoder)}
}

// receiver names the receiving side in refusals.
func (fd frameDecoder) receiver() (name string, dir wire.Direction) {
	if fd.role == driverkit.Host {
		return "host", wire.ClientToHost
	}
	return fd.kind + " client", wire.HostToClient
}

func (fd frameDecoder) decode(f driverkit.Frame) driverkit.Decoded {
	name, dir := fd.receiver()
	if f.Dir != string(dir) {
		return refusedf("%s does not receive %s frames", name, f.Dir)
	}
	path, _, _ := strings.Cut(f.Path, "?")
	terminal := path == wire.PathMultiplex || path == wire.PathSubscribe
	switch {
	case path == sessionPath && fd.role == driverkit.Host:
		fr, err := session.ReadFromClient(fd.features, f.Binary, f.Data)
		return sessionDecoded(fr, err, f.Data)
	case path == sessionPath && fd.kind == "session":
		fr, err := session.ReadFromHost(fd.features, f.Binary, f.Data)
		return sessionDecoded(fr, err, f.Data)
	case terminal && fd.role == driverkit.Host:
		return fd.host(f)
	case terminal && fd.kind == "desktop":
		return fd.desktop(f)
	case terminal && fd.kind == "mobile":
		return mobileDecoded(f)
	}
	return refusedf("no decoder for path %s", f.Path)
}

// host reads a client's message as the host's connection does (host/conn.go, handle).
func (fd frameDecoder) host(f driverkit.Frame) driverkit.Decoded {
	if !f.Binary {
		return refusedf("ignoring a text message from the client")
	}
	fr, err := fd.wire.Decode(f.Data)
	if err != nil {
		return wireRefused(err)
	}
	switch fr.Opcode {
	case wire.OpInput:
		return named(fr, textFields(fr.Payload))
	case wire.OpUnsubscribe:
		return named(fr, nil)
	case wire.OpSubscribe:
		return jsonPayload[wire.Subscribe](fr)
	case wire.OpResize, wire.OpClaimViewport:
		return jsonPayload[wire.Viewport](fr)
	case wire.OpSnapshotRequest:
		if len(fr.Payload) == 0 {
			return named(fr, nil) // a resync asks with no payload
		}
		return jsonPayload[wire.SnapshotRequest](fr)
	case wire.OpAck:
		return jsonPayload[wire.Ack](fr)
	case wire.OpSetOutputPaused:
		return jsonPayload[wire.SetOutputPaused](fr)
	}
	if fr.Opcode.Direction() == wire.HostToClient {
		return refusedAt(fr, "opcode %d (%v) travels host to client; a host does not accept it", uint8(fr.Opcode), fr.Opcode)
	}
	return refusedAt(fr, "ignoring %v %v from the client", fr.Opcode.Direction(), fr.Opcode)
}

// desktop reads a host's message as the desktop client does (desktop/receive.go).
func (fd frameDecoder) desktop(f driverkit.Frame) driverkit.Decoded {
	if !f.Binary {
		return desktopEvent(f.Data)
	}
	fr, err := fd.wire.Decode(f.Data)
	if err != nil {
		return wireRefused(err)
	}
	switch fr.Opcode {
	case wire.OpOutput, wire.OpSnapshotChunk, wire.OpError:
		return named(fr, textFields(fr.Payload))
	case wire.OpSnapshotEnd, wire.OpWriteUnavailable, wire.OpMetadata:
		return named(fr, nil) // the desktop reads nothing of Metadata's payload
	case wire.OpSnapshotStart:
		return jsonPayload[wire.SnapshotStart](fr)
	case wire.OpOutputSpan:
		return jsonPayload[wire.OutputSpan](fr)
	case wire.OpResized:
		return jsonPayload[wire.Resized](fr)
	case wire.OpTitle:
		return jsonPayload[wire.Title](fr)
	}
	return refusedAt(fr, "ignoring %v %v from the host", fr.Opcode.Direction(), fr.Opcode)
}

// desktopEvent reads a host's text message as the desktop client does (receiveEvent).
func desktopEvent(b []byte) driverkit.Decoded {
	ev, err := wire.DecodeEvent(b)
	if err != nil {
		return refusedf("%v", err)
	}
	read := func(v any, strict bool) driverkit.Decoded {
		if err := ev.Decode(v); err != nil && strict {
			return driverkit.Decoded{Type: ev.Type, Refused: true, Reason: err.Error()}
		}
		return driverkit.Decoded{Type: ev.Type, Fields: eventFields(v, ev.Raw)}
	}
	switch ev.Type {
	case wire.EventReady:
		return driverkit.Decoded{Type: ev.Type}
	case wire.EventSubscribed:
		return read(&wire.Subscribed{}, true)
	case wire.EventError:
		return read(&wire.ErrorEvent{}, false) // read as far as it decodes
	case wire.EventEnd:
		return read(&wire.End{}, false)
	}
	return driverkit.Decoded{Type: ev.Type, Refused: true, Reason: fmt.Sprintf("ignoring %s event", ev.Type)}
}

// mobileDecoded reads a host's message as the mobile client does (mobile.Read).
func mobileDecoded(f driverkit.Frame) driverkit.Decoded {
	m, err := mobile.Read(f.Binary, f.Data)
	d := driverkit.Decoded{Type: m.Event, Opcode: int(m.Opcode)}
	if m.Known {
		d.Type = wire.Opcode(m.Opcode).String()
	}
	switch {
	case err != nil:
		d.Refused, d.Reason = true, err.Error()
	case m.Value != nil && f.Binary:
		d.Fields = readFields(m.Value, m.Payload)
	case m.Value != nil:
		d.Fields = eventFields(m.Value, f.Data)
	case f.Binary:
		d.Fields = textFields(m.Payload)
	}
	return d
}

// sessionDecoded is the answer for a session frame read (or refused) by session.ReadFrom….
func sessionDecoded(fr session.Frame, err error, raw []byte) driverkit.Decoded {
	if err != nil {
		d := driverkit.Decoded{Refused: true, Reason: err.Error()}
		var r *session.RefusalError
		if errors.As(err, &r) {
			d.Type = string(r.Type)
		}
		return d
	}
	return driverkit.Decoded{Type: string(fr.FrameType()), Fields: readFields(fr, raw)}
}

// named is a decoded binary frame.
func named(fr wire.Frame, fields any) driverkit.Decoded {
	return driverkit.Decoded{Type: fr.Opcode.String(), Opcode: int(fr.Opcode), Fields: fields}
}

// jsonPayload reads fr's JSON payload into the receiver's type T with wire.DecodeJSON, as the
// receiver does; a payload that does not decode is refused (the receiver drops the frame).
func jsonPayload[T any](fr wire.Frame) driverkit.Decoded {
	var v T
	if err := wire.DecodeJSON(fr, &v); err != nil {
		return driverkit.Decoded{Type: fr.Opcode.String(), Opcode: int(fr.Opcode), Refused: true, Reason: err.Error()}
	}
	return named(fr, readFields(&v, fr.Payload))
}

// wireRefused is a frame the wire decoder refused: the reason in the words the receiver's
// refused observation uses, and the opcode when the frame has one.
func wireRefused(err error) driverkit.Decoded {
	d := driverkit.Decoded{Refused: true, Reason: err.Error()}
	var de *wire.DecodeError
	if errors.As(err, &de) {
		d.Reason = de.Err.Error()
		if de.HasOpcode {
			d.Opcode = int(de.Opcode)
		}
	}
	return d
}

func refusedf(format string, args ...any) driverkit.Decoded {
	return driverkit.Decoded{Refused: true, Reason: fmt.Sprintf(format, args...)}
}

// refusedAt refuses a frame the decoder named but the receiver drops.
func refusedAt(fr wire.Frame, format string, args ...any) driverkit.Decoded {
	d := refusedf(format, args...)
	d.Type, d.Opcode = fr.Opcode.String(), int(fr.Opcode)
	return d
}

// textFields is a text payload: {"text": …}, or {"bytes": base64} when it is not UTF-8;
// nil when empty.
func textFields(p []byte) any {
	switch {
	case len(p) == 0:
		return nil
	case utf8.Valid(p):
		return map[string]string{"text": string(p)}
	}
	return map[string][]byte{"bytes": p}
}

// eventFields is readFields for a text message whose type names it: without "type".
func eventFields(v any, raw []byte) any {
	fields := readObject(v, raw)
	delete(fields, "type")
	if len(fields) == 0 {
		return nil
	}
	return fields
}

// readFields is what a receiver read from the JSON object raw (readObject); nil when that
// is nothing.
func readFields(v any, raw []byte) any {
	if fields := readObject(v, raw); len(fields) > 0 {
		return fields
	}
	return nil
}

// readObject is what a receiver read from the JSON object raw: v, raw as the receiver's own
// type decoded it, re-encoded, keeping only the keys raw carries, at every depth. A key the
// type does not define is gone (the receiver ignores it) and a key raw lacks is not made up
// from a zero value. Nil when raw is not a JSON object.
func readObject(v any, raw []byte) map[string]json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	read, ok := object(b)
	if !ok {
		return nil
	}
	sent, ok := object(raw)
	if !ok {
		return nil
	}
	keep(read, sent)
	return read
}

// keep removes from read the keys sent lacks, and does the same in every object both hold.
func keep(read, sent map[string]json.RawMessage) {
	for k, r := range read {
		s, ok := sent[k]
		if !ok {
			delete(read, k)
			continue
		}
		ro, rok := object(r)
		so, sok := object(s)
		if !rok || !sok {
			continue
		}
		keep(ro, so)
		if b, err := json.Marshal(ro); err == nil {
			read[k] = b
		}
	}
}

// object splits a JSON object into its keys; ok is false for any other JSON.
func object(b []byte) (map[string]json.RawMessage, bool) {
	b = bytes.TrimSpace(b)
	if len(b) == 0 || b[0] != '{' {
		return nil, false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(b, &m) != nil {
		return nil, false
	}
	return m, true
}
