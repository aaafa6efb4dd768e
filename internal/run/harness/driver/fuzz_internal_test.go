package driver

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"
)

// FuzzDecodeLine feeds driver stdout lines to decodeLine: it never fails and never panics;
// a line that breaks the protocol becomes a TypeInvalid message that keeps the line and
// says why, and any other message has a type and keeps its line. Seeds: the messages of
// docs/driver-protocol.md, broken ones, and testdata/fuzz/FuzzDecodeLine.
func FuzzDecodeLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"hello","protocol":1,"role":"client","kind":"desktop","build":{"product":"remoteterm","version":"v1.4.173"},"actions":["subscribe","input"]}`,
		`{"type":"ready","url":"ws://127.0.0.1:40719"}`,
		`{"type":"result","id":3,"ok":true,"data":{}}`,
		`{"type":"result","id":4,"ok":false,"error":{"code":"unsupported-action","message":"no action \"pause\""}}`,
		`{"type":"observe","what":"screen","data":{"text":"aGk="}}`,
		`{not json`, `{"type":"invalid"}`, `{"type":""}`, `{"id":1e400}`, `[1,2]`, "", "   ",
		`{"type":"result","id":"3"}`, `{"type":"hello","actions":"subscribe"}`,
		`{"type":"observe", "data" :  {"a": [1, "x", 2.50], "a": null} , "what":"w"}`, `{"type":"observe","data":null}`,
		`{"data":"\u00e9\ud800","type":"observe","data":"second"}`, "{\"type\":\"observe\",\"data\":\"\xff\"}",
	} {
		f.Add([]byte(s))
	}
	at := time.Unix(0, 0)
	f.Fuzz(func(t *testing.T, line []byte) {
		m := decodeLine(line, at, false)
		switch {
		case m.Type == "":
			t.Fatalf("a message without a type from %q", line)
		case m.Type == TypeInvalid && m.Line != string(line):
			t.Fatalf("the invalid message keeps %q, the line was %q", m.Line, line)
		case m.Type != TypeInvalid && m.Line != "":
			t.Fatalf("a valid message keeps its line %q", line)
		case decodeLine(line, at, true).Line != string(line):
			t.Fatalf("the first line is not kept: %q", line)
		case m.Type == TypeInvalid && m.What == "":
			t.Fatalf("an invalid line without a reason: %q", line)
		case m.Type != TypeInvalid && !strings.HasPrefix(strings.TrimSpace(string(line)), "{"):
			t.Fatalf("%q accepted as a %s message", line, m.Type)
		}
		if m.Error != nil {
			_ = m.Error.Error()
		}
		if m.Type == TypeInvalid {
			return
		}
		// The data, parsed once with the line, is what a second parse gave: its text as the
		// line has it, and that text decoded.
		var raw struct {
			Data json.RawMessage `json:"data"`
		}
		if err := jsonv1.Unmarshal(bytes.TrimSpace(line), &raw); err != nil {
			t.Fatalf("%q decoded as a message, not as its data: %v", line, err)
		}
		if !bytes.Equal(m.Data, raw.Data) || m.Decoded != (raw.Data != nil) {
			t.Fatalf("data %q (decoded %v), parsed alone %q", m.Data, m.Decoded, raw.Data)
		}
		if m.Decoded {
			var v any
			if err := jsonv1.Unmarshal(m.Data, &v); err != nil || !reflect.DeepEqual(v, m.Value) {
				t.Fatalf("data %q has the value %#v, decoded alone %#v (%v)", m.Data, m.Value, v, err)
			}
		}
	})
}

// FuzzFastLine feeds lines to fastLine: a line it takes is one the decoder takes too, into
// the same message (type, id, ok, what, lane, data's text and value). Seeds: the forms
// drivers write, and lines it must leave to the decoder.
func FuzzFastLine(f *testing.F) {
	for _, s := range []string{
		`{"type":"observe","lane":3,"what":"rendered-output","data":{"terminal":"t1","screen":"aGk=","screenFrom":12,"ok":true,"n":[1,-2.5e3,{}],"x":[]}}`,
		`{"type":"result","id":3,"ok":true,"data":{}}`, `{"type":"result","id":3,"ok":false}`,
		` { "type" : "observe" , "what" : "w" , "data" : [ 1 , "a" ] } `, `{"type":"observe","what":"w","data":"a\"b"}`,
		`{"type":"observe","data":null}`, `{"type":"observe","data":{"a":1,"a":2}}`, `{"type":"observe","type":"result"}`,
		`{"Type":"observe"}`, `{"type":"observe","id":1.0}`, `{"type":"observe","id":-1}`, `{"type":"observe","data":1e400}`,
		`{"type":"observe",}`, `{"type":"observe","data":[1,]}`, `{"type":"observe","data":{"a":1,}}`, `{"type":"observe"} x`,
		`{"type":"observe","data":"é"}`, `{"type":"observe","data":{"cwd":"😀$t/1éP€文T","n":[null]}}`, "{\"type\":\"observe\",\"data\":\"0123456789\xc3\"}",
		"{\"type\":\"observe\",\"data\":\"\xff\"}", `{"type":"observe","data":{"cwd":"T[€\\IWf\u00e9\ud800\n","k\"":"\/"}}`, `{"\u0074ype":"observe","what":"a\tb"}`,
		`{"type":"observe","data":"abc\`, `{"type":"observe","data":"\x"}`, "{\"type\":\"observe\",\"what\":\"\xe2\x82\xac\"}", "{\"type\":\"observe\",\"data\":\"\x7f\"}", `{"type":"","data":{}}`,
		`{"type":"observe","data":-}`, `{"type":"observe","data":01}`, `{"type":"observe","data":tru}`,
		`{"type":"observe","data":"0123456789abcdef0123456789abcdef\\"}`, `{"type":"observe","data":"0123456789abcdef01234567"`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		m, ok := fastLine(line)
		if !ok {
			return
		}
		w := wireMessage{Data: wireData{line: line}}
		if err := jsonv1.Unmarshal(line, &w); err != nil {
			t.Fatalf("fastLine took %q, the decoder refuses it: %v", line, err)
		}
		want := w.Message
		if w.Data.set {
			want.Data, want.Value, want.Decoded = w.Data.raw, w.Data.v, true
		}
		if !reflect.DeepEqual(m, want) {
			t.Fatalf("fastLine read %q as\n%#v\nthe decoder as\n%#v", line, m, want)
		}
	})
}

// FuzzPlainPrefix checks the word-at-a-time scan against a byte-at-a-time one. Seeds: every
// byte value in every position of two blocks of four words and a word and a half of plain
// bytes.
func FuzzPlainPrefix(f *testing.F) {
	for pos := range 76 {
		for c := range 256 {
			b := []byte(strings.Repeat("A", 76))
			b[pos] = byte(c)
			f.Add(b)
		}
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		want := len(b)
		for i, c := range b {
			if c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
				want = i
				break
			}
		}
		if got := plainPrefix(b); got != want {
			t.Fatalf("plainPrefix(%q) = %d, want %d", b, got, want)
		}
	})
}
