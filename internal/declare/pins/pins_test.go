package pins_test

import (
	"context"
	"os"
	"path/filepath"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/internal/declare/pins"
)

var _ = Describe("ParseVersion", func() {
	DescribeTable("stable tags",
		func(tag string) {
			v, err := pins.ParseVersion(tag)
			Expect(err).NotTo(HaveOccurred())
			Expect(v.String()).To(Equal(tag))
		},
		Entry("plain", "v1.4.176"),
		Entry("zeros", "v0.0.0"),
	)

	DescribeTable("Older",
		func(a, b string, older bool) { Expect(pins.Older(a, b)).To(Equal(older)) },
		Entry("by version", "v1.4.9", "v1.4.10", true),
		Entry("not newer", "v1.4.10", "v1.4.9", false),
		Entry("the working tree is newest", "v1.4.190", "worktree", true),
		Entry("nothing is newer than the working tree", "worktree", "v1.4.190", false),
		Entry("unknown order", "main", "v1.4.190", false),
		Entry("same", "v1.4.1", "v1.4.1", false),
	)

	It("orders versions by number, not by text", func() {
		a, _ := pins.ParseVersion("v1.4.9")
		b, _ := pins.ParseVersion("v1.4.10")
		Expect(a.Compare(b)).To(Equal(-1))
		Expect(b.Compare(a)).To(Equal(1))
		Expect(a.Compare(a)).To(Equal(0))
	})

	DescribeTable("tags that are not stable say why",
		func(tag, why string) {
			_, err := pins.ParseVersion(tag)
			Expect(err).To(MatchError(ContainSubstring(why)))
		},
		Entry("pre-release", "v1.4.191-rc.1", "pre-release"),
		Entry("build metadata", "v1.4.191+linux", "pre-release or build metadata"),
		Entry("foreign prefix", "mobile-v9.0.0", `foreign prefix "mobile-"`),
		Entry("two parts", "v1.4", "not vX.Y.Z"),
		Entry("one number", "v799", "not vX.Y.Z"),
		Entry("no v", "1.4.176", "not vX.Y.Z"),
		Entry("overflow", "v1.4.99999999999999999999", "not vX.Y.Z"),
	)

	It("compares parts as numbers", func() {
		a, _ := pins.ParseVersion("v1.4.9")
		b, _ := pins.ParseVersion("v1.4.10")
		c, _ := pins.ParseVersion("v1.10.0")
		Expect(a.Compare(b)).To(Equal(-1))
		Expect(b.Compare(a)).To(Equal(1))
		Expect(b.Compare(c)).To(Equal(-1))
		Expect(a.Compare(a)).To(Equal(0))
	})
})

var _ = Describe("Resolve", func() {
	type selectionCase struct {
		tags    []string // created in this order, one commit each
		want    string
		skipped []string
	}

	DescribeTable("default rule pins the newest stable tag",
		func(ctx SpecContext, c selectionCase) {
			f := newFixture()
			commits := map[string]plumbing.Hash{}
			for i, t := range c.tags {
				commits[t] = f.tag(t, i%2 == 0)
			}
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{})
			Expect(err).NotTo(HaveOccurred())
			Expect(sel.Pins).To(Equal([]pins.Pin{{Ref: c.want, Commit: commits[c.want], Reason: "newest stable tag"}}))
			var skipped []string
			for _, s := range sel.Skipped {
				Expect(s.Why).NotTo(BeEmpty())
				skipped = append(skipped, s.Ref)
			}
			Expect(skipped).To(ConsistOf(c.skipped), "every other tag is explained")
		},
		Entry("ignores pre-releases, foreign prefixes and non-semver", selectionCase{
			tags:    []string{"v799", "mobile-v9.0.0", "v1.4.177-rc.3", "v1.4.175", "v1.4.176"},
			want:    "v1.4.176",
			skipped: []string{"v799", "mobile-v9.0.0", "v1.4.177-rc.3", "v1.4.175"},
		}),
		Entry("compares numbers, not strings", selectionCase{
			tags: []string{"v1.4.10", "v1.4.9"}, want: "v1.4.10", skipped: []string{"v1.4.9"},
		}),
		Entry("major beats minor", selectionCase{
			tags: []string{"v10.0.0", "v9.99.99"}, want: "v10.0.0", skipped: []string{"v9.99.99"},
		}),
		Entry("newest is not the latest commit", selectionCase{
			tags: []string{"v2.0.0", "v1.9.0"}, want: "v2.0.0", skipped: []string{"v1.9.0"},
		}),
	)

	It("pins the last N stable tags, oldest first", func(ctx SpecContext) {
		f := newFixture()
		for _, t := range []string{"v1.0.0", "v1.1.0", "v1.2.0-rc.1", "v1.2.0", "v1.10.0"} {
			f.tag(t, false)
		}
		sel, err := pins.Resolve(ctx, f.dir, pins.Options{Last: 3})
		Expect(err).NotTo(HaveOccurred())
		Expect(refs(sel)).To(Equal([]string{"v1.1.0", "v1.2.0", "v1.10.0"}))
		Expect(sel.Pins[0].Reason).To(Equal("one of the last 3 stable tags"))
		Expect(sel.Skipped).To(Equal([]pins.Skipped{
			{Ref: "v1.0.0", Why: "older than the last 3 stable tags"},
			{Ref: "v1.2.0-rc.1", Why: "pre-release or build metadata: only vX.Y.Z is stable"},
		}))

		sel, err = pins.Resolve(ctx, f.dir, pins.Options{Last: 10})
		Expect(err).NotTo(HaveOccurred())
		Expect(refs(sel)).To(HaveLen(4))
	})

	Describe("explicit refs", func() {
		var (
			f                      *fixture
			annotated, light, head plumbing.Hash
		)
		BeforeEach(func() {
			f = newFixture()
			annotated = f.tag("v1.0.0", true)
			light = f.tag("v1.1.0", false)
			head = f.commit("work in progress")
			Expect(f.repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/release", light))).To(Succeed())
		})

		It("resolves tags, branches and commit prefixes, in the order given, with their reasons", func(ctx SpecContext) {
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{
				Refs: []pins.Ref{
					{Ref: "v1.1.0"}, {Ref: " v1.0.0", Reason: " the real v1.0.0 release client "},
					{Ref: "release"}, {Ref: head.String()[:8]}, {Ref: "v1.1.0", Reason: "again"},
				},
			})
			Expect(err).NotTo(HaveOccurred())
			Expect(sel.Pins).To(Equal([]pins.Pin{
				{Ref: "v1.1.0", Commit: light, Reason: "explicit"},
				{Ref: "v1.0.0", Commit: annotated, Reason: "the real v1.0.0 release client"},
				{Ref: "release", Commit: light, Reason: "explicit"},
				{Ref: head.String()[:8], Commit: head, Reason: "explicit"},
			}))
			Expect(sel.Skipped).To(BeEmpty())
		})

		It("peels a tag of a tag, and prefers a tag to a branch of the same name", func(ctx SpecContext) {
			outer, err := f.repo.CreateTag("v1.0.0-again", mustTagObject(f, "v1.0.0"), &git.CreateTagOptions{Tagger: &signature, Message: "nested"})
			Expect(err).NotTo(HaveOccurred())
			Expect(outer.Hash()).NotTo(Equal(annotated))
			Expect(f.repo.Storer.SetReference(plumbing.NewHashReference("refs/heads/v1.1.0", head))).To(Succeed())
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "v1.0.0-again", "v1.1.0")})
			Expect(err).NotTo(HaveOccurred())
			Expect(sel.Pins[0].Commit).To(Equal(annotated))
			Expect(sel.Pins[1].Commit).To(Equal(light))
		})

		It("adds the last N stable tags after the explicit ones", func(ctx SpecContext) {
			sel, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "release"), Last: 2})
			Expect(err).NotTo(HaveOccurred())
			Expect(refs(sel)).To(Equal([]string{"release", "v1.0.0", "v1.1.0"}))
		})

		It("names an unknown ref", func(ctx SpecContext) {
			_, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "v1.0.0", "v9.9.9")})
			Expect(err).To(MatchError(pins.ErrUnknownRef))
			Expect(err).To(MatchError(ContainSubstring(`"v9.9.9"`)))
		})

		It("names a path given as a ref as no tag, branch or commit, without go-git's words (N26)", func(ctx SpecContext) {
			_, err := pins.Resolve(ctx, f.dir, pins.Options{Refs: pins.Refs("", "/tmp/nope.json")})
			Expect(err).To(MatchError(pins.ErrUnknownRef))
			Expect(err).To(MatchError(ContainSubstring(`"/tmp/nope.json" in ` + f.dir + `: not a tag, branch or commit`)))
			Expect(err.Error()).NotTo(ContainSubstring("Revision invalid"))
		})
	})

	It("says how to fetch tags when there is no stable tag", func(ctx SpecContext) {
		f := newFixture()
		f.commit("first")
		f.tag("v1.0.0-rc.1", true)
		_, err := pins.Resolve(ctx, f.dir, pins.Options{})
		Expect(err).To(MatchError(pins.ErrNoStableTag))
		Expect(err.Error()).To(HavePrefix("no release tag matching vX.Y.Z in " + f.dir))
		Expect(err.Error()).To(ContainSubstring("v1.0.0-rc.1"))
		Expect(err.Error()).To(ContainSubstring("git fetch --unshallow --tags"))
		Expect(err.Error()).To(ContainSubstring("fetch-depth: 0"))
	})

	It("says when the checkout is shallow", func(ctx SpecContext) {
		f := newFixture()
		h := f.commit("only")
		Expect(os.WriteFile(filepath.Join(f.dir, ".git", "shallow"), []byte(h.String()+"\n"), 0o644)).To(Succeed())
		_, err := pins.Resolve(ctx, f.dir, pins.Options{})
		Expect(err).To(MatchError(pins.ErrNoStableTag))
		Expect(err.Error()).To(ContainSubstring("(this checkout is a shallow clone)"))
	})

	It("opens the repository from a subdirectory", func(ctx SpecContext) {
		f := newFixture()
		want := f.tag("v1.0.0", false)
		sub := filepath.Join(f.dir, "a", "b")
		Expect(os.MkdirAll(sub, 0o755)).To(Succeed())
		sel, err := pins.Resolve(ctx, sub, pins.Options{})
		Expect(err).NotTo(HaveOccurred())
		Expect(sel.Pins[0].Commit).To(Equal(want))
	})

	It("refuses a directory outside any repository", func(ctx SpecContext) {
		_, err := pins.Resolve(ctx, GinkgoT().TempDir(), pins.Options{})
		Expect(err).To(MatchError(pins.ErrNotRepository))
	})

	DescribeTable("refuses wrong rules",
		func(o pins.Options, want string) {
			err := o.Validate()
			Expect(err).To(MatchError(pins.ErrInvalidOptions))
			Expect(err).To(MatchError(ContainSubstring(want)))
		},
		Entry("negative count", pins.Options{Last: -1}, "must not be negative"),
		Entry("empty ref", pins.Options{Refs: pins.Refs("", " ")}, "empty ref"),
		Entry("bad glob", pins.Options{Ignore: []string{"v1.[4"}}, `ignore pattern "v1.[4"`),
		Entry("empty glob", pins.Options{Ignore: []string{""}}, `ignore pattern ""`),
	)

	It("defaults to the newest stable tag", func() {
		o := pins.Options{}
		Expect(o.Validate()).To(Succeed())
		Expect(o.Last).To(Equal(1))
		o = pins.Options{Refs: pins.Refs("", "main")}
		Expect(o.Validate()).To(Succeed())
		Expect(o.Last).To(Equal(0))
		o = pins.Options{Window: true}
		Expect(o.Validate()).To(Succeed())
		Expect(o.Last).To(Equal(0))
	})
})

var _ = Describe("StableTags", func() {
	It("lists stable tags oldest first and explains the rest", func(ctx SpecContext) {
		f := newFixture()
		for i, t := range []string{"v1.4.10", "mobile-v9.0.0", "v1.4.9", "v0.9.0", "v2-beta"} {
			f.tag(t, i%2 == 1)
		}
		tags, skipped, err := pins.StableTags(ctx, f.dir)
		Expect(err).NotTo(HaveOccurred())
		var names []string
		for _, t := range tags {
			names = append(names, t.Name)
			Expect(t.Commit).NotTo(Equal(plumbing.ZeroHash))
		}
		Expect(names).To(Equal([]string{"v0.9.0", "v1.4.9", "v1.4.10"}))
		Expect(skipped).To(Equal([]pins.Skipped{
			{Ref: "mobile-v9.0.0", Why: `foreign prefix "mobile-": only vX.Y.Z is stable`},
			{Ref: "v2-beta", Why: "not vX.Y.Z"},
		}))
	})

	It("peels annotated tags to their commit", func(ctx SpecContext) {
		f := newFixture()
		want := f.tag("v1.0.0", true)
		ref, err := f.repo.Tag("v1.0.0")
		Expect(err).NotTo(HaveOccurred())
		Expect(ref.Hash()).NotTo(Equal(want), "an annotated tag points at a tag object")
		tags, _, err := pins.StableTags(ctx, f.dir)
		Expect(err).NotTo(HaveOccurred())
		Expect(tags[0].Commit).To(Equal(want))
	})

	It("stops when the context is cancelled", func() {
		f := newFixture()
		f.tag("v1.0.0", false)
		ctx, cancel := context.WithCancel(context.Background())
		cancel()
		_, _, err := pins.StableTags(ctx, f.dir)
		Expect(err).To(MatchError(context.Canceled))
	})
})

func refs(sel pins.Selection) []string {
	var out []string
	for _, p := range sel.Pins {
		out = append(out, p.Ref)
	}
	return out
}

// mustTagObject returns the hash of an annotated tag's object (not of its commit).
func mustTagObject(f *fixture, name string) plumbing.Hash {
	GinkgoHelper()
	ref, err := f.repo.Tag(name)
	Expect(err).NotTo(HaveOccurred())
	return ref.Hash()
}

var _ = Describe("RowLabel", func() {
	It("is a tag's own label, and a commit's nearest stable tag below it by ancestry", func(ctx SpecContext) {
		f := newFixture()
		f.write("a", "1")
		first := f.commit("before any tag")
		f.tag("v1.0.0", false)
		f.write("a", "2")
		mid := f.commit("between")
		f.tag("v1.1.0-rc.1", false) // not stable: never the nearest
		f.write("a", "3")
		f.tag("v1.1.0", false)
		f.write("a", "4")
		after := f.commit("after the last tag")
		repo, err := pins.Open(f.dir)
		Expect(err).NotTo(HaveOccurred())

		label := func(l string, h plumbing.Hash) string {
			GinkgoHelper()
			got, err := pins.RowLabel(ctx, repo, l, h)
			Expect(err).NotTo(HaveOccurred())
			return got
		}
		Expect(label("v1.0.0", plumbing.ZeroHash)).To(Equal("v1.0.0"), "a tag is its own")
		Expect(label(mid.String()[:12], mid)).To(Equal("v1.0.0"))
		Expect(label("main", after)).To(Equal("v1.1.0"))
		Expect(label(first.String(), first)).To(BeEmpty(), "no tag below it")
		Expect(label(pins.WorktreeLabel, plumbing.ZeroHash)).To(BeEmpty())
	})
})
