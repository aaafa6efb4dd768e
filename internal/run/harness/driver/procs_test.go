package driver_test

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// procStat is the part of /proc/PID/stat the specs need.
type procStat struct {
	pid, ppid, pgrp int
	state           byte
}

func readProcs() []procStat {
	paths, _ := filepath.Glob("/proc/[0-9]*/stat")
	var out []procStat
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp ...; comm may contain spaces.
		s := string(b)
		i := strings.LastIndexByte(s, ')')
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 3 {
			continue
		}
		pid, _ := strconv.Atoi(strings.Fields(s[:i])[0])
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp, state: f[0][0]})
	}
	return out
}

// children lists this process's child processes, zombies included: a
// zombie child is one that was never waited for.
func children() []int {
	var pids []int
	for _, p := range readProcs() {
		if p.ppid == os.Getpid() {
			pids = append(pids, p.pid)
		}
	}
	return pids
}
