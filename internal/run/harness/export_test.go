package harness

import "github.com/skewtest/skewtest/internal/run/harness/transcript"

// ActionArgs is actionArgs, for the specs.
var ActionArgs = actionArgs

// Reference is a reference pairing's published transcript, for the specs: made for users
// pairings checked against it.
type Reference = reference

// NewReference is a reference that users pairings will take.
func NewReference(users int) *Reference {
	return &reference{done: make(chan struct{}), users: users}
}

// Publish and Take are publish and take.
func (r *Reference) Publish(t *transcript.Transcript) { r.publish(t) }
func (r *Reference) Take() *transcript.Transcript     { return r.take() }

// CheckHostURL and TapOptions are checkHostURL and tapOptions, for the specs.
func (b *Build) CheckHostURL(name, url string) error { return b.checkHostURL(name, url) }
func (b *Build) TapOptions() (int, error) {
	opts, err := tapOptions(Pairing{Host: b, Client: b})
	return len(opts), err
}

// Make and Env are get and env, for the specs: the CA made if need be, and the environment
// that hands its files to a driver.
func (c *CA) Make() error   { _, err := c.get(); return err }
func (c *CA) Env() []string { return c.env() }

// MarkOwn is markOwn, for the specs.
var MarkOwn = markOwn

// Slots are the parallel units Execute hands out, for the specs.
type Slots = slots

// NewSlots is newSlots.
func NewSlots(capacity int) *Slots { return newSlots(capacity) }

// Enqueue, Open, Release and Cancel are enqueue, open, release and cancel.
func (s *Slots) Enqueue(i, w int) <-chan struct{}             { return s.enqueue(i, w) }
func (s *Slots) Open()                                        { s.open() }
func (s *Slots) Release(w int)                                { s.release(w) }
func (s *Slots) Cancel(i int, granted <-chan struct{}, w int) { s.cancel(i, granted, w) }
