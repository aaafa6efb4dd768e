package contract

import "fmt"

// Contract version 1, as files still carry it. Parse reads it and converts it into the
// version 2 model with exactly the meaning it had.

type v1Contract struct {
	ContractVersion int         `json:"contractVersion"`
	Product         string      `json:"product"`
	Version         string      `json:"version"`
	Protocol        Protocol    `json:"protocol"`
	Channels        []v1Channel `json:"channels"`
}

type v1Channel struct {
	Name         string       `json:"name"`
	Paths        []string     `json:"paths"`
	Binary       *v1Header    `json:"binary"`
	JSON         *v1JSON      `json:"json"`
	Capabilities []Capability `json:"capabilities"`
	Frames       []v1Frame    `json:"frames"`
	Features     []Feature    `json:"features"`
	Commands     []Command    `json:"commands"`
}

// v1Header is version 1's fixed binary header: magic bytes, a u8 opcode, a u32 LE stream id
// and a seq as high and low u32 LE words.
type v1Header struct {
	HeaderLength int       `json:"headerLength"`
	Magic        []v1Magic `json:"magic"`
	OpcodeOffset int       `json:"opcodeOffset"`
	StreamOffset int       `json:"streamOffset"`
	SeqOffset    int       `json:"seqOffset"`
}

type v1Magic struct {
	Offset int  `json:"offset"`
	Value  byte `json:"value"`
}

type v1JSON struct {
	Discriminator string `json:"discriminator"`
}

type v1Frame struct {
	Opcode    int                `json:"opcode"`
	Type      string             `json:"type"`
	Name      string             `json:"name"`
	Direction string             `json:"direction"`
	Payload   string             `json:"payload"`
	Fields    map[string]v1Field `json:"fields"`
	Kinds     []string           `json:"kinds"`
	Gates     map[string]string  `json:"gates"`
}

type v1Field struct {
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Enum     []string `json:"enum"`
}

// parseV1 reads and validates a version 1 document and converts it.
func parseV1(root *node) (*Contract, []error) {
	var f v1Contract
	if err := decodeStrict(root, "", &f); err != nil {
		return nil, []error{err}
	}
	if problems := f.validate(); len(problems) > 0 {
		return nil, problems
	}
	c := &Contract{ContractVersion: 1, Product: f.Product, Version: f.Version, Protocol: f.Protocol}
	for _, ch := range f.Channels {
		c.Channels = append(c.Channels, ch.convert())
	}
	return c, nil
}

func (f *v1Contract) validate() []error {
	var out []error
	// Keys version 2 added to objects the two versions share.
	if f.Protocol.Omitted != 0 {
		out = append(out, bad("/protocol/omitted", `omitted is a key of contract version 2: set "contractVersion": 2 to use it`))
	}
	if f.Protocol.Kinds != nil {
		out = append(out, bad("/protocol/kinds", `kinds is a key of contract version 2: set "contractVersion": 2 to use it`))
	}
	for i, ch := range f.Channels {
		p := child("/channels", i)
		if ch.Name == "" || len(ch.Paths) == 0 {
			out = append(out, bad(p, "a channel needs a name and at least one path"))
		}
		for j, c := range ch.Commands {
			if c.Migration != nil {
				out = append(out, bad(child(p+"/commands", j)+"/migration", `migration is a key of contract version 2: set "contractVersion": 2 to use it`))
			}
		}
		if h := ch.Binary; h != nil {
			for _, off := range []int{h.HeaderLength, h.OpcodeOffset, h.StreamOffset, h.SeqOffset} {
				if off < 0 {
					out = append(out, bad(p+"/binary", "offsets and lengths cannot be negative"))
					break
				}
			}
			for j, m := range h.Magic {
				if m.Offset < 0 {
					out = append(out, bad(child(p+"/binary/magic", j)+"/offset", "an offset cannot be negative"))
				}
			}
		}
		if ch.JSON != nil && ch.JSON.Discriminator == "" {
			out = append(out, bad(p+"/json/discriminator", "the discriminator is empty: name the key that holds a frame's type"))
		}
		for j, fr := range ch.Frames {
			fp := child(p+"/frames", j)
			if fr.Name == "" || (fr.Opcode == 0 && fr.Type == "") {
				out = append(out, bad(fp, "a frame needs a name and an opcode or a type"))
			}
			if fr.Direction != HostToClient && fr.Direction != ClientToHost {
				out = append(out, bad(fp+"/direction", "direction %q is not H>C or C>H", fr.Direction))
			}
			switch fr.Payload {
			case "", PayloadText, PayloadJSON, PayloadEmpty:
			default:
				out = append(out, bad(fp+"/payload", "payload %q is not text, json or empty", fr.Payload))
			}
			for name, fd := range fr.Fields {
				switch fd.Type {
				case "", TypeString, TypeNumber, TypeBoolean, TypeObject, TypeArray:
				default:
					out = append(out, bad(child(fp+"/fields", name)+"/type", "type %q is not string, number, boolean, object or array", fd.Type))
				}
			}
		}
	}
	return out
}

// convert turns a version 1 channel into the model: the fixed header becomes a header codec
// for binary messages, the discriminator a JSON codec for text messages.
func (ch v1Channel) convert() Channel {
	out := Channel{Name: ch.Name, Paths: ch.Paths, Capabilities: ch.Capabilities, Features: ch.Features, Commands: ch.Commands}
	if h := ch.Binary; h != nil {
		hd := &Header{Length: h.HeaderLength}
		for _, m := range h.Magic {
			v := uint64(m.Value)
			hd.Fields = append(hd.Fields, HeaderField{Name: fmt.Sprintf("magic%d", m.Offset), Offset: ptrTo(m.Offset), Encoding: U8, Value: &v})
		}
		hd.Fields = append(hd.Fields,
			HeaderField{Name: FieldType, Offset: ptrTo(h.OpcodeOffset), Encoding: U8},
			HeaderField{Name: FieldStream, Offset: ptrTo(h.StreamOffset), Encoding: U32LE},
			HeaderField{Name: FieldSeq, Offset: ptrTo(h.SeqOffset), Encoding: U32LEHiLo})
		out.Binary = &Codec{Header: hd}
	}
	if ch.JSON != nil {
		out.Text = &Codec{JSON: &Naming{Discriminator: ch.JSON.Discriminator}}
	}
	for _, f := range ch.Frames {
		fr := Frame{Opcode: f.Opcode, Type: f.Type, Name: f.Name, Direction: f.Direction, Payload: f.Payload, Kinds: f.Kinds, Gates: f.Gates}
		if f.Opcode != 0 {
			fr.Type = "" // version 1 looked a frame with an opcode up by opcode only
		}
		if f.Fields != nil {
			fr.Fields = map[string]Field{}
			for name, fd := range f.Fields {
				nf := Field{Type: fd.Type, Required: fd.Required}
				for _, e := range fd.Enum {
					nf.Enum = append(nf.Enum, e)
				}
				fr.Fields[name] = nf
			}
		}
		out.Frames = append(out.Frames, fr)
	}
	// Version 1 had no way to say where a product reports what it negotiated: the reference
	// subject's echo locations were built into skewtest then. The core knows no product now,
	// so a version 1 file declares no negotiation; version 2 says it (negotiation).
	return out
}

func ptrTo[T any](v T) *T { return &v }
