package usage_test

import (
	"errors"
	"fmt"
	"io/fs"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/usage"
)

// located is a typed error with a file and line that marks itself, as a configuration or
// journey syntax error does.
type located struct{ file string }

func (e *located) Error() string { return e.file + ":1: bad" }
func (*located) UserMistake()    {}

var _ = Describe("usage errors", func() {
	It("keeps the cause it wraps with %w, for errors.Is and errors.As", func() {
		err := usage.Errorf("--report-dir %s: %w", "out", fs.ErrExist)
		Expect(err).To(MatchError("--report-dir out: file already exists"))
		Expect(errors.Is(err, fs.ErrExist)).To(BeTrue())
		Expect(usage.Is(err)).To(BeTrue())
	})

	DescribeTable("is found however deep it is wrapped, and only then",
		func(err error, want bool) { Expect(usage.Is(err)).To(Equal(want)) },
		Entry("a usage error", usage.Errorf("no such kind"), true),
		Entry("wrapped by another layer", fmt.Errorf("pairing 3: %w", usage.Errorf("no such kind")), true),
		Entry("a sentinel", fmt.Errorf("v9: %w", usage.New("unknown ref")), true),
		Entry("a typed error that marks itself", fmt.Errorf("load: %w", &located{"skewtest.yaml"}), true),
		Entry("in a joined error", errors.Join(errors.New("stop"), &located{"j.txtar"}), true),
		Entry("negative control: a broken tool", fmt.Errorf("go build: %w", errors.New("exit status 1")), false),
		Entry("negative control: nil", nil, false),
	)

	It("finds a sentinel by identity", func() {
		errUnknown := usage.New("unknown ref")
		Expect(errors.Is(fmt.Errorf("v9: %w", errUnknown), errUnknown)).To(BeTrue())
		Expect(errors.Is(fmt.Errorf("v9: %w", usage.New("unknown ref")), errUnknown)).To(BeFalse())
	})
})

var _ = Describe("did you mean", func() {
	DescribeTable("Nearest names a typo's intended name, and nothing far off",
		func(name string, want string) {
			Expect(usage.Nearest(name, []string{"Subscribe", "Unsubscribe", "Output", "SnapshotStart"})).To(Equal(want))
		},
		Entry("a dropped letter", "Subscrbe", "Subscribe"),
		Entry("case aside", "output", "Output"),
		Entry("two letters swapped", "Otuput", "Output"),
		Entry("negative control: another word", "Resize", ""),
	)

	It("measures edits in bytes", func() {
		Expect(usage.Distance("kitten", "sitting")).To(Equal(3))
		Expect(usage.Distance("", "abc")).To(Equal(3))
		Expect(usage.Distance("same", "same")).To(Equal(0))
	})
})
