package version_test

import (
	"reflect"
	"runtime"
	"runtime/debug"
	"strings"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/build/version"
)

var _ = Describe("version", func() {
	checkout := &debug.BuildInfo{GoVersion: "go1.26", Main: debug.Module{Version: version.Devel},
		Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "true"}}}

	DescribeTable("is the stamped version, else the build information's",
		func(stamp string, bi *debug.BuildInfo, ok bool, want string) {
			Expect(version.Of(stamp, bi, ok)).To(Equal(want))
		},
		Entry("stamped by make build", "v1.2.0-3-gabc1234-dirty", checkout, true, "v1.2.0-3-gabc1234-dirty"),
		Entry("stamped, no build information", "v1.2.0", nil, false, "v1.2.0"),
		Entry("not stamped (control): go install …@v1.2.3", "", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}, true, "v1.2.3"),
		Entry("not stamped: go build in a checkout, a pseudo-version", "",
			&debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260101120000-abcdef123456+dirty"}}, true, "v0.0.0-20260101120000-abcdef123456+dirty"),
		Entry("not stamped: (devel), with the commit the build information names", "", checkout, true, "(devel) abc123+modified"),
		Entry("not stamped: (devel), an unmodified commit", "",
			&debug.BuildInfo{Main: debug.Module{Version: version.Devel}, Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "abc123"}, {Key: "vcs.modified", Value: "false"}}}, true, "(devel) abc123"),
		Entry("not stamped: no version, no commit", "", &debug.BuildInfo{}, true, "(devel)"),
		Entry("not stamped: no build information", "", nil, false, "(devel)"),
	)

	It("is the build information's in a binary nothing stamped (this test binary)", func() {
		bi, ok := debug.ReadBuildInfo()
		Expect(version.String()).To(Equal(version.Of("", bi, ok)))
		Expect(version.String()).NotTo(BeEmpty())
		Expect(version.String()).NotTo(Equal(version.Of("v9.9.9", bi, ok)), "control: a stamp would win")
	})

	It("names this package's variable for the linker's -X", func() {
		// The linker's -X needs the variable's package path: the one this package's functions carry.
		fn := runtime.FuncForPC(reflect.ValueOf(version.String).Pointer()).Name()
		pkg := strings.TrimSuffix(fn, ".String")
		Expect(pkg).NotTo(Equal(fn))
		Expect(version.Var).To(Equal(pkg + ".stamped"))
		Expect(version.Var).NotTo(Equal(strings.TrimSuffix(pkg, "/version")+".stamped"), "control: the parent package would be wrong")
	})

	It("names the platform as GOOS/GOARCH", func() {
		Expect(version.Platform()).To(Equal(runtime.GOOS + "/" + runtime.GOARCH))
		Expect(version.Platform()).To(MatchRegexp(`^[a-z0-9]+/[a-z0-9]+$`))
		Expect("linux-amd64").NotTo(MatchRegexp(`^[a-z0-9]+/[a-z0-9]+$`), "control")
	})
})
