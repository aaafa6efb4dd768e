package pins_test

import (
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("Lock", func() {
	var (
		f                  *fixture
		v1, v2, rc, branch plumbing.Hash
	)
	BeforeEach(func() {
		f = newFixture()
		v1 = f.tag("v1.0.0", true)
		v2 = f.tag("v1.10.0", false)
		rc = f.tag("v1.11.0-rc.1", false)
		f.tag("mobile-v9.0.0", false)
		branch = f.commit("on a branch")
		Expect(f.repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/next", branch))).To(Succeed())
	})

	// move force-moves a tag to a new commit, as `git tag -f` does.
	move := func(tag string) plumbing.Hash {
		GinkgoHelper()
		h := f.commit("moved " + tag)
		Expect(f.repo.DeleteTag(tag)).To(Succeed())
		_, err := f.repo.CreateTag(tag, h, nil)
		Expect(err).NotTo(HaveOccurred())
		return h
	}

	It("records every stable tag and every pinned tag, sorted, one a line", func(ctx SpecContext) {
		sel, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "v1.11.0-rc.1", "next")})
		Expect(err).NotTo(HaveOccurred())
		l, changes, err := pins.WriteLock(ctx, f.dir, sel)
		Expect(err).NotTo(HaveOccurred())
		Expect(l.Path).To(Equal(filepath.Join(f.dir, pins.LockFile)))
		Expect(changes).To(HaveLen(3))
		Expect(changes[0].String()).To(Equal("v1.0.0: added at " + v1.String()[:12]))

		data, err := os.ReadFile(l.Path)
		Expect(err).NotTo(HaveOccurred())
		Expect(string(data)).To(HaveSuffix(
			"v1.0.0 " + v1.String() + "\n" +
				"v1.10.0 " + v2.String() + "\n" +
				"v1.11.0-rc.1 " + rc.String() + "\n"))
		Expect(string(data)).To(HavePrefix("# skewtest.lock"))

		read, err := pins.ReadLock(filepath.Join(f.dir))
		Expect(err).NotTo(HaveOccurred())
		Expect(read.Tags).To(Equal(l.Tags))
	})

	It("is optional", func() {
		l, err := pins.ReadLock(f.dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(l).To(BeNil())
		Expect(l.Check("v1.0.0", v2)).To(Succeed(), "a nil lock checks nothing")
	})

	Describe("a tag moved after locking", func() {
		var lock *pins.Lock
		BeforeEach(func(ctx SpecContext) {
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, _, err = pins.WriteLock(ctx, f.dir, sel)
			Expect(err).NotTo(HaveOccurred())
			lock, err = pins.ReadLock(f.dir)
			Expect(err).NotTo(HaveOccurred())
		})

		It("is refused, naming the tag, both commits and how to accept the move", func(ctx SpecContext) {
			moved := move("v1.10.0")
			_, err := pins.Resolve(ctx, f.dir, pins.Options{Lock: lock})
			Expect(err).To(MatchError(pins.ErrMovedTag))
			Expect(err.Error()).To(ContainSubstring("v1.10.0 points at " + moved.String()))
			Expect(err.Error()).To(ContainSubstring("locked it at " + v2.String()))
			Expect(err.Error()).To(ContainSubstring("skewtest pins lock"))

			_, err = pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "v1.10.0"), Lock: lock})
			Expect(err).To(MatchError(pins.ErrMovedTag), "an explicit pin is checked too")
		})

		It("does not matter when the tag is not pinned", func(ctx SpecContext) {
			move("v1.0.0")
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Lock: lock})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"v1.10.0"}))
		})

		It("is accepted once the lock is written again, which reports the move", func(ctx SpecContext) {
			moved := move("v1.10.0")
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{})
			Expect(err).NotTo(HaveOccurred())
			_, changes, err := pins.WriteLock(ctx, f.dir, sel)
			Expect(err).NotTo(HaveOccurred())
			Expect(changes).To(Equal([]pins.LockChange{{Tag: "v1.10.0", Old: v2, New: moved}}))
			Expect(changes[0].String()).To(Equal("v1.10.0: moved " + v2.String()[:12] + " → " + moved.String()[:12]))
			lock, err = pins.ReadLock(f.dir)
			Expect(err).NotTo(HaveOccurred())
			_, err = pins.Resolve(ctx, f.dir, pins.Options{Lock: lock})
			Expect(err).NotTo(HaveOccurred())
		})

		It("lists pinned tags the lock does not know, and checks neither branches nor commits", func(ctx SpecContext) {
			f.tag("v1.12.0", false)
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "next", branch.String()), Lock: lock})
			Expect(err).NotTo(HaveOccurred())
			Expect(sel.Unlocked).To(BeEmpty())
			sel, err = pins.Resolve(ctx, f.dir, pins.Options{Lock: lock})
			Expect(err).NotTo(HaveOccurred())
			Expect(sel.Unlocked).To(Equal([]string{"v1.12.0"}))
		})
	})

	DescribeTable("a malformed lock says file and line",
		func(body, want string) {
			_, err := pins.ParseLock("skewtest.lock", []byte(body))
			var le *pins.LockError
			Expect(err).To(BeAssignableToTypeOf(le))
			Expect(err).To(MatchError(want))
		},
		Entry("one field", "# c\n\nv1.0.0\n", `skewtest.lock:3: want "TAG COMMIT", got "v1.0.0"`),
		Entry("short hash", "v1.0.0 abc123\n", `skewtest.lock:1: tag v1.0.0: "abc123" is not a full 40-digit commit hash`),
		Entry("twice", "v1 "+plumbing.ZeroHash.String()+"\nv1 "+plumbing.ZeroHash.String()+"\n", "skewtest.lock:2: tag v1 is locked twice"),
	)
})

var _ = Describe("a shallow clone", func() {
	// CI checkouts (actions/checkout's default) fetch one commit and no tags.
	It("has no tags, and the error says how to fetch them", func(ctx SpecContext) {
		f := newFixture()
		f.tag("v1.0.0", true)
		f.tag("v1.1.0", false)
		f.commit("unreleased work")
		dir := GinkgoT().TempDir()
		_, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{URL: "file://" + f.dir, Depth: 1, Tags: git.NoTags})
		Expect(err).NotTo(HaveOccurred())

		_, err = pins.Resolve(ctx, dir, pins.Options{})
		Expect(err).To(MatchError(pins.ErrNoStableTag))
		Expect(err.Error()).To(ContainSubstring("(this checkout is a shallow clone)"))
		Expect(err.Error()).To(ContainSubstring("git fetch --unshallow --tags"))

		_, err = pins.Resolve(ctx, dir, pins.Options{Refs: pins.Refs("", "v1.0.0")})
		Expect(err).To(MatchError(pins.ErrUnknownRef))
		Expect(err.Error()).To(ContainSubstring("fetch-depth: 0"))
	})
})
