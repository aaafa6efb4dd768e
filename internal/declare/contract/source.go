package contract

import "strings"

// source is where Parse read a contract: kept so that whoever reports on the model (Diff)
// can name the file and line of any of its values.
type source struct {
	name string
	data []byte
	root *node
}

// File is the name the contract was parsed under (its path, or git's "v1.4.190:path" for a
// file read from a commit); "" for a contract made in Go.
func (c *Contract) File() string {
	if c == nil || c.src == nil {
		return ""
	}
	return c.src.name
}

// Line is the 1-based line, in File, of the value at ptr: an RFC 6901 pointer into the model,
// as Diff reports them (/channels/0/frames/3/fields/cwd). An object member is placed at its
// key; a pointer that goes further than the file does (a default the file leaves out) is
// placed at the nearest value the file holds. A version 1 file is placed the same way: the
// model keeps its channels, frames, fields, capabilities, features and commands where the
// file has them, and its codecs are placed at the file's "binary" and "json" objects. 0 for
// a contract made in Go.
func (c *Contract) Line(ptr string) int {
	if c == nil || c.src == nil {
		return 0
	}
	if c.ContractVersion == 1 {
		ptr = v1Pointer(ptr)
	}
	return lineOf(c.src.data, c.src.root.placeOf(ptr))
}

// v1Pointer maps a pointer into the model to where a version 1 file says the same thing: the
// text codec is the channel's "json" object.
func v1Pointer(ptr string) string {
	toks := strings.SplitN(ptr, "/", 5) // "", channels, N, text, rest
	if len(toks) >= 4 && toks[1] == "channels" && toks[3] == "text" {
		return "/channels/" + toks[2] + "/json"
	}
	return ptr
}
