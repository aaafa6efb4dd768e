package harness

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	jsonv1 "github.com/go-json-experiment/json/v1"

	"github.com/skewtest/skewtest/internal/declare/contract"
	"github.com/skewtest/skewtest/internal/run/harness/driver"
	"github.com/skewtest/skewtest/internal/run/harness/transcript"
)

// DecodeAction is the driver action that names raw frames with the receiving build's own
// decoder, for channels whose contract leaves naming to the driver.
const DecodeAction = "decode"

// decodeBatch bounds one decode action: frames and bytes.
const (
	decodeBatchFrames = 256
	decodeBatchBytes  = 4 << 20
)

// decoder asks the receiving drivers to name the frames of driver-decoded channels as they
// are tapped (H>C frames to the client's driver, C>H to the host's), one batch at a time per
// driver, and records the answers in the transcript, so barriers and checks see the names.
type decoder struct {
	rec   *recorder
	p     Pairing
	mu    sync.Mutex
	queue map[transcript.Role][]int // frame indexes (from 1) waiting, per receiving role
	busy  map[transcript.Role]bool
	wake  chan struct{}
	idle  chan struct{} // closed and replaced when nothing is queued or in flight
	drv   map[transcript.Role]*driver.Driver
	told  map[transcript.Role]bool // a driver without decode was reported once
	wg    sync.WaitGroup
}

func newDecoder(rec *recorder, p Pairing) *decoder {
	return &decoder{rec: rec, p: p, queue: map[transcript.Role][]int{}, busy: map[transcript.Role]bool{},
		wake: make(chan struct{}, 1), drv: map[transcript.Role]*driver.Driver{}, told: map[transcript.Role]bool{}}
}

// needs reports whether a tapped frame is named by its receiving driver.
func (d *decoder) needs(f transcript.Frame) bool {
	if f.Control != "" {
		return false
	}
	recv := d.p.Client.Contract
	if f.Dir == contract.ClientToHost {
		recv = d.p.Host.Contract
	}
	if recv == nil {
		return false
	}
	ch := recv.Channel(f.Path)
	if ch == nil {
		return false
	}
	c := ch.Codec(f.Binary)
	return c != nil && c.Driver
}

// usesDriverDecoding reports whether either build's contract leaves naming to the driver.
func usesDriverDecoding(cs ...*contract.Contract) bool {
	for _, c := range cs {
		if c == nil {
			continue
		}
		for _, ch := range c.Channels {
			for _, codec := range []*contract.Codec{ch.Text, ch.Binary} {
				if codec != nil && codec.Driver {
					return true
				}
			}
		}
	}
	return false
}

// attach gives the decoder a role's running driver.
func (d *decoder) attach(role transcript.Role, drv *driver.Driver) {
	d.mu.Lock()
	d.drv[role] = drv
	d.mu.Unlock()
	d.kick()
}

// enqueue adds a tapped frame (its 1-based index) for its receiver's driver.
func (d *decoder) enqueue(f transcript.Frame) {
	role := transcript.Client
	if f.Dir == contract.ClientToHost {
		role = transcript.Host
	}
	d.mu.Lock()
	d.queue[role] = append(d.queue[role], f.Index)
	d.mu.Unlock()
	d.kick()
}

func (d *decoder) kick() {
	select {
	case d.wake <- struct{}{}:
	default:
	}
}

// run sends batches until ctx ends.
func (d *decoder) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.wake:
		}
		for _, role := range []transcript.Role{transcript.Host, transcript.Client} {
			d.mu.Lock()
			drv := d.drv[role]
			if drv == nil || d.busy[role] || len(d.queue[role]) == 0 {
				d.mu.Unlock()
				continue
			}
			batch := d.queue[role]
			d.queue[role] = nil
			d.busy[role] = true
			d.mu.Unlock()
			d.wg.Add(1)
			go func() {
				defer d.wg.Done()
				d.send(ctx, role, drv, batch)
				d.mu.Lock()
				d.busy[role] = false
				d.mu.Unlock()
				d.kick()
			}()
		}
	}
}

// pending reports whether frames wait for a name.
func (d *decoder) pending() bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, role := range []transcript.Role{transcript.Host, transcript.Client} {
		if d.busy[role] || (len(d.queue[role]) > 0 && d.drv[role] != nil) {
			return true
		}
	}
	return false
}

// drain waits until every queued frame has an answer, or until timeout.
func (d *decoder) drain(ctx context.Context, timeout time.Duration) {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	for d.pending() {
		changed := d.rec.view(func(*transcript.Transcript) {})
		select {
		case <-changed:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

type decodeFrame struct {
	ID     int    `json:"id"`
	Dir    string `json:"dir"`
	Path   string `json:"path"`
	Binary bool   `json:"binary"`
	Data   []byte `json:"data"`
}

// askAbout is frame f as a decode action asks about it.
func askAbout(f transcript.Frame) decodeFrame {
	return decodeFrame{ID: f.Index, Dir: f.Dir, Path: f.Path, Binary: f.Binary, Data: f.Data}
}

type decodeAnswer struct {
	ID      int             `json:"id"`
	Type    string          `json:"type"`
	Opcode  int             `json:"opcode"`
	Fields  json.RawMessage `json:"fields"`
	Refused bool            `json:"refused"`
	Reason  string          `json:"reason"`
}

// send asks drv to name the frames, in batches, and records the answers.
func (d *decoder) send(ctx context.Context, role transcript.Role, drv *driver.Driver, indexes []int) {
	if !slices.Contains(drv.Hello().Actions, DecodeAction) {
		d.mu.Lock()
		first := !d.told[role]
		d.told[role] = true
		d.mu.Unlock()
		if first {
			d.rec.problem(role, fmt.Sprintf("does not support action %q, which its contract's driver codec needs to name frames", DecodeAction),
				"the driver announced: "+fmt.Sprint(drv.Hello().Actions))
		}
		return
	}
	var frames []decodeFrame
	d.rec.view(func(t *transcript.Transcript) {
		for _, i := range indexes {
			frames = append(frames, askAbout(t.Frames[i-1]))
		}
	})
	err := askDecode(ctx, drv, frames, d.record)
	var bad *badDecodeAnswer
	switch {
	case errors.As(err, &bad):
		d.rec.problem(role, bad.Error(), bad.data)
	case err != nil && ctx.Err() == nil:
		d.rec.problem(role, fmt.Sprintf("action %q failed: %v", DecodeAction, err), "")
	}
}

// askDecode asks drv to name frames, in batches (decodeBatchFrames, decodeBatchBytes), and
// hands each batch's answers to got as they come.
func askDecode(ctx context.Context, drv *driver.Driver, frames []decodeFrame, got func([]decodeAnswer)) error {
	for len(frames) > 0 {
		n, size := 0, 0
		for _, f := range frames {
			if n == decodeBatchFrames || (n > 0 && size+len(f.Data) > decodeBatchBytes) {
				break
			}
			n, size = n+1, size+len(f.Data)
		}
		batch := frames[:n]
		frames = frames[n:]
		m, err := drv.Do(ctx, DecodeAction, map[string]any{"frames": batch})
		if err != nil {
			return err
		}
		var res struct {
			Frames []decodeAnswer `json:"frames"`
		}
		// The v1 package of encoding/json/v2: the same results, several times faster on a
		// decoder's many fields (replay asks about every frame of a whole matrix).
		if err := jsonv1.Unmarshal(m.Data, &res); err != nil {
			return &badDecodeAnswer{err: err, data: string(m.Data)}
		}
		got(res.Frames)
	}
	return nil
}

// badDecodeAnswer is a decode result that is not {"frames": […]}.
type badDecodeAnswer struct {
	err  error
	data string
}

func (e *badDecodeAnswer) Error() string {
	return fmt.Sprintf("answered %q with data that is not {\"frames\": […]}: %v", DecodeAction, e.err)
}

// record writes the driver's answers into the transcript; a frame it did not answer stays
// undecoded.
func (d *decoder) record(answers []decodeAnswer) {
	d.rec.update(func(t *transcript.Transcript, _ string) {
		d.rec.active = time.Now()
		byID := map[int]*transcript.DriverDecode{}
		for _, a := range answers {
			if a.ID < 1 || a.ID > len(t.Frames) {
				continue
			}
			dd := byID[a.ID]
			if dd == nil {
				dd = &transcript.DriverDecode{}
				byID[a.ID] = dd
				t.Frames[a.ID-1].Decoded = dd
			}
			if a.Refused {
				dd.Refused, dd.Reason = true, a.Reason
				continue
			}
			dd.Frames = append(dd.Frames, transcript.DecodedFrame{Type: a.Type, Opcode: a.Opcode, Fields: a.Fields})
		}
	})
}
