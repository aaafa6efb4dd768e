package contract_test

import (
	"testing"

	"github.com/skewtest/skewtest/contract"
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
