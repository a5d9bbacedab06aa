package browser

import "testing"

// TestNodeID checks that a capture's backend node id and the package's
// nodeID say the same thing: the frame in the high bits, the id in that
// frame's process in the low ones, and back.
func TestNodeID(t *testing.T) {
	t.Parallel()
	tests := []struct {
		id           int64
		frame, local int64
	}{
		{id: 7, frame: 0, local: 7},
		{id: 1<<nodeShift - 1, frame: 0, local: 1<<nodeShift - 1},
		{id: NodeBase(1) + 7, frame: 1, local: 7},
		{id: NodeBase(3) + 1<<31, frame: 3, local: 1 << 31},
		{id: NodeBase(1 << 20), frame: 1 << 20, local: 0},
	}
	for _, tt := range tests {
		n := nodeOf(tt.id)
		if n.frame != tt.frame || int64(n.local) != tt.local {
			t.Errorf("nodeOf(%d) = frame %d, local %d; want frame %d, local %d", tt.id, n.frame, n.local, tt.frame, tt.local)
		}
		if n.id() != tt.id {
			t.Errorf("nodeOf(%d).id() = %d", tt.id, n.id())
		}
		var f *remoteFrame
		if tt.frame != 0 {
			f = &remoteFrame{index: tt.frame}
		}
		if got := nodeIn(f, tt.local); got != n {
			t.Errorf("nodeIn(frame %d, %d) = %+v, want %+v", tt.frame, tt.local, got, n)
		}
	}
}
