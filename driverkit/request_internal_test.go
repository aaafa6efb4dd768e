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
