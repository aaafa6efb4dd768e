package harness

import (
	"errors"
	"fmt"
	"strings"

	"github.com/skewtest/skewtest/internal/build/builds"
	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// transport is how b's host serves: its skewtest.yaml's channels, WebSocket by default.
func (b *Build) transport() builds.Transport {
	if b.Transport.Scheme == "" {
		return builds.Transport{Scheme: "ws"}
	}
	return b.Transport
}

// checkHostURL checks that the URL b's host reported speaks the transport its skewtest.yaml
// declares.
func (b *Build) checkHostURL(name, url string) error {
	tr := b.transport()
	scheme, rest, ok := strings.Cut(url, "://")
	if ok && scheme == tr.Scheme && rest != "" {
		return nil
	}
	if tr.Scheme == "ws" {
		if ok && (scheme == "wss" || scheme == "tcp" || scheme == "tls") {
			return fmt.Errorf("%s driver reported ready with %q, but no channel of its %s has the %s transport: declare it (channels: NAME: {transport: %s}, docs/subject.md)",
				name, url, builds.ConfigFile, scheme, scheme)
		}
		return fmt.Errorf("%s driver reported ready without a ws:// url (got %q)", name, url)
	}
	return fmt.Errorf("%s driver reported ready with %q, but its %s gives channel %s the %s transport: want %s://127.0.0.1:PORT",
		name, url, builds.ConfigFile, tr.Channel, tr.Scheme, tr.Scheme)
}

// tapOptions are the options of the wire tap in front of the pairing's host: how a byte
// stream is cut and filed, and the run's CA for TLS.
func tapOptions(p Pairing) ([]tap.Option, error) {
	b := p.Host
	tr := b.transport()
	var opts []tap.Option
	if tr.Stream() {
		ch := b.Contract.ChannelNamed(tr.Channel)
		if ch == nil {
			return nil, fmt.Errorf("%s: its %s gives channel %q the %s transport, but its contract has no channel of that name",
				b.Label, builds.ConfigFile, tr.Channel, tr.Scheme)
		}
		s := tap.Stream{Framing: tr.Framing, Length: tr.Length, Path: "/", Text: ch.Text != nil && ch.Binary == nil}
		if len(ch.Paths) > 0 {
			s.Path = ch.Paths[0]
		}
		if tr.Framing == tap.FramingPackets {
			if _, err := ch.PacketEnd(!s.Text, nil); errors.Is(err, contract.ErrNoPacketEnd) {
				return nil, fmt.Errorf("%s: its %s cuts channel %s into packets (framing: packets), but its contract's codec for the channel cannot: %v",
					b.Label, builds.ConfigFile, tr.Channel, err)
			}
			s.PacketEnd = packetEnds(p, tr.Channel, ch, !s.Text)
		}
		opts = append(opts, tap.WithStream(s))
	}
	if tr.TLS() {
		ca, err := b.CA.get()
		if err != nil {
			return nil, err
		}
		opts = append(opts, tap.WithTLS(ca))
	}
	return opts, nil
}

// packetEnds cuts each direction where its sender's contract says a packet ends: the host's
// for H>C, the client's for C>H (the host's when the client's has no such stream codec).
func packetEnds(p Pairing, name string, host *contract.Channel, binary bool) func(tap.Direction, []byte) (int, error) {
	client := host
	if p.Client != nil && p.Client.Contract != nil {
		if ch := p.Client.Contract.ChannelNamed(name); ch != nil {
			if _, err := ch.PacketEnd(binary, nil); !errors.Is(err, contract.ErrNoPacketEnd) {
				client = ch
			}
		}
	}
	return func(dir tap.Direction, buf []byte) (int, error) {
		if dir == tap.HostToClient {
			return host.PacketEnd(binary, buf)
		}
		return client.PacketEnd(binary, buf)
	}
}
