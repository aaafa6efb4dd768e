// Command fakedriver is a tiny subject for the harness specs: a host serving a terminal-like
// stream over WebSocket and a client that subscribes, renders and types, speaking the driver
// protocol. Its first argument, the mode, makes it misbehave on purpose:
//
//	hang          ignore stop, SIGTERM and stdin EOF, with a grandchild in the process group
//	crash-input   exit 3 when asked to send or receive input (every mode: a client asked to
//	              send "crash\r")
//	garbage       write a line that is not JSON after hello
//	no-ready      say hello and never ready
//	no-input-op   (host) the decoder does not know Input (opcode 7): refuse and drop it
//	lose-output   (client) render nothing of Output frames
//	lose-once     (client) like lose-output, the first time only (a file in $FAKE_STATE
//	              remembers): a flaky client
//	span          (host) send output as OutputSpan (opcode 15)
//	trailing      (host) 300ms after each input, write "late\r\n" as Output: a frame that
//	              trails the step's barrier
//	slow-reply    (host) 2.5s after each Subscribe, answer it with subscribeDone carrying
//	              its streamId: a reply later than the settle bound and the journey's end
//
// With FAKE_LANES set it serves lanes (open-lane, close-lane): every lane is a host or client
// of its own, whose observations carry the lane. With FAKE_LANES=untagged a lane's
// observations carry no lane (a driver that breaks the protocol's rule). With FAKE_GATE=ROLE
// the driver of that role holds the first action of its second lane until a third lane is
// open, so two lanes are surely open at once (the first is a reference's, which runs alone).
package main

import (
	"bufio"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"os/signal"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gorilla/websocket"
)

var (
	mode   string
	outMu  sync.Mutex
	stdout = bufio.NewWriter(os.Stdout)
)

func send(v any) {
	outMu.Lock()
	defer outMu.Unlock()
	b, _ := json.Marshal(v)
	stdout.Write(append(b, '\n'))
	stdout.Flush()
}

func observe(what string, data any) {
	send(map[string]any{"type": "observe", "what": what, "data": data})
}

func frame(op byte, payload []byte) []byte {
	b := make([]byte, 16, 16+len(payload))
	b[0], b[1], b[2] = 0x74, 1, op
	binary.LittleEndian.PutUint32(b[4:], 1)
	return append(b, payload...)
}

// decode names raw binary frames with this build's decoder (the decode action): the
// opcodes its role knows, refusing the others.
func decode(role string, raw json.RawMessage) any {
	var req struct {
		Frames []struct {
			ID   int    `json:"id"`
			Data []byte `json:"data"`
		} `json:"frames"`
	}
	json.Unmarshal(raw, &req)
	known := map[byte]bool{1: true, 2: true, 3: true, 4: true, 5: true, 6: true, 12: true}
	if role == "host" {
		known = map[byte]bool{7: mode != "no-input-op", 9: true, 10: true, 11: true, 13: true}
	}
	var out []map[string]any
	for _, f := range req.Frames {
		switch {
		case len(f.Data) < 16 || f.Data[0] != 0x74:
			out = append(out, map[string]any{"id": f.ID, "refused": true, "reason": "not a frame"})
		case !known[f.Data[2]]:
			out = append(out, map[string]any{"id": f.ID, "refused": true, "reason": fmt.Sprintf("unknown opcode %d", f.Data[2])})
		default:
			out = append(out, map[string]any{"id": f.ID, "opcode": int(f.Data[2])})
		}
	}
	return map[string]any{"frames": out}
}

// firstTime reports, once per $FAKE_STATE directory, that this is the first time it is asked.
func firstTime() bool {
	dir := os.Getenv("FAKE_STATE")
	if dir == "" {
		return false
	}
	f, err := os.OpenFile(dir+"/seen", os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

type action struct {
	ID     int             `json:"id"`
	Lane   int             `json:"lane"`
	Action string          `json:"action"`
	Args   json.RawMessage `json:"args"`
}

// observer writes one instance's observations.
type observer func(what string, data any)

// laneObserver tags observations with the lane (unless FAKE_LANES=untagged).
func laneObserver(lane int) observer {
	if lane == 0 || os.Getenv("FAKE_LANES") == "untagged" {
		return observe
	}
	return func(what string, data any) {
		send(map[string]any{"type": "observe", "lane": lane, "what": what, "data": data})
	}
}

type args struct {
	Bytes []byte `json:"bytes"`
}

func main() {
	role := os.Getenv("SKEWTEST_ROLE")
	if len(os.Args) > 1 {
		mode = os.Args[1]
	}
	// FAKE_PIDDIR collects the pids of every process a driver starts, so specs can prove
	// none outlives its pairing.
	pidDir := os.Getenv("FAKE_PIDDIR")
	recordPID := func(pid int) {
		if pidDir != "" {
			// One file per process, whatever its pid: drivers run in PID namespaces of their
			// own, where two processes may have the same number.
			if f, err := os.CreateTemp(pidDir, fmt.Sprintf("pid-%d-", pid)); err == nil {
				f.Close()
			}
		}
	}
	recordPID(os.Getpid())
	if mode == "hang" {
		signal.Ignore(syscall.SIGTERM, syscall.SIGINT)
		sleeper := exec.Command("sleep", "1000") // a grandchild in our process group
		if sleeper.Start() == nil {
			recordPID(sleeper.Process.Pid)
		}
	}
	actions := []string{"subscribe", "input", "emit-output", "unsubscribe", "decode", "stop"}
	if os.Getenv("FAKE_LANES") != "" {
		actions = append(actions, "open-lane", "close-lane")
	}
	send(map[string]any{"type": "hello", "protocol": 1, "role": role, "kind": os.Getenv("SKEWTEST_KIND"),
		"build":   map[string]string{"version": os.Getenv("SKEWTEST_BUILD_LABEL")},
		"actions": actions})
	if mode == "garbage" {
		outMu.Lock()
		fmt.Fprintln(stdout, "this is not json")
		stdout.Flush()
		outMu.Unlock()
	}
	if mode == "no-ready" {
		select {}
	}
	var handle func(a action, x args) error
	if role == "host" {
		var url string
		handle, url, _ = host(observe)
		send(map[string]any{"type": "ready", "url": url})
	} else {
		handle, _ = client(observe, os.Getenv("SKEWTEST_HOST_URL"))
		send(map[string]any{"type": "ready"})
	}
	type lane struct {
		handle func(a action, x args) error
		close  func()
	}
	lanes := map[int]*lane{}
	gated, opened := os.Getenv("FAKE_GATE") == role, 0
	third := make(chan struct{}) // closed when the third lane opens
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(nil, 64<<20)
	for in.Scan() {
		var a action
		if err := json.Unmarshal(in.Bytes(), &a); err != nil {
			continue
		}
		if a.Action == "stop" {
			if mode == "hang" {
				continue
			}
			send(map[string]any{"type": "result", "id": a.ID, "ok": true})
			os.Exit(0)
		}
		if a.Action == "decode" {
			send(map[string]any{"type": "result", "id": a.ID, "ok": true, "data": decode(role, a.Args)})
			continue
		}
		var la struct {
			Lane    int    `json:"lane"`
			HostURL string `json:"hostURL"`
		}
		switch a.Action {
		case "open-lane":
			json.Unmarshal(a.Args, &la)
			l := &lane{}
			data := map[string]any{}
			if role == "host" {
				var url string
				l.handle, url, l.close = host(laneObserver(la.Lane))
				data["url"] = url
			} else {
				l.handle, l.close = client(laneObserver(la.Lane), la.HostURL)
			}
			lanes[la.Lane] = l
			if opened++; opened == 3 {
				close(third)
			}
			send(map[string]any{"type": "result", "id": a.ID, "ok": true, "data": data})
			continue
		case "close-lane":
			json.Unmarshal(a.Args, &la)
			if l := lanes[la.Lane]; l != nil {
				l.close()
				delete(lanes, la.Lane)
			}
			send(map[string]any{"type": "result", "id": a.ID, "ok": true})
			continue
		}
		h := handle
		if a.Lane != 0 {
			l := lanes[a.Lane]
			if l == nil {
				send(map[string]any{"type": "result", "id": a.ID, "ok": false, "error": map[string]string{"code": "bad-args", "message": "no lane"}})
				continue
			}
			h = l.handle
		}
		var x args
		json.Unmarshal(a.Args, &x)
		if gated && opened == 2 && a.Lane != 0 {
			gated = false
			go func() { <-third; perform(h, a, x) }()
			continue
		}
		perform(h, a, x)
	}
	if mode == "hang" {
		select {}
	}
}

// perform runs an action and sends its result.
func perform(h func(a action, x args) error, a action, x args) {
	if err := h(a, x); err != nil {
		send(map[string]any{"type": "result", "id": a.ID, "ok": false, "error": map[string]string{"code": "unsupported-action", "message": err.Error()}})
		return
	}
	send(map[string]any{"type": "result", "id": a.ID, "ok": true})
}

func host(observe observer) (handle func(a action, x args) error, url string, close func()) {
	var mu sync.Mutex
	var conns []*websocket.Conn
	scrollback := []byte("init\r\n")
	observe("pty-output", map[string]any{"bytes": scrollback})
	up := websocket.Upgrader{}
	mux := http.NewServeMux()
	mux.HandleFunc("/terminal.multiplex", func(w http.ResponseWriter, r *http.Request) {
		c, err := up.Upgrade(w, r, nil)
		if err != nil {
			return
		}
		var wmu sync.Mutex
		write := func(t int, b []byte) {
			wmu.Lock()
			defer wmu.Unlock()
			c.WriteMessage(t, b)
		}
		mu.Lock()
		conns = append(conns, c)
		mu.Unlock()
		write(websocket.TextMessage, []byte(`{"type":"ready"}`))
		for {
			_, msg, err := c.ReadMessage()
			if err != nil {
				return
			}
			op := msg[2]
			if op == 7 && mode == "no-input-op" {
				observe("refused", map[string]any{"direction": "C>H", "opcode": 7, "reason": "unknown opcode 7"})
				continue
			}
			switch op {
			case 9:
				write(websocket.TextMessage, []byte(`{"type":"subscribed","capabilities":{}}`))
				if mode == "slow-reply" { // answers the Subscribe late, by its streamId
					time.AfterFunc(2500*time.Millisecond, func() {
						write(websocket.TextMessage, []byte(`{"type":"subscribeDone","streamId":1}`))
					})
				}
				write(websocket.BinaryMessage, frame(2, []byte(`{"kind":"scrollback"}`)))
				mu.Lock()
				snap := append([]byte(nil), scrollback...)
				mu.Unlock()
				write(websocket.BinaryMessage, frame(3, snap))
				write(websocket.BinaryMessage, frame(4, nil))
				observe("snapshot-sent", map[string]any{"bytes": snap})
			case 7:
				if mode == "crash-input" {
					os.Exit(3)
				}
				observe("input", map[string]any{"bytes": msg[16:]})
				if mode == "trailing" {
					time.AfterFunc(300*time.Millisecond, func() {
						late := []byte("late\r\n")
						mu.Lock()
						scrollback = append(scrollback, late...)
						mu.Unlock()
						observe("pty-output", map[string]any{"bytes": late})
						write(websocket.BinaryMessage, frame(1, late))
					})
				}
			}
		}
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	close = func() {
		srv.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	}
	return func(a action, x args) error {
		switch a.Action {
		case "emit-output":
			mu.Lock()
			scrollback = append(scrollback, x.Bytes...)
			mu.Unlock()
			observe("pty-output", map[string]any{"bytes": x.Bytes})
			f := frame(1, x.Bytes)
			if mode == "span" {
				p, _ := json.Marshal(map[string]any{"data": string(x.Bytes), "rawLength": len(x.Bytes), "transformed": true})
				f = frame(15, p)
			}
			mu.Lock()
			for _, c := range conns {
				c.WriteMessage(websocket.BinaryMessage, f)
			}
			mu.Unlock()
			return nil
		}
		return fmt.Errorf("no action %q", a.Action)
	}, "ws://" + ln.Addr().String(), close
}

func client(observe observer, hostURL string) (handle func(a action, x args) error, close func()) {
	var c *websocket.Conn
	var screen []byte
	var mu sync.Mutex // guards screen for wait-screen
	shown := sync.NewCond(&mu)
	return func(a action, x args) error {
			switch a.Action {
			case "subscribe":
				var err error
				c, _, err = websocket.DefaultDialer.Dial(hostURL+"/terminal.multiplex", nil)
				if err != nil {
					return err
				}
				c.WriteMessage(websocket.BinaryMessage, frame(9, []byte(`{"streamId":1}`)))
				go func() {
					var snap []byte
					for {
						t, msg, err := c.ReadMessage()
						if err != nil {
							observe("transport-closed", map[string]any{"reason": err.Error()})
							return
						}
						if t == websocket.TextMessage {
							if mode == "strict-text" { // refuses keys it does not know (the future-peer specs)
								var obj map[string]any
								json.Unmarshal(msg, &obj)
								if k := unknownKey(obj); k != "" {
									observe("refused", map[string]any{"direction": "H>C", "type": obj["type"], "reason": "unknown key " + k})
									continue
								}
							}
							if strings.Contains(string(msg), "subscribed") {
								observe("subscribed", json.RawMessage(msg))
							}
							continue
						}
						switch msg[2] {
						case 2:
							snap = nil
						case 3:
							snap = append(snap, msg[16:]...)
						case 4:
							mu.Lock()
							screen = append([]byte(nil), snap...)
							shown.Broadcast()
							mu.Unlock()
							observe("rendered-snapshot", map[string]any{"bytes": snap, "screen": screen})
						case 1:
							mu.Lock()
							if mode != "lose-output" && !(mode == "lose-once" && firstTime()) {
								screen = append(screen, msg[16:]...)
							}
							shown.Broadcast()
							mu.Unlock()
							observe("rendered-output", map[string]any{"bytes": msg[16:], "screen": screen})
						default:
							observe("refused", map[string]any{"direction": "H>C", "opcode": msg[2], "reason": "unknown opcode"})
						}
					}
				}()
				return nil
			case "input":
				if mode == "crash-input" || string(x.Bytes) == "crash\r" {
					os.Exit(3)
				}
				return c.WriteMessage(websocket.BinaryMessage, frame(7, x.Bytes))
			case "unsubscribe":
				return c.WriteMessage(websocket.BinaryMessage, frame(10, nil))
			case "wait-screen": // an action whose result waits for the peer: until the screen shows bytes
				mu.Lock()
				defer mu.Unlock()
				for !strings.Contains(string(screen), string(x.Bytes)) {
					shown.Wait()
				}
				return nil
			}
			return fmt.Errorf("no action %q", a.Action)
		}, func() {
			if c != nil {
				c.Close()
			}
		}
}

// unknownKey returns a key of a text frame that the fake client does not know, or "".
func unknownKey(obj map[string]any) string {
	for k := range obj {
		switch k {
		case "type", "capabilities":
		default:
			return k
		}
	}
	return ""
}
