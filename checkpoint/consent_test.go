package checkpoint_test

import (
	"strings"
	"testing"

	"github.com/chaperone-mcp/chaperone/checkpoint"
)

func TestProfileConsent(t *testing.T) {
	tests := []struct {
		json    string
		want    checkpoint.Consent
		wantErr string
	}{
		{`{"name":"x"}`, checkpoint.ConsentLeave, ""},
		{`{"name":"x","consent":"leave"}`, checkpoint.ConsentLeave, ""},
		{`{"name":"x","consent":"reject"}`, checkpoint.ConsentReject, ""},
		{`{"name":"x","consent":"accept"}`, checkpoint.ConsentAccept, ""},
		{`{"name":"x","consent":"ask"}`, checkpoint.ConsentAsk, ""},
		{`{"name":"x","consent":"Reject"}`, "", `consent: must be leave, reject, accept or ask, got "Reject"`},
		{`{"name":"x","consent":true}`, "", "consent: must be a string"},
	}
	for _, tt := range tests {
		p, err := checkpoint.ParseProfile([]byte(tt.json))
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want %q", tt.json, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.json, err)
			continue
		}
		if got := checkpoint.NewGate(p, nil, checkpoint.Options{}).Consent(); got != tt.want {
			t.Errorf("%s: consent %q, want %q", tt.json, got, tt.want)
		}
	}
	if got := checkpoint.NewGate(nil, nil, checkpoint.Options{}).Consent(); got != checkpoint.ConsentLeave {
		t.Errorf("no profile: consent %q, want leave", got)
	}
}
