package driverkit

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"runtime/debug"
)

// Frame is one frame, as the wire tap recorded it, that skewtest asks the receiving
// build's decoder to name (the decode action).
type Frame struct {
	ID     int64  `json:"id"`     // skewtest's id for the frame, echoed in the answer
	Dir    string `json:"dir"`    // "H>C" or "C>H"
	Path   string `json:"path"`   // the connection's path, e.g. "/terminal.multiplex"
	Binary bool   `json:"binary"` // a binary message; false for text
	Data   []byte `json:"data"`   // the message's bytes (base64 in JSON)
}

// Decoded is what a build's decoder made of one Frame: either the frame's name (Type, and
// Opcode for a binary frame with one) with its decoded Fields, or Refused with the
// decoder's Reason.
type Decoded struct {
	Type    string // the frame's name or JSON type, e.g. "OutputSpan", "publish"
	Opcode  int    // the frame's opcode; 0 when the framing has none
	Fields  any    // the decoded payload, as the receiver sees it; encoded as JSON
	Refused bool   // the decoder refused or would drop the frame
	Reason  string // why it refused, in the decoder's words
}

// decodedFrame is one element of the decode result.
type decodedFrame struct {
	ID      int64  `json:"id"`
	Type    string `json:"type,omitempty"`
	Opcode  *int   `json:"opcode,omitempty"`
	Fields  any    `json:"fields,omitempty"`
	Refused bool   `json:"refused,omitempty"`
	Reason  string `json:"reason,omitempty"`
}

// Decode registers the decode action: decode is called once per frame skewtest sends,
// and must be pure (it runs beside other actions, and concurrently with itself). It
// should use the build's real decoder exactly as the receiving side does. A decode that
// panics on a frame answers that frame refused, with the panic as the reason.
//
// Registering twice, a nil decode, or Decode after Run, panics.
func (d *Driver) Decode(decode func(Frame) Decoded) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch {
	case d.running:
		panic("driverkit: Decode after Run")
	case decode == nil:
		panic("driverkit: Decode needs a function")
	case d.decoder != nil:
		panic("driverkit: Decode registered twice")
	}
	d.decoder = decode
}

// decodeHandler answers {"frames":[Frame…]} with {"frames":[decodedFrame…]}, in order.
func (d *Driver) decodeHandler(ctx context.Context, raw json.RawMessage) (any, error) {
	args, err := Args[struct {
		Frames []Frame `json:"frames"`
	}](raw)
	if err != nil {
		return nil, err
	}
	if args.Frames == nil {
		return nil, BadArgs("decode needs frames")
	}
	out := make([]decodedFrame, len(args.Frames))
	for i, f := range args.Frames {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out[i] = decodeOne(d.decoder, f)
	}
	return map[string]any{"frames": out}, nil
}

func decodeOne(decode func(Frame) Decoded, f Frame) (out decodedFrame) {
	defer func() {
		if p := recover(); p != nil {
			log.Printf("driverkit: decode of frame %d panicked: %v\n%s", f.ID, p, debug.Stack())
			out = decodedFrame{ID: f.ID, Refused: true, Reason: fmt.Sprintf("decoder panicked: %v", p)}
		}
	}()
	r := decode(f)
	out = decodedFrame{ID: f.ID, Type: r.Type, Fields: r.Fields, Refused: r.Refused, Reason: r.Reason}
	if !r.Refused || r.Opcode != 0 {
		op := r.Opcode
		out.Opcode = &op
	}
	return out
}
