package session_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/remoteterm/session"
)

var _ = Describe("Schema", func() {
	str := session.Field{Type: session.KindString, Required: true}
	schema := session.Schema{"a": str, "b": str, "c": str, "d": {Type: session.KindString, Enum: []string{"x"}}}

	DescribeTable("names the first key, in key order, that breaks it",
		func(raw string, strict bool, want string) {
			check := schema.Check
			if strict {
				check = schema.CheckStrict
			}
			for range 50 { // map order differs from walk to walk; the answer must not
				Expect(check(json.RawMessage(raw))).To(MatchError(want))
			}
		},
		Entry("missing keys", `{"c":"z"}`, false, "a: required string is missing"),
		Entry("a wrong kind before a missing key", `{"a":"x","b":1}`, false, "b: want string, got number"),
		Entry("an enum", `{"a":"x","b":"y","c":"z","d":"w"}`, false, `d: "w" is not one of x`),
		Entry("unknown keys, strictly", `{"a":"x","b":"y","c":"z","zz":1,"m":2,"e":3}`, true, "e: unknown key"),
		Entry("a broken key before unknown ones, strictly", `{"a":"x","c":"z","e":3}`, true, "b: required string is missing"),
	)

	It("passes an object that keeps it, and ignores unknown keys unless strict", func() {
		raw := json.RawMessage(`{"a":"x","b":"y","c":"z","later":1}`)
		Expect(schema.Check(raw)).To(Succeed())
		Expect(schema.CheckStrict(raw)).To(MatchError("later: unknown key"))
	})
})
