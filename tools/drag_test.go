package tools

import (
	"testing"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
)

func TestDrag(t *testing.T) {
	tests := []struct {
		name                 string
		fromRole, from       string
		toRole, to           string
		resultID, wantResult string
	}{
		{"HTML5 drag and drop onto a region", "button", "Write tests", "region", "Done column", "board-result", "Write tests is in Done column"},
		{"a sortable list on pointer events", "option", "Gamma", "option", "Alpha", "queue-order", "Gamma, Alpha, Beta"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			h := openWith(t, "/variants/drag", Config{Caps: []string{CapDrag}})
			s := h.snap(true)
			h.ok(Drag, map[string]any{"from_ref": browsertest.Ref(t, s, tc.fromRole, tc.from), "to_ref": browsertest.Ref(t, s, tc.toRole, tc.to)})
			if got := h.evalString(`document.getElementById('` + tc.resultID + `').textContent`); got != tc.wantResult {
				t.Errorf("#%s = %q, want %q", tc.resultID, got, tc.wantResult)
			}
		})
	}
}
