package browsertest_test

import (
	"os"
	"os/exec"
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestKindOf(t *testing.T) {
	const root = 10
	for _, tc := range []struct {
		pid     int
		cmdline string
		want    string
	}{
		{root, "/tmp/chaperone serve --http 127.0.0.1:0", browsertest.KindServer},
		{11, "/usr/lib/chromium/chromium --no-first-run --headless", browsertest.KindBrowser},
		{12, "/usr/lib/chromium/chromium --type=renderer --top-chrome-webui", browsertest.KindRenderer},
		{13, "/usr/lib/chromium/chromium --type=gpu-process", browsertest.KindGPU},
		{14, "/usr/lib/chromium/chromium --type=utility --utility-sub-type=network.mojom.NetworkService", browsertest.KindUtility},
		{15, "/usr/lib/chromium/chromium --type=zygote --no-sandbox", browsertest.KindZygote},
		{16, "/usr/lib/chromium/chromium --type=broker", browsertest.KindOther},
		{17, "", browsertest.KindOther}, // ended, not yet reaped
	} {
		p := browsertest.Process{PID: tc.pid, PPID: 1, Cmdline: tc.cmdline}
		if got := browsertest.KindOf(p, root); got != tc.want {
			t.Errorf("KindOf(%q) = %s, want %s", tc.cmdline, got, tc.want)
		}
	}
}

// A child that ended and was reaped still counts: as KindEnded, through its
// parent's times, which is how a closed session's renderers are counted.
func TestCPUOfEndedChildren(t *testing.T) {
	start := browsertest.SnapshotCPU(os.Getpid())
	burn := exec.Command("/bin/sh", "-c", "i=0; while [ $i -lt 50000 ]; do i=$((i+1)); done")
	if err := burn.Run(); err != nil {
		t.Fatal(err)
	}
	used := burn.ProcessState.UserTime() + burn.ProcessState.SystemTime()
	cpu := browsertest.SnapshotCPU(os.Getpid()).Since(start)
	// Both come from the same clock ticks; the parent's count may round
	// differently by a tick.
	if got := cpu[browsertest.KindEnded]; got < int64(used)-2e7 || used <= 0 {
		t.Errorf("ended children's CPU %d ns, the child used %s", got, used)
	}
}
