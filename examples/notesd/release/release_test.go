package release_test

import (
	"os"
	"reflect"
	"regexp"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/release"
)

var _ = Describe("release", func() {
	It("reads this tree's release.json", func() {
		Expect(func() { release.Current() }).NotTo(Panic())
	})

	It("refuses a key it does not know, so a typo in history.yaml cannot turn a behaviour off", func() {
		_, err := release.Parse([]byte(`{"version":"v0.2.0","pushh":true}`))
		Expect(err).To(MatchError(ContainSubstring(`unknown field "pushh"`)))
	})

	It("has the keys the web client's copy of the table has (web/release.js, from v0.3.0)", func() {
		js, err := os.ReadFile("../history/v0.3.0/web/release.js")
		Expect(err).NotTo(HaveOccurred())
		list := regexp.MustCompile(`(?s)const FEATURES = \[(.*?)\];`).FindSubmatch(js)
		Expect(list).NotTo(BeNil(), "web/release.js declares FEATURES")
		var web []string
		for _, m := range regexp.MustCompile(`'([A-Za-z]+)'`).FindAllSubmatch(list[1], -1) {
			web = append(web, string(m[1]))
		}
		var keys []string
		for f := range reflect.TypeFor[release.Features]().Fields() {
			keys = append(keys, f.Tag.Get("json"))
		}
		Expect(web).To(Equal(keys))
	})

	It("defaults the protocol window to 1..1", func() {
		f, err := release.Parse([]byte(`{"version":"v0.1.0"}`))
		Expect(err).NotTo(HaveOccurred())
		v, m := f.Window()
		Expect([]int{v, m}).To(Equal([]int{1, 1}))
	})

	Describe("Override (NOTESD_FEATURES)", func() {
		base := release.Features{Version: "v0.2.0", Push: true}

		It("lays the given fields over the release and keeps the rest", func() {
			f, err := release.Override(base, `{"pushUngated":true}`)
			Expect(err).NotTo(HaveOccurred())
			Expect(f).To(Equal(release.Features{Version: "v0.2.0", Push: true, PushUngated: true}))
		})

		It("changes nothing when empty", func() {
			Expect(release.Override(base, "")).To(Equal(base))
		})

		It("refuses unknown keys", func() {
			_, err := release.Override(base, `{"nope":1}`)
			Expect(err).To(MatchError(ContainSubstring("nope")))
		})
	})
})
