package store_test

import (
	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"

	"github.com/skewtest/skewtest/examples/notesd/store"
)

var _ = Describe("Store", func() {
	var s *store.Store
	BeforeEach(func() { s = store.New() })

	It("writes a new revision on every put, numbered by a cursor", func() {
		a := s.Put("n1", "one", nil, "s1")
		b := s.Put("n2", "two", []string{"x"}, "")
		c := s.Put("n1", "one again", nil, "s2")
		Expect([]int64{a.Rev, b.Rev, c.Rev}).To(Equal([]int64{1, 1, 2}))
		Expect([]int64{a.Cursor, b.Cursor, c.Cursor}).To(Equal([]int64{1, 2, 3}))
		got, err := s.Get("n1")
		Expect(err).NotTo(HaveOccurred())
		Expect(got.Text).To(Equal("one again"))
		Expect(got.Origin).To(Equal("s2"))
	})

	It("says a note it does not hold is not found", func() {
		_, err := s.Get("nope")
		Expect(err).To(MatchError(store.ErrNotFound))
	})

	It("lists the latest revisions by id, with the cursor", func() {
		s.Put("b", "2", nil, "")
		s.Put("a", "1", nil, "")
		s.Put("b", "3", nil, "")
		notes, cursor := s.List()
		Expect(cursor).To(BeEquivalentTo(3))
		Expect(notes).To(HaveLen(2))
		Expect(notes[0].ID).To(Equal("a"))
		Expect(notes[1].Text).To(Equal("3"))
	})

	It("returns every revision after a cursor, oldest first, for a client catching up", func() {
		s.Put("a", "1", nil, "")
		s.Put("b", "2", nil, "")
		s.Put("a", "3", nil, "")
		changes, cursor := s.Changes(1)
		Expect(cursor).To(BeEquivalentTo(3))
		Expect(changes).To(HaveLen(2))
		Expect(changes[0].ID).To(Equal("b"))
		Expect(changes[1].Text).To(Equal("3"))
		none, _ := s.Changes(99)
		Expect(none).To(BeEmpty())
		all, _ := s.Changes(-5)
		Expect(all).To(HaveLen(3))
	})

	It("searches text and tags without regard to case", func() {
		s.Put("a", "Shopping list", nil, "")
		s.Put("b", "nothing here", []string{"SHOP"}, "")
		s.Put("c", "other", nil, "")
		found := s.Search("shop")
		Expect(found).To(HaveLen(2))
		Expect(found[0].ID).To(Equal("a"))
		Expect(found[1].ID).To(Equal("b"))
	})
})
