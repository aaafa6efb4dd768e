package main

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/driverkit"

	"github.com/skewtest/skewtest/examples/notesd/client"
	"github.com/skewtest/skewtest/examples/notesd/host"
	"github.com/skewtest/skewtest/examples/notesd/release"
	"github.com/skewtest/skewtest/examples/notesd/wsrpc"
)

// frameDecoder answers the decode action: it names a frame the way this build's receiving
// side reads it, with the product's own read path, and acts on nothing. A host reads C>H
// messages with host.ReadFromClient, a client H>C messages with client.ReadFromHost: jrpc2
// parses them and each request or notification goes through the very table and handlers
// (or notification handler) the running product uses, with this build's features. Its
// fields never change after it is made, so decode is pure and safe to call concurrently.
type frameDecoder struct {
	role, kind string
	features   release.Features
}

// part is one JSON-RPC message of a frame as the receiver read it.
type part struct {
	typ    string
	fields map[string]any
	err    error
}

func (fd frameDecoder) decode(f driverkit.Frame) driverkit.Decoded {
	name, dir := "host", "C>H"
	if fd.role != driverkit.Host {
		name, dir = fd.kind+" client", "H>C"
	}
	if f.Dir != dir {
		return refusedf("%s does not receive %s frames", name, f.Dir)
	}
	if path, _, _ := strings.Cut(f.Path, "?"); path != wsrpc.Path {
		return refusedf("no decoder for path %s", f.Path)
	}
	var (
		parts []part
		batch bool
		err   error
	)
	if fd.role == driverkit.Host {
		parts, batch, err = hostParts(host.ReadFromClient(fd.features, f.Binary, f.Data))
	} else {
		parts, batch, err = clientParts(client.ReadFromHost(fd.features, fd.kind, f.Binary, f.Data))
	}
	if err != nil {
		return refusedf("%v", err)
	}
	return decoded(parts, batch)
}

// hostParts are the requests a host read (host.Request): named by method, with their id and
// params as the method's handler takes them.
func hostParts(reqs []host.Request, batch bool, err error) ([]part, bool, error) {
	out := make([]part, len(reqs))
	for i, r := range reqs {
		out[i] = part{typ: r.Method, err: r.Err, fields: fields(r.ID)}
		if r.Params != nil {
			out[i].fields["params"] = r.Params
		}
	}
	return out, batch, err
}

// clientParts are the messages a client read (client.Message): a notification named by
// method, with its params as the client's handler takes them; a reply named by the key it
// carries, result or error (the contract's names), with that value.
func clientParts(msgs []client.Message, batch bool, err error) ([]part, bool, error) {
	out := make([]part, len(msgs))
	for i, m := range msgs {
		p := part{typ: m.Method, err: m.Err, fields: fields(m.ID)}
		switch {
		case m.Method != "":
			if m.Params != nil {
				p.fields["params"] = m.Params
			}
		case m.Error != nil:
			p.typ, p.fields["error"] = "error", m.Error
		case m.Result != nil:
			p.typ, p.fields["result"] = "result", m.Result
		}
		out[i] = p
	}
	return out, batch, err
}

// fields starts a message's fields with its id, when it has one.
func fields(id string) map[string]any {
	f := map[string]any{}
	if id != "" {
		f["id"] = json.RawMessage(id)
	}
	return f
}

// decoded is the answer for a frame's messages. One message is named by its type, with its
// fields; a batch by its messages' types (one name when they share it), with an array of
// their fields, each naming its type. A message the receiver refuses refuses the frame.
func decoded(parts []part, batch bool) driverkit.Decoded {
	if !batch {
		p := parts[0]
		if p.err != nil {
			return driverkit.Decoded{Type: p.typ, Refused: true, Reason: p.err.Error()}
		}
		return driverkit.Decoded{Type: p.typ, Fields: orNil(p.fields)}
	}
	types := make([]string, len(parts))
	items := make([]map[string]any, len(parts))
	for i, p := range parts {
		types[i] = p.typ
		items[i] = p.fields
		if p.typ != "" {
			items[i]["type"] = p.typ
		}
	}
	typ := types[0]
	for _, t := range types[1:] {
		if t != typ {
			typ = strings.Join(types, ",")
			break
		}
	}
	for i, p := range parts {
		if p.err == nil {
			continue
		}
		what := p.typ
		if what == "" {
			what = "unnamed"
		}
		return driverkit.Decoded{Type: typ, Refused: true,
			Reason: fmt.Sprintf("message %d of %d in the batch (%s): %v", i+1, len(parts), what, p.err)}
	}
	return driverkit.Decoded{Type: typ, Fields: items}
}

func orNil(m map[string]any) any {
	if len(m) == 0 {
		return nil
	}
	return m
}

func refusedf(format string, args ...any) driverkit.Decoded {
	return driverkit.Decoded{Refused: true, Reason: fmt.Sprintf(format, args...)}
}
