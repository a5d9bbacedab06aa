package browsertest

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Process is a process of the machine as Linux's /proc shows it, for tests
// that check that a browser leaves nothing running.
type Process struct {
	PID, PPID int
	// State is the one-letter state ps shows; "Z" is a zombie, a process
	// that has ended and waits to be reaped.
	State string
	// Cmdline is the command line, its arguments joined by spaces.
	Cmdline string
}

// Processes lists the processes of the machine, by pid.
func Processes(t testing.TB) map[int]Process {
	t.Helper()
	entries, err := os.ReadDir("/proc")
	if err != nil {
		t.Fatal(err)
	}
	ps := make(map[int]Process)
	for _, e := range entries {
		if p, ok := readProcess(e.Name()); ok {
			ps[p.PID] = p
		}
	}
	return ps
}

// Descendants returns the processes below pid: its children, theirs, and
// so on.
func Descendants(t testing.TB, pid int) []Process {
	t.Helper()
	ps := Processes(t)
	var out []Process
	for _, p := range ps {
		for q, ok := p, true; ok && q.PPID > 1; q, ok = ps[q.PPID] {
			if q.PPID == pid {
				out = append(out, p)
				break
			}
		}
	}
	return out
}

// Running reports whether pid is a process that has not ended.
func Running(pid int) bool {
	p, ok := readProcess(strconv.Itoa(pid))
	return ok && p.State != "Z"
}

// readProcess reads the process of the /proc entry name; it reports false
// for an entry that is not a process, or a process gone meanwhile.
func readProcess(name string) (Process, bool) {
	pid, err := strconv.Atoi(name)
	if err != nil {
		return Process{}, false
	}
	stat, err := os.ReadFile(filepath.Join("/proc", name, "stat"))
	if err != nil {
		return Process{}, false
	}
	// pid (comm) state ppid ...; comm may hold spaces and parentheses.
	s := string(stat)
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 2 {
		return Process{}, false
	}
	ppid, _ := strconv.Atoi(fields[1])
	cmdline, _ := os.ReadFile(filepath.Join("/proc", name, "cmdline"))
	return Process{PID: pid, PPID: ppid, State: fields[0], Cmdline: strings.ReplaceAll(string(cmdline), "\x00", " ")}, true
}

// TreePSS is the proportional set size, in bytes, of pid and every process
// below it: what a server and its browser cost the machine. It needs no
// testing.TB, so that a sampling goroutine may call it; a process gone
// meanwhile counts 0.
func TreePSS(pid int) int64 {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return 0
	}
	ps := make(map[int]Process)
	for _, e := range entries {
		if p, ok := readProcess(e.Name()); ok {
			ps[p.PID] = p
		}
	}
	var sum int64
	for _, p := range ps {
		for q, ok := p, true; ok; q, ok = ps[q.PPID] {
			if q.PID == pid {
				sum += PSS(p.PID)
				break
			}
			if q.PPID <= 1 {
				break
			}
		}
	}
	return sum
}

// PSS is the proportional set size of one process in bytes (its share of
// the memory it shares with others), 0 when it is gone.
func PSS(pid int) int64 {
	f, err := os.Open(filepath.Join("/proc", strconv.Itoa(pid), "smaps_rollup"))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if kb, ok := strings.CutPrefix(sc.Text(), "Pss:"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(kb, "kB")), 10, 64)
			if err != nil {
				return 0
			}
			return n << 10
		}
	}
	return 0
}
