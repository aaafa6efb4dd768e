package usage_test

import (
	"errors"
	"fmt"
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
)

var _ = Describe("option errors", func() {
	flags := map[string]string{"Shard": "--shard", "ReportDir": "--report-dir"}

	It("names the option as a Go caller knows it, and is the user's to fix", func() {
		err := usage.Optionf("Shard", "%q: want K/N", "3/2")
		Expect(err).To(MatchError(`Shard "3/2": want K/N`))
		Expect(usage.Is(err)).To(BeTrue())
		var oe *usage.OptionError
		Expect(errors.As(fmt.Errorf("plan: %w", err), &oe)).To(BeTrue())
		Expect(oe.Option).To(Equal("Shard"))
	})

	It("is renamed to a command's flag wherever a wrapping message says it, keeping its causes", func() {
		err := fmt.Errorf("fuzz: %w", usage.Optionf("ReportDir", "out: %w", fs.ErrExist))
		renamed := usage.Rename(err, flags)
		Expect(renamed).To(MatchError("fuzz: --report-dir out: file already exists"))
		Expect(errors.Is(renamed, fs.ErrExist)).To(BeTrue())
		Expect(usage.Is(renamed)).To(BeTrue())
		Expect(usage.Rename(renamed, flags)).To(BeIdenticalTo(renamed), "renamed once")
	})

	DescribeTable("is left as it is when no flag names its option",
		func(err error) { Expect(usage.Rename(err, flags)).To(BeIdenticalTo(err)) },
		Entry("an option the command has no flag for", usage.Optionf("Pairings", "give one")),
		Entry("negative control: a usage error about no option", usage.Errorf("--shard 1/2: give --seed")),
	)

	It("is nil for nil", func() { Expect(usage.Rename(nil, flags)).To(Succeed()) })
})
