package driverkit

import (
	"bytes"
	"strconv"
)

// fastRequest reads an action line in the form skewtest writes it,
// {"id":N,"lane":L,"action":"A","args":ARGS} (lane left out when 0), scanning its args once:
// json.Unmarshal into a request scans a line twice (checking it, then skipping the args to
// copy them), and a terminal's input args run to megabytes. ok is false for a line in any
// other form (another order, spaces, escapes in the action), which json.Unmarshal reads as
// before; the request is what json.Unmarshal would have made of the line.
func fastRequest(line []byte) (r request, ok bool) {
	rest, ok := bytes.CutPrefix(line, []byte(`{"id":`))
	if !ok {
		return request{}, false
	}
	if r.ID, rest, ok = number(rest, 18); !ok {
		return request{}, false
	}
	if after, found := bytes.CutPrefix(rest, []byte(`,"lane":`)); found {
		var lane int64
		if lane, rest, ok = number(after, 9); !ok {
			return request{}, false
		}
		r.Lane = int(lane)
	}
	if rest, ok = bytes.CutPrefix(rest, []byte(`,"action":"`)); !ok {
		return request{}, false
	}
	end := bytes.IndexByte(rest, '"')
	if end < 0 {
		return request{}, false
	}
	for _, c := range rest[:end] {
		if c < 0x20 || c > 0x7e || c == '\\' {
			return request{}, false // an escape or a byte JSON may rewrite: the slow path's
		}
	}
	r.Action = string(rest[:end])
	if rest, ok = bytes.CutPrefix(rest[end:], []byte(`","args":`)); !ok {
		return request{}, false
	}
	rest = bytes.TrimRight(rest, " \t\r\n")
	args, ok := bytes.CutSuffix(rest, []byte("}"))
	if !ok {
		return request{}, false
	}
	args = bytes.Trim(args, " \t\r\n")
	if !validJSON(args) {
		return request{}, false // the slow path says what is wrong
	}
	r.Args = bytes.Clone(args)
	return r, true
}

// number reads a JSON non-negative integer of at most digits digits at the start of b.
func number(b []byte, digits int) (int64, []byte, bool) {
	n := 0
	for n < len(b) && b[n] >= '0' && b[n] <= '9' {
		n++
	}
	if n == 0 || n > digits || (n > 1 && b[0] == '0') {
		return 0, nil, false
	}
	v, err := strconv.ParseInt(string(b[:n]), 10, 64)
	return v, b[n:], err == nil
}
