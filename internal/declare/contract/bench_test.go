package contract_test

import (
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/skewtest/skewtest/internal/declare/contract"
)

func BenchmarkParse(b *testing.B) {
	for _, fr := range framings[:4] {
		b.Run(fr.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := contract.Parse("testdata/spec.json", []byte(fr.doc)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseProtoFiles is the protobuf worked example with its messages compiled from
// wire.proto (files) against the same example reading the descriptor set.
func BenchmarkParseProtoFiles(b *testing.B) {
	src, err := os.ReadFile("testdata/proto/wire.proto")
	if err != nil {
		b.Fatal(err)
	}
	tree := contract.ProtoSources{Tree: fstest.MapFS{"proto/wire.proto": {Data: src}}}
	doc := []byte(strings.Replace(protobufDoc, `"descriptorSet": "proto/wire.binpb"`, `"files": ["proto/wire.proto"], "importPaths": ["proto"]`, 1))
	b.Run("files", func(b *testing.B) {
		for b.Loop() {
			if _, err := contract.Parse("skewtest-contract.json", doc, contract.WithSources(tree)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("descriptorSet", func(b *testing.B) {
		for b.Loop() {
			if _, err := contract.Parse("testdata/spec.json", []byte(protobufDoc)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

func BenchmarkFeed(b *testing.B) {
	for _, fr := range framings {
		ch, err := channelOf(fr.doc, fr.path)
		if err != nil {
			b.Fatal(err)
		}
		samples, err := fr.samples()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fr.name, func(b *testing.B) {
			s := ch.NewStream(fr.dir)
			for b.Loop() {
				for _, m := range samples {
					s.Feed(fr.binary, m)
				}
			}
		})
	}
}

// BenchmarkDiff diffs the newest frozen version 1 release with the working tree after it,
// both ways: what contract check does for each pair of a release history.
func BenchmarkDiff(b *testing.B) {
	older, err := contract.Load("testdata/v1/remoteterm-v1.4.190.json")
	if err != nil {
		b.Fatal(err)
	}
	newer, err := contract.Load("testdata/v1/remoteterm-worktree.json")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		contract.Diff(older, newer, contract.DiffOptions{})
		contract.Diff(newer, older, contract.DiffOptions{})
	}
}
