package driver_test

import (
	"encoding/json"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/run/harness/driver"
)

var _ = Describe("hello's params", func() {
	hello := func(params string) driver.Message {
		var m driver.Message
		Expect(json.Unmarshal([]byte(`{"type":"hello","protocol":1,"actions":["emit","stop"],"params":`+params+`}`), &m)).To(Succeed())
		return m
	}

	It("reads a description", func() {
		h := hello(`{"emit":[{"name":"text","type":"text","max":100,"limits":[48],"utf8":true,"feeds":"screen"},{"name":"mode","type":"enum","values":["a","b"],"optional":true}]}`)
		Expect(driver.CheckParams(h)).To(Succeed())
		Expect(h.Params["emit"]).To(Equal([]driver.Param{
			{Name: "text", Type: "text", Max: 100, Limits: []int{48}, UTF8: true, Feeds: "screen"},
			{Name: "mode", Type: "enum", Values: []string{"a", "b"}, Optional: true}}))
	})

	DescribeTable("refuses what cannot be drawn from, saying where",
		func(params, want string) {
			Expect(driver.CheckParams(hello(params))).To(MatchError(ContainSubstring(want)))
		},
		Entry("an action hello does not list", `{"nope":[]}`, `params describes "nope", an action hello does not list`),
		Entry("no name", `{"emit":[{"type":"int"}]}`, "params of emit, parameter 1: a parameter needs a name"),
		Entry("twice", `{"emit":[{"name":"n","type":"int"},{"name":"n","type":"int"}]}`, "params of emit, parameter 2: n is described twice"),
		Entry("an unknown type", `{"emit":[{"name":"n","type":"float"}]}`, `type "float" is not one of text, int`),
		Entry("an enum without values", `{"emit":[{"name":"m","type":"enum"}]}`, "an enum needs values"),
		Entry("bounds upside down", `{"emit":[{"name":"n","type":"int","min":5,"max":1}]}`, "max 1 is below min 5"),
		Entry("a json without an example", `{"emit":[{"name":"in","type":"json"}]}`, "a json parameter needs an example"),
		Entry("a limit of zero", `{"emit":[{"name":"text","type":"text","limits":[0]}]}`, "limit 0: a limit is a size of at least 1"),
	)
})
