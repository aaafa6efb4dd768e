package session

import (
	"encoding/json"
	"sync"
)

// Direction says who sends a frame, in the wire contract's notation.
type Direction string

// The two directions of a session connection.
const (
	HostToClient Direction = "H>C"
	ClientToHost Direction = "C>H"
)

// FrameSpec is one row of the session vocabulary: a frame type, who sends it, the feature
// that gates it and the schema of its keys (besides "type").
type FrameSpec struct {
	Type      Type
	Direction Direction
	// Feature is the serverInfo.features key that gates the frame; empty when every
	// session peer speaks it.
	Feature string
	Fields  Schema

	decode func([]byte) (Frame, error)
}

// Vocabulary is the session frame union, in a fixed order. It is the single source the
// codec, both peers and the wire contract's session channel agree with. Each call returns
// a fresh table the caller may change.
func Vocabulary() []FrameSpec { return vocabulary() }

func vocabulary() []FrameSpec {
	str := Field{Type: KindString, Required: true}
	num := Field{Type: KindNumber, Required: true}
	obj := Field{Type: KindObject, Required: true}
	versions := Field{Type: KindObject, Required: true}
	return []FrameSpec{
		{Type: TypeHello, Direction: ClientToHost, decode: decodeAs[Hello], Fields: Schema{
			"clientId":                     str,
			"clientType":                   str,
			"protocolVersion":              num,
			"minCompatibleProtocolVersion": num,
			"commands":                     {Type: KindObject},
		}},
		{Type: TypeServerInfo, Direction: HostToClient, decode: decodeAs[ServerInfo], Fields: Schema{
			"appVersion":                   str,
			"protocolVersion":              num,
			"minCompatibleProtocolVersion": num,
			"features":                     obj,
			"commands":                     versions,
		}},
		{Type: TypeRequest, Direction: ClientToHost, decode: decodeAs[Request], Fields: Schema{
			"requestId": str,
			"command":   str,
			"version":   {Type: KindNumber},
			"input":     obj,
		}},
		{Type: TypeResponse, Direction: HostToClient, decode: decodeAs[Response], Fields: Schema{
			"requestId": str,
			"output":    obj,
		}},
		{Type: TypeRPCError, Direction: HostToClient, decode: decodeAs[RPCErrorFrame], Fields: Schema{
			"requestId": str,
			"code":      str, // open: known codes plus other strings, so no enum
			"message":   str,
			"details":   {Type: KindObject},
		}},
		{Type: TypeServerRequest, Direction: HostToClient, Feature: FeatureServerRequests, decode: decodeAs[ServerRequest], Fields: Schema{
			"serverRequestId": str,
			"kind":            str,
			"payload":         obj,
		}},
		{Type: TypeServerResponse, Direction: ClientToHost, Feature: FeatureServerRequests, decode: decodeAs[ServerResponse], Fields: Schema{
			"serverRequestId": str,
			"payload":         obj,
		}},
		{Type: TypeServerRequestResolved, Direction: HostToClient, Feature: FeatureServerRequests, decode: decodeAs[ServerRequestResolved], Fields: Schema{
			"serverRequestId": str,
		}},
		{Type: TypePresence, Direction: ClientToHost, Feature: FeatureAttention, decode: decodeAs[Presence], Fields: Schema{
			"focus":         {Type: KindBoolean, Required: true},
			"visibility":    {Type: KindString, Required: true, Enum: []string{"visible", "hidden"}},
			"deviceClass":   str,
			"focusedReview": {Type: KindString},
		}},
		{Type: TypeAttentionEvent, Direction: HostToClient, Feature: FeatureAttention, decode: decodeAs[AttentionEvent], Fields: Schema{
			"raised":  {Type: KindObject},
			"cleared": {Type: KindArray},
		}},
		{Type: TypeRoundProgress, Direction: HostToClient, decode: decodeAs[RoundProgress], Fields: Schema{
			"reviewId": str,
			"event":    obj,
			"seq":      {Type: KindNumber},
		}},
	}
}

// frameTable is the vocabulary by frame type, built on first use and never changed: the
// vocabulary is the same for every release, and the codec and both peers look a row up
// for every frame they read, which must not rebuild the table each time.
var frameTable = sync.OnceValue(func() map[Type]FrameSpec {
	vocab := vocabulary()
	table := make(map[Type]FrameSpec, len(vocab))
	for _, spec := range vocab {
		table[spec.Type] = spec
	}
	return table
})

// lookupFrame finds a frame type's row in the vocabulary. The row's Fields are shared:
// read them, never change them.
func lookupFrame(t Type) (FrameSpec, bool) {
	spec, ok := frameTable()[t]
	return spec, ok
}

func decodeAs[F Frame](b []byte) (Frame, error) {
	var f F
	if err := json.Unmarshal(b, &f); err != nil {
		return nil, err
	}
	return f, nil
}
