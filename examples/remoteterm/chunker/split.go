package chunker

import "unicode/utf8"

// MaxFrameBytes is the largest payload of an Output or SnapshotChunk frame (48 KiB).
const MaxFrameBytes = 49152

// Split cuts data into pieces of at most max bytes without splitting a valid UTF-8
// sequence. Invalid bytes count as one-byte code points. It always returns at least one
// piece (empty data gives one empty piece). The pieces alias data.
func Split(data []byte, max int) [][]byte {
	return split(data, max, false)
}

// Split cuts data as the package's Split does, unless o.CutCodePoints.
func (o Options) Split(data []byte, max int) [][]byte {
	return split(data, max, o.CutCodePoints)
}

// split cuts data into pieces of at most max bytes. loseHead is the CutCodePoints negative
// control: the next piece starts at the cap even where the cut moved back to a code
// point's start, so the bytes between are never sent.
func split(data []byte, max int, loseHead bool) [][]byte {
	if max < utf8.UTFMax {
		max = utf8.UTFMax
	}
	pieces := make([][]byte, 0, len(data)/max+1)
	for start := 0; ; {
		end := start + max
		if end >= len(data) {
			return append(pieces, data[start:])
		}
		cut := boundaryBefore(data, start, end)
		pieces = append(pieces, data[start:cut])
		if !loseHead {
			end = cut
		}
		start = end
	}
}

// boundaryBefore moves end back, at most three bytes, so it does not fall inside the valid
// UTF-8 sequence that crosses it.
func boundaryBefore(data []byte, start, end int) int {
	for back := 1; back < utf8.UTFMax && end-back > start; back++ {
		if !utf8.RuneStart(data[end-back]) {
			continue
		}
		if _, size := utf8.DecodeRune(data[end-back:]); size > back {
			return end - back
		}
		return end
	}
	return end
}
