package browsertest

import (
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// The process kinds of a server's tree, for the benchmarks' accounts of
// where CPU time and memory go.
const (
	KindServer   = "server"   // the root process when it is not a browser: chaperone
	KindBrowser  = "browser"  // Chromium's browser process
	KindRenderer = "renderer" // a renderer: pages and out-of-process frames
	KindGPU      = "gpu"      // the GPU process (software compositing with --disable-gpu)
	KindUtility  = "utility"  // network, storage, audio services
	KindZygote   = "zygote"   // the zygotes renderers fork from
	KindOther    = "other"
	// KindEnded is the CPU time of processes that ended during a
	// measurement (counted in their parent's times for reaped children):
	// nearly all of them renderers of closed sessions.
	KindEnded = "ended"
)

// Kinds lists the process kinds in the order the tables show them.
var Kinds = []string{KindServer, KindBrowser, KindRenderer, KindEnded, KindGPU, KindUtility, KindZygote, KindOther}

// clockTicks is USER_HZ, the unit of /proc/<pid>/stat's times: 100 on every
// Linux architecture Go runs on (sysconf is not in the standard library).
const clockTicks = 100

// KindOf names the kind of process p; root is the pid of the tree's root,
// which is the server unless it is a browser itself.
func KindOf(p Process, root int) string {
	typ := ""
	for _, arg := range strings.Fields(p.Cmdline) {
		if v, ok := strings.CutPrefix(arg, "--type="); ok {
			typ = v
			break
		}
	}
	switch {
	case typ == "renderer":
		return KindRenderer
	case typ == "gpu-process":
		return KindGPU
	case typ == "utility":
		return KindUtility
	case typ == "zygote":
		return KindZygote
	case typ != "":
		return KindOther
	case p.PID == root && !strings.Contains(p.Cmdline, "chrom"):
		return KindServer
	case strings.Contains(p.Cmdline, "chrom"):
		return KindBrowser
	}
	return KindOther
}

// Tree lists pid and every process below it.
func Tree(pid int) []Process {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	ps := make(map[int]Process)
	for _, e := range entries {
		if p, ok := readProcess(e.Name()); ok {
			ps[p.PID] = p
		}
	}
	var out []Process
	for _, p := range ps {
		for q, ok := p, true; ok; q, ok = ps[q.PPID] {
			if q.PID == pid {
				out = append(out, p)
				break
			}
			if q.PPID <= 1 {
				break
			}
		}
	}
	return out
}

// CPUTime is the CPU time (user and system) pid has used, 0 when it is gone.
func CPUTime(pid int) time.Duration {
	own, _ := cpuTimes(pid)
	return own
}

// cpuTimes is the CPU time pid has used and the time of its children that
// ended and that it reaped.
func cpuTimes(pid int) (own, children time.Duration) {
	stat, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "stat"))
	if err != nil {
		return 0, 0
	}
	s := string(stat)
	// After "pid (comm)": utime, stime, cutime and cstime are the 12th to
	// 15th fields (14 to 17 of the whole line).
	fields := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(fields) < 15 {
		return 0, 0
	}
	var t [4]int64
	for i := range t {
		t[i], _ = strconv.ParseInt(fields[11+i], 10, 64)
	}
	tick := func(n int64) time.Duration { return time.Duration(n) * time.Second / clockTicks }
	return tick(t[0] + t[1]), tick(t[2] + t[3])
}

// CPUSnapshot is the CPU time a process tree has used so far, per process.
type CPUSnapshot struct {
	root  int
	procs map[int]procCPU
}

type procCPU struct {
	kind          string
	own, children time.Duration
}

// SnapshotCPU reads the CPU time of root and every process below it.
func SnapshotCPU(root int) CPUSnapshot {
	s := CPUSnapshot{root: root, procs: map[int]procCPU{}}
	for _, p := range Tree(root) {
		own, children := cpuTimes(p.PID)
		s.procs[p.PID] = procCPU{KindOf(p, root), own, children}
	}
	return s
}

// Since is the CPU time the tree used from start to s, in nanoseconds per
// process kind. The time of processes that ended meanwhile (their parents
// reaped them) is KindEnded, which also takes back what they had used
// before start.
func (s CPUSnapshot) Since(start CPUSnapshot) ByKind {
	out := ByKind{}
	for pid, p := range s.procs {
		kind := p.kind
		if q, ok := start.procs[pid]; ok {
			if kind == KindOther {
				kind = q.kind // ended, not yet reaped: no command line
			}
			p.own -= q.own
			p.children -= q.children
		}
		out[kind] += int64(p.own)
		out[KindEnded] += int64(p.children)
	}
	for pid, q := range start.procs {
		if _, ok := s.procs[pid]; !ok {
			out[KindEnded] -= int64(q.own + q.children)
		}
	}
	return out
}

// ByKind is a figure per process kind.
type ByKind map[string]int64

// Total is the sum over every kind.
func (k ByKind) Total() int64 {
	var sum int64
	for _, v := range k {
		sum += v
	}
	return sum
}

// PSSWatch samples the PSS of a process tree, by process kind, until Stop.
// Reading a process's PSS costs the reader CPU time (the kernel walks its
// pages): keep the reader out of the CPU being measured.
type PSSWatch struct {
	root  int
	done  chan struct{}
	wg    sync.WaitGroup
	mu    sync.Mutex
	peak  ByKind // peak PSS per kind, each at its own moment
	top   int64  // peak PSS of the whole tree
	count map[string]map[int]bool
}

// WatchPSS starts sampling the tree of root every interval.
func WatchPSS(root int, interval time.Duration) *PSSWatch {
	w := &PSSWatch{root: root, done: make(chan struct{}), peak: ByKind{}, count: map[string]map[int]bool{}}
	w.sample()
	w.wg.Go(func() {
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-w.done:
				return
			case <-t.C:
				w.sample()
			}
		}
	})
	return w
}

func (w *PSSWatch) sample() {
	pss := ByKind{}
	kinds := map[int]string{}
	for _, p := range Tree(w.root) {
		k := KindOf(p, w.root)
		pss[k] += PSS(p.PID)
		kinds[p.PID] = k
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	for pid, k := range kinds {
		if w.count[k] == nil {
			w.count[k] = map[int]bool{}
		}
		w.count[k][pid] = true
	}
	for k, v := range pss {
		w.peak[k] = max(w.peak[k], v)
	}
	w.top = max(w.top, pss.Total())
}

// Stop takes a last sample and ends the sampling. It returns the peak PSS
// of the whole tree and, per kind, the peak of that kind, in bytes.
func (w *PSSWatch) Stop() (int64, ByKind) {
	close(w.done)
	w.wg.Wait()
	w.sample()
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.top, maps.Clone(w.peak)
}

// Processes is how many processes of each kind the samples saw.
func (w *PSSWatch) Processes() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	out := map[string]int{}
	for k, pids := range w.count {
		out[k] = len(pids)
	}
	return out
}

// PSSByKind is the PSS of the tree of root now, per process kind, in bytes.
func PSSByKind(root int) ByKind {
	out := ByKind{}
	for _, p := range Tree(root) {
		out[KindOf(p, root)] += PSS(p.PID)
	}
	return out
}

// FormatKinds renders a figure per kind (scaled by div and printed with
// format) as "kind=value" pairs in Kinds' order, leaving out kinds with none.
func FormatKinds(k ByKind, div float64, format string) string {
	var parts []string
	for _, kind := range Kinds {
		if v, ok := k[kind]; ok {
			parts = append(parts, kind+"="+fmt.Sprintf(format, float64(v)/div))
		}
	}
	for kind, v := range k {
		if !slices.Contains(Kinds, kind) {
			parts = append(parts, kind+"="+fmt.Sprintf(format, float64(v)/div))
		}
	}
	return strings.Join(parts, " ")
}
