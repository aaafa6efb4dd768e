package future

import (
	"hash/fnv"
	"math/rand/v2"
	"slices"
	"sync"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/tap"
)

// Config says what a Rewriter rewrites.
type Config struct {
	// Seed drives every choice.
	Seed int64
	// Kind is the pairing's client kind.
	Kind string
	// Version is the protocol version the pairing's builds negotiated (0: none declared): a
	// frame's fields are those of its shape at that version (contract.Frame.At).
	Version int
	// Senders maps a direction (contract.HostToClient, contract.ClientToHost) to the contract
	// of the build that sends in it. Only the directions listed are rewritten: those whose
	// receiver is the build under test.
	Senders map[string]*contract.Contract
	// Rules limits the rules used (nil: every rule).
	Rules []string
	// One makes each frame carry one variant, picked by the generator, instead of every
	// variant at once (All).
	One bool
}

// Rewriter rewrites frames into future variants; it implements tap.Rewriter.
type Rewriter struct {
	cfg Config

	mu sync.Mutex
	n  map[connDir]int // messages offered per connection and direction
}

type connDir struct {
	conn int
	dir  tap.Direction
}

// New returns a Rewriter for cfg.
func New(cfg Config) *Rewriter {
	return &Rewriter{cfg: cfg, n: map[connDir]int{}}
}

// Rewrite implements tap.Rewriter: every frame travelling in a direction of Config.Senders
// that can carry a future variant is replaced by all of its variants at once (or, with
// Config.One, by one of them).
func (r *Rewriter) Rewrite(f tap.Frame) ([]byte, string, bool) {
	sender := r.cfg.Senders[string(f.Dir)]
	if sender == nil || f.Control != "" {
		return nil, "", false
	}
	r.mu.Lock()
	k := connDir{f.Conn, f.Dir}
	r.n[k]++
	n := r.n[k]
	r.mu.Unlock()
	rng := Rand(r.cfg.Seed, f.Conn, string(f.Dir), n)
	fr := Frame{Sender: sender, Path: f.Path, Dir: string(f.Dir), Kind: r.cfg.Kind, Version: r.cfg.Version, Binary: f.Binary, Data: f.Data}
	if !r.cfg.One {
		v, ok := All(rng, fr, r.cfg.Rules)
		return v.Data, v.What, ok
	}
	vs := Variants(rng, fr)
	if r.cfg.Rules != nil {
		vs = slices.DeleteFunc(vs, func(v Variant) bool { return !slices.Contains(r.cfg.Rules, v.Rule) })
	}
	if len(vs) == 0 {
		return nil, "", false
	}
	v := vs[rng.IntN(len(vs))]
	return v.Data, v.Rule + ": " + v.What, true
}

// Rand is the generator for the n-th message (from 1) of one direction of one connection.
func Rand(seed int64, conn int, dir string, n int) *rand.Rand {
	h := fnv.New64a()
	var b [8]byte
	for i := range 8 {
		b[i] = byte(uint64(conn) >> (8 * i))
	}
	h.Write(b[:])
	h.Write([]byte(dir))
	for i := range 8 {
		b[i] = byte(uint64(n) >> (8 * i))
	}
	h.Write(b[:])
	return rand.New(rand.NewPCG(uint64(seed), h.Sum64()))
}
