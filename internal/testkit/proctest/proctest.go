// Package proctest finds processes by a marker in their environment, for specs that check
// that no process of theirs is left (Linux /proc; elsewhere it finds nothing), and keeps
// every core busy (Saturate) for specs that prove a verdict does not depend on load.
package proctest

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// Process is a live process found in /proc.
type Process struct {
	PID, PPID int
	Cmdline   string
}

func (p Process) String() string { return fmt.Sprintf("%d (ppid %d) %s", p.PID, p.PPID, p.Cmdline) }

var counter atomic.Int64

// Marker returns a NAME=VALUE environment entry unique to this call: give it to a process
// and Find finds every descendant that kept its environment.
func Marker() string {
	return fmt.Sprintf("SKEWTEST_PROCTEST_MARKER=%d-%d-%d", os.Getpid(), time.Now().UnixNano(), counter.Add(1))
}

// Find lists the live processes (zombies left out) whose environment holds marker, a
// NAME=VALUE entry (or a prefix of one).
func Find(marker string) []Process {
	var out []Process
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, dir := range dirs {
		env, err := os.ReadFile(filepath.Join(dir, "environ"))
		if err != nil || !hasEntry(env, marker) {
			continue
		}
		stat, err := os.ReadFile(filepath.Join(dir, "stat"))
		if err != nil {
			continue
		}
		s := string(stat)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 || f[0] == "Z" || f[0] == "X" {
			continue
		}
		pid, _ := strconv.Atoi(filepath.Base(dir))
		ppid, _ := strconv.Atoi(f[1])
		cmdline, _ := os.ReadFile(filepath.Join(dir, "cmdline"))
		out = append(out, Process{PID: pid, PPID: ppid, Cmdline: strings.TrimSpace(string(bytes.ReplaceAll(cmdline, []byte{0}, []byte{' '})))})
	}
	return out
}

func hasEntry(environ []byte, marker string) bool {
	for _, kv := range bytes.Split(environ, []byte{0}) {
		if bytes.HasPrefix(kv, []byte(marker)) {
			return true
		}
	}
	return false
}
