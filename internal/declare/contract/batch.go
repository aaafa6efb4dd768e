package contract

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// splitBatch cuts one whole message into the items of its batch.
func splitBatch(batch string, b []byte) ([][]byte, error) {
	switch batch {
	case "", BatchNone:
		return [][]byte{b}, nil
	case BatchNewline:
		var items [][]byte
		for line := range bytes.SplitSeq(b, []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				items = append(items, bytes.TrimSuffix(line, []byte("\r")))
			}
		}
		if len(items) == 0 {
			return nil, &BatchError{batch, "the message holds no line"}
		}
		return items, nil
	case BatchJSONArray:
		t := bytes.TrimSpace(b)
		if len(t) == 0 || t[0] != '[' {
			return [][]byte{b}, nil // one frame, not a batch
		}
		var items []json.RawMessage
		if err := jsonv1.Unmarshal(t, &items); err != nil {
			return nil, &BatchError{batch, "not a JSON array: " + err.Error()}
		}
		if len(items) == 0 {
			return nil, &BatchError{batch, "the array is empty"}
		}
		out := make([][]byte, len(items))
		for i, it := range items {
			out[i] = it
		}
		return out, nil
	case BatchVarint, BatchU16BE, BatchU32BE, BatchU16LE, BatchU32LE:
		var items [][]byte
		for len(b) > 0 {
			item, n, err := cutPrefixed(batch, b)
			var short *shortError
			if errors.As(err, &short) {
				return items, &BatchError{batch, short.reason}
			}
			if err != nil {
				return items, err
			}
			items = append(items, item)
			b = b[n:]
		}
		if len(items) == 0 {
			return nil, &BatchError{batch, "the message is empty"}
		}
		return items, nil
	}
	return nil, &BatchError{batch, "unknown batch"}
}

// cutPrefixed cuts the length-prefixed item at the front of b and returns it with the bytes
// it took; a *shortError says b ends inside it.
func cutPrefixed(batch string, b []byte) ([]byte, int, error) {
	v, n, err := readUint(batch, b)
	switch {
	case errors.Is(err, errShort):
		return nil, 0, &shortError{len(b), fmt.Sprintf("ends inside a %s length prefix", batch)}
	case err != nil:
		return nil, 0, &BatchError{batch, "length prefix: " + err.Error()}
	case v > maxPacket:
		return nil, 0, &BatchError{batch, fmt.Sprintf("length prefix %d is more than the %d bytes skewtest holds for one frame", v, maxPacket)}
	case int(v) > len(b)-n:
		return nil, 0, &shortError{len(b), fmt.Sprintf("truncated: the %s prefix says %d bytes, %d follow", batch, v, len(b)-n)}
	}
	return b[n : n+int(v)], n + int(v), nil
}
