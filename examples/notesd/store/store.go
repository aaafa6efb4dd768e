// Package store is notesd's note store: notes by id, each write a new revision, and a change
// log numbered by a cursor so a client that was away can ask what changed since it left.
package store

import (
	"errors"
	"slices"
	"strings"
	"sync"
)

// Note is one note at one revision.
type Note struct {
	ID   string
	Text string
	Tags []string
	Rev  int64 // the note's revision, 1 for a new note
	// Cursor is the store's change counter when this revision was written.
	Cursor int64
	// Origin is who wrote it: a session id, or "" for the host itself.
	Origin string
}

// ErrNotFound is returned for a note the store does not hold.
var ErrNotFound = errors.New("note not found")

// Store holds the notes. The zero value is not usable; call New.
type Store struct {
	mu    sync.Mutex
	notes map[string]Note
	log   []Note // every revision, in cursor order
}

// New returns an empty store.
func New() *Store {
	return &Store{notes: map[string]Note{}}
}

// Put writes a note's new text and tags as a new revision.
func (s *Store) Put(id, text string, tags []string, origin string) Note {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := Note{ID: id, Text: text, Tags: slices.Clone(tags), Rev: s.notes[id].Rev + 1,
		Cursor: int64(len(s.log)) + 1, Origin: origin}
	s.notes[id] = n
	s.log = append(s.log, n)
	return n
}

// Get returns a note's latest revision.
func (s *Store) Get(id string) (Note, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	n, ok := s.notes[id]
	if !ok {
		return Note{}, ErrNotFound
	}
	return n, nil
}

// List returns every note's latest revision, by id, and the current cursor.
func (s *Store) List() ([]Note, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := make([]Note, 0, len(s.notes))
	for _, n := range s.notes {
		out = append(out, n)
	}
	slices.SortFunc(out, func(a, b Note) int { return strings.Compare(a.ID, b.ID) })
	return out, int64(len(s.log))
}

// Search returns the latest revision of every note whose text or tags contain query
// (case-insensitive), by id.
func (s *Store) Search(query string) []Note {
	all, _ := s.List()
	q := strings.ToLower(query)
	var out []Note
	for _, n := range all {
		if strings.Contains(strings.ToLower(n.Text), q) ||
			slices.ContainsFunc(n.Tags, func(t string) bool { return strings.Contains(strings.ToLower(t), q) }) {
			out = append(out, n)
		}
	}
	return out
}

// Changes returns every revision written after cursor, oldest first, and the current
// cursor. A note written twice appears twice.
func (s *Store) Changes(since int64) ([]Note, int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	since = max(0, min(since, int64(len(s.log))))
	return slices.Clone(s.log[since:]), int64(len(s.log))
}
