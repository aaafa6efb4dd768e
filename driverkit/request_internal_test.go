package driverkit

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzFastRequest: an action line the fast path reads gives the request json.Unmarshal
// gives, and the lines skewtest writes take the fast path.
func FuzzFastRequest(f *testing.F) {
	fast := []string{
		`{"id":1,"action":"input","args":{"terminal":"t1","bytes":"ZWNobyBoaQ0="}}`,
		`{"id":42,"lane":3,"action":"emit-output","args":{"bytes":"` + string(bytes.Repeat([]byte("QUFB"), 1000)) + `"}}`,
		`{"id":7,"action":"stop","args":null}`,
		`{"id":8,"lane":1,"action":"open-lane","args":{}}` + "\r",
	}
	for _, s := range fast {
		if _, ok := fastRequest([]byte(s)); !ok {
			f.Fatalf("skewtest's form takes the slow path: %q", s)
		}
		f.Add([]byte(s))
	}
	for _, s := range []string{
		`{"id":1,"action":"x","args": {"a":1} }`, `{"id":1,"action":"x","args":{"a":1}}}`,
		`{"id":1,"action":"x","args":{"a":1}`, `{"id":1,"action":"x","args":{}, "lane":2}`,
		`{"id":01,"action":"x","args":{}}`, `{"id":1e3,"action":"x","args":{}}`, `{"id":-1,"action":"x","args":{}}`,
		`{"id":1,"action":"a\"b","args":{}}`, `{"id":1,"action":"é","args":{}}`, `{"action":"x","id":1,"args":{}}`,
		`{"id":99999999999999999999,"action":"x","args":{}}`, `{"id":1,"lane":1234567890,"action":"x","args":{}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		r, ok := fastRequest(line)
		if !ok {
			return
		}
		var want request
		if err := json.Unmarshal(line, &want); err != nil {
			t.Fatalf("the fast path read %q, json.Unmarshal refuses it: %v", line, err)
		}
		if !reflect.DeepEqual(r, want) {
			t.Fatalf("%q: the fast path read %+v, json.Unmarshal %+v", line, r, want)
		}
	})
}

// FuzzValidJSON: validJSON says what json.Valid says, for any bytes. Seeds: values of every
// kind, long strings of the forms action arguments carry, and broken ones.
func FuzzValidJSON(f *testing.F) {
	for _, s := range []string{
		`{"terminal":"t1","bytes":"` + string(bytes.Repeat([]byte("QUFB"), 100)) + `"}`, `{}`, `[]`, `null`, `true`, `false`,
		` { "a" : [ 1 , -2.5e+3 , 0 , "x" , { } , [ ] , null ] } `, `"😀$t/1éP€文T"`, `"a\"b"`, `"\u00e9"`,
		`{"a":1,}`, `[1,]`, `{"a"}`, `{"a":}`, `{,}`, `01`, `-`, `1.`, `1e`, `.5`, `tru`, `nul`, `"abc`, `{"a":1}}`, `1 2`,
		"\"\x7f\"", "\"\x1f\"", "\"\xff\"", "\"0123456789\xc3\"", "", " ", `[[[[[[[[[[]]]]]]]]]]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		if got, want := validJSON(b), json.Valid(b); got != want {
			t.Fatalf("validJSON(%q) = %v, json.Valid %v", b, got, want)
		}
		// The quick reader alone never takes what json.Valid refuses.
		v := validator{b: b}
		if v.value(0) {
			v.space()
			if v.i == len(b) && !json.Valid(b) {
				t.Fatalf("the quick reader takes %q, json.Valid refuses it", b)
			}
		}
	})
}

// FuzzPlainPrefix checks the word-at-a-time scan against a byte-at-a-time one. Seeds: every
// byte value in every position of a word and a half of plain bytes.
func FuzzPlainPrefix(f *testing.F) {
	for pos := range 12 {
		for c := range 256 {
			b := []byte("AAAAAAAAAAAA")
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
