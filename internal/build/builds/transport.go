package builds

import (
	"cmp"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/skewtest/skewtest/driverkit"
	"github.com/skewtest/skewtest/internal/declare/framing"
)

// Transports a channel may declare (ChannelConfig.Transport): the scheme of the URL the
// host reports in ready.
var Transports = []string{driverkit.TransportWS, driverkit.TransportWSS, driverkit.TransportTCP, driverkit.TransportTLS}

// ChannelConfig is how a build's host carries one channel of its contract.
type ChannelConfig struct {
	// Transport is ws (WebSocket, the default), wss (WebSocket over TLS), tcp (a byte stream)
	// or tls (a byte stream over TLS).
	Transport string `yaml:"transport"`
	// Framing is, for tcp and tls, how the stream is cut into messages: raw (the default:
	// as the bytes arrive, for a contract whose codec reassembles a stream), lines, u16be,
	// u32be, u16le, u32le, varint, or packets (where the contract's stream codec says each
	// ends).
	Framing string `yaml:"framing"`
	// LengthOffset, HeaderLength and LengthIncludesHeader put a fixed-width framing's length
	// inside a fixed header (framing.Length): the byte it starts at, the header's size (the
	// length included; default: it ends with the length), and whether the length counts the
	// header. Such a message is recorded whole, header and all.
	LengthOffset         int  `yaml:"lengthOffset"`
	HeaderLength         int  `yaml:"headerLength"`
	LengthIncludesHeader bool `yaml:"lengthIncludesHeader"`
}

// Length is where the channel's framing finds each message's length.
func (cc ChannelConfig) Length() framing.Length {
	return framing.Length{Offset: cc.LengthOffset, Header: cc.HeaderLength, IncludesHeader: cc.LengthIncludesHeader}
}

// Transport is how a build's host serves: the one URL it reports speaks one transport.
type Transport struct {
	Scheme  string // ws, wss, tcp or tls
	Channel string // for tcp and tls: the channel the stream carries
	Framing string // for tcp and tls
	// Length is, for a fixed-width length framing, where the length sits in a header
	// (the zero value: a bare prefix).
	Length framing.Length
}

// String is how reports name the transport: "ws", "wss", "tcp (channel rpc, lines framing)".
func (t Transport) String() string {
	if !t.Stream() {
		return t.Scheme
	}
	if l := t.Length.String(t.Framing); l != "" {
		return fmt.Sprintf("%s (channel %s, %s framing, %s)", t.Scheme, t.Channel, t.Framing, l)
	}
	return fmt.Sprintf("%s (channel %s, %s framing)", t.Scheme, t.Channel, t.Framing)
}

// Stream reports whether the transport is a byte stream (tcp or tls).
func (t Transport) Stream() bool { return t.Scheme == "tcp" || t.Scheme == "tls" }

// TLS reports whether the transport runs over TLS (wss or tls).
func (t Transport) TLS() bool { return t.Scheme == "wss" || t.Scheme == "tls" }

// Transport is how the build's host serves, by its channels: WebSocket when none says
// otherwise.
func (c *Config) Transport() Transport {
	if c == nil {
		return Transport{Scheme: "ws"}
	}
	for _, name := range slices.Sorted(maps.Keys(c.Channels)) {
		ch := c.Channels[name]
		if ch.Transport == "" || ch.Transport == "ws" {
			continue
		}
		t := Transport{Scheme: ch.Transport}
		if t.Stream() {
			t.Channel, t.Framing, t.Length = name, ch.Framing, ch.Length()
			if t.Framing == "" {
				t.Framing = framing.Raw
			}
		}
		return t
	}
	return Transport{Scheme: "ws"}
}

// validateChannels checks the channels section: known transports and framings, and one
// transport for the host's one URL.
func (c *Config) validateChannels(name string, doc *yaml.Node) []error {
	var errs []error
	add := func(line int, format string, args ...any) {
		errs = append(errs, &ConfigError{File: name, Line: line, Msg: fmt.Sprintf(format, args...)})
	}
	byTransport := map[string][]string{}
	for _, ch := range slices.Sorted(maps.Keys(c.Channels)) {
		cc := c.Channels[ch]
		tr := cc.Transport
		if tr == "" {
			tr = "ws"
		}
		switch {
		case !slices.Contains(Transports, tr):
			add(lineOf(doc, "channels", ch, "transport"), "channels.%s.transport %q: want %s", ch, cc.Transport, strings.Join(Transports, ", "))
			continue
		case cc.Framing != "" && tr != "tcp" && tr != "tls":
			add(lineOf(doc, "channels", ch, "framing"), "channels.%s.framing: only a tcp or tls channel is cut by a framing; a WebSocket message is one message", ch)
		case cc.Framing != "" && !slices.Contains(framing.Names, cc.Framing):
			add(lineOf(doc, "channels", ch, "framing"), "channels.%s.framing %q: want %s", ch, cc.Framing, strings.Join(framing.Names, ", "))
		}
		var le *framing.LengthError
		if err := cc.Length().Check(cmp.Or(cc.Framing, framing.Raw)); errors.As(err, &le) {
			key := map[string]string{"Offset": "lengthOffset", "Header": "headerLength", "IncludesHeader": "lengthIncludesHeader"}[le.Field]
			add(lineOf(doc, "channels", ch, key), "channels.%s.%s: %v", ch, key, err)
		}
		byTransport[tr] = append(byTransport[tr], ch)
	}
	if len(byTransport) > 1 {
		var parts []string
		for _, tr := range Transports {
			if chs := byTransport[tr]; len(chs) > 0 {
				parts = append(parts, fmt.Sprintf("%s (%s)", strings.Join(chs, ", "), tr))
			}
		}
		add(lineOf(doc, "channels"), "channels: the host reports one URL, so its channels share one transport; these differ: %s", strings.Join(parts, "; "))
	} else {
		for _, tr := range []string{"tcp", "tls"} {
			if chs := byTransport[tr]; len(chs) > 1 {
				add(lineOf(doc, "channels"), "channels: %s over %s: a byte stream carries one channel (the host reports one URL)", strings.Join(chs, " and "), tr)
			}
		}
	}
	return errs
}
