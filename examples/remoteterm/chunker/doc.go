// Package chunker turns one output emission into the frames that carry it: plain Output
// text chunks of at most MaxFrameBytes that never split a UTF-8 code point, or one
// OutputSpan for a transformed run, or, in downgrade-to-text mode, plain Output chunks for a
// transformed run with the "delayed final seq".
//
// Seq rules. When the emission is untransformed and its raw length equals its display
// length, every chunk carries seq = meta.Seq − RawLength + chunkEnd (the raw high-water mark
// at the chunk's end). Otherwise seq cannot be mapped to chunk offsets and only the last
// frame carries meta.Seq; the others carry 0 ("no seq").
package chunker
