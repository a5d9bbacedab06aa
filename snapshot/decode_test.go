package snapshot

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The hand-written decoders must read exactly what encoding/json reads into
// the same structs.
func TestDecodersMatchEncodingJSON(t *testing.T) {
	t.Parallel()
	for name, c := range loadCaptures(t) {
		for _, f := range c.Frames {
			got, err := decodeAXTree(f.AX)
			if err != nil {
				t.Fatalf("%s: decodeAXTree: %v", name, err)
			}
			var want axTree
			if err := json.Unmarshal(f.AX, &want); err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want.Nodes) {
				t.Errorf("%s: decodeAXTree differs from encoding/json", name)
			}
		}
		got, err := decodeDOM(c.DOM)
		if err != nil {
			t.Fatalf("%s: decodeDOM: %v", name, err)
		}
		var want domCapture
		if err := json.Unmarshal(c.DOM, &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: decodeDOM differs from encoding/json", name)
		}
	}
}

func TestDecodeLenientAndStrict(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in string
		ok bool
	}{
		{`{"nodes":[]}`, true},
		{`{"nodes":null}`, true},
		{` {"nodes":[{"nodeId":7,"childIds":null,"role":null,"name":{"type":"x","value":"caf\u00e9 \"q\""}}]} `, true},
		{`{"nodes":[{"nodeId":"1","properties":[{"name":"p","value":{"value":{"deep":[1,{"a":null}]}}}]}]}`, true},
		{`{"nodes":[}`, false},
		{`{"nodes":[{"nodeId":"1"}]`, false},
		{`{"nodes":[{"nodeId":"1"}]}x`, false},
		{`{"nodes":"`, false},
		{``, false},
	}
	for _, tt := range tests {
		nodes, err := decodeAXTree([]byte(tt.in))
		if (err == nil) != tt.ok {
			t.Errorf("decodeAXTree(%q) error = %v, want ok %v", tt.in, err, tt.ok)
		}
		if tt.ok && len(nodes) == 1 && nodes[0].Name.Value.s != "" && nodes[0].Name.Value.s != `café "q"` {
			t.Errorf("escaped name = %q", nodes[0].Name.Value.s)
		}
	}
}

func FuzzDecode(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"nodeId":"1","ignored":false,"role":{"type":"role","value":"button"},"childIds":["2"],"backendDOMNodeId":5}]}`))
	f.Add([]byte(`{"documents":[{"nodes":{"parentIndex":[-1,0],"attributes":[[],[1,2]]},"layout":{"bounds":[[0,0,1.5,2]]}}],"strings":["a","b","c"]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// Neither may panic, whatever the input.
		decodeAXTree(data)
		decodeDOM(data)
	})
}

// FuzzBuild feeds Build mangled trees and layouts: whatever Chromium sends,
// Build must not panic.
func FuzzBuild(f *testing.F) {
	c := tcapture(
		tnode{tag: "SECTION", role: "region", name: "R", box: []float64{0, 0, 100, 50}, kids: []tnode{button("A", 0, 0, 10, 10)}},
		tnode{tag: "IFRAME", role: "Iframe", box: []float64{0, 60, 100, 50}, frame: &tframe{url: "f", vw: 100, vh: 50, kids: []tnode{button("B", 0, 0, 10, 10)}}},
		text("Hello", 0, 120, 50, 10),
	)
	f.Add([]byte(c.Frames[0].AX), []byte(c.Frames[1].AX), []byte(c.DOM))
	f.Fuzz(func(t *testing.T, ax0, ax1, dom []byte) {
		c.Frames[0].AX, c.Frames[1].AX, c.DOM = ax0, ax1, dom
		s, _, _ := Build(c, Options{ViewportOnly: len(dom)%2 == 0}, 0)
		data, err := json.Marshal(s)
		if err != nil {
			t.Fatal(err)
		}
		if err := Validate(data); err != nil {
			t.Fatalf("%v\n%s", err, data)
		}
	})
}

// FuzzDecodeAXTreeMatchesEncodingJSON holds the hand-written decoder to
// encoding/json on arbitrary input: where both read it, they read the same
// nodes. (The decoder may refuse what encoding/json reads: Build then falls
// back to encoding/json.)
func FuzzDecodeAXTreeMatchesEncodingJSON(f *testing.F) {
	f.Add([]byte(`{"nodes":[{"nodeId":"1","ignored":false,"role":{"type":"role","value":"button"},"name":{"type":"computedString","value":"Buy \u00e9"},"childIds":["2"],"backendDOMNodeId":5}]}`))
	f.Add([]byte(`{"nodes":[{"nodeId":"2","properties":[{"name":"checked","value":{"type":"tristate","value":"mixed"}},{"name":"level","value":{"type":"integer","value":2}}]}]}`))
	f.Add([]byte(`{"nodes":null}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		got, err := decodeAXTree(data)
		if err != nil {
			return
		}
		var want axTree
		if json.Unmarshal(data, &want) != nil {
			return
		}
		if !reflect.DeepEqual(got, want.Nodes) {
			t.Errorf("decodeAXTree(%s) =\n%+v\nencoding/json:\n%+v", data, got, want.Nodes)
		}
	})
}
