package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	coltracepb "go.opentelemetry.io/proto/otlp/collector/trace/v1"
	tracepb "go.opentelemetry.io/proto/otlp/trace/v1"
	"google.golang.org/protobuf/proto"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// Metrics and traces (issue 30, item 4): /metrics read by Prometheus' own
// text parser from the built binary, and one tool call's spans as an OTLP
// collector receives them.

// metricsAddrRE finds the metrics listener's address in a server's log.
var metricsAddrRE = regexp.MustCompile(`msg="serving metrics" addr=(\S+)`)

// metricsBase is the base URL of the --metrics-listen listener of p.
func metricsBase(t *testing.T, p *serveProc) string {
	t.Helper()
	m := metricsAddrRE.FindStringSubmatch(p.stderr.String())
	if m == nil {
		t.Fatalf("the server did not say where it serves metrics:\n%s", p.stderr.String())
	}
	return "http://" + m[1]
}

// scrape GETs url with the bearer token (none when empty) and parses the
// body with Prometheus' text parser.
func scrape(t testing.TB, url, token string) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, url, nil)
	if err != nil {
		t.Fatal(err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %s %v\n%s", url, resp.Status, err, body)
	}
	var p expfmt.TextParser
	families, err := p.TextToMetricFamilies(bytes.NewReader(body))
	if err != nil {
		t.Fatalf("GET %s: not Prometheus' text format: %v\n%s", url, err, body)
	}
	return families, string(body)
}

// sample returns the value of the metric name with exactly labels (a
// counter's or gauge's value, a histogram's count), and whether there is
// one.
func sample(families map[string]*dto.MetricFamily, name string, labels map[string]string) (float64, bool) {
	f, ok := families[name]
	if !ok {
		return 0, false
	}
next:
	for _, m := range f.GetMetric() {
		if len(m.GetLabel()) != len(labels) {
			continue
		}
		for _, l := range m.GetLabel() {
			if v, ok := labels[l.GetName()]; !ok || v != l.GetValue() {
				continue next
			}
		}
		switch {
		case m.GetCounter() != nil:
			return m.GetCounter().GetValue(), true
		case m.GetGauge() != nil:
			return m.GetGauge().GetValue(), true
		case m.GetHistogram() != nil:
			return float64(m.GetHistogram().GetSampleCount()), true
		}
	}
	return 0, false
}

// wantSample fails the test unless the metric's value is want.
func wantSample(t *testing.T, families map[string]*dto.MetricFamily, name string, labels map[string]string, want float64) {
	t.Helper()
	got, ok := sample(families, name, labels)
	if !ok || got != want {
		t.Errorf("%s%v = %v (found: %v), want %v", name, labels, got, ok, want)
	}
}

// TestMetricsScrape runs the demo flow over HTTP with a token, a person
// approving its last step through the webhook, and reads /metrics as
// Prometheus would, on the MCP listener with the token and on
// --metrics-listen without: the calls counted by tool and code, the
// approval waiting while it waits and its wait observed, the settle waits.
// Without the token, from another Host or Origin, the MCP listener refuses
// the scrape.
func TestMetricsScrape(t *testing.T) {
	t.Parallel()
	host, hookURL := newApprovalHost(t, webhookToken)
	p := startServe(t, []string{"CHAPERONE_TOKEN=" + testToken, "CHAPERONE_WEBHOOK_TOKEN=" + webhookToken},
		"serve", "--http", "127.0.0.1:0", "--profile", "demo", "--approver", "webhook", "--webhook-url", hookURL, "--metrics-listen", "127.0.0.1:0")
	separate := metricsBase(t, p)
	c := servertest.Connect(t, servertest.Streamable, p.base, testToken)

	flowTo(t, c) // get_snapshot and three clicks
	r, s := act(t, c, toolapi.Click, map[string]any{"ref": "@e9999"})
	if r.Error == nil || *r.Error != string(toolapi.RefInvalid) {
		t.Fatalf("a click on a ref no snapshot gave: %v %q", r.Error, r.Message)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	done := clickAsync(ctx, c, browsertest.Ref(t, s, "button", "Finish Cancellation"))
	host.asked(t)
	waiting, _ := scrape(t, p.base+"/metrics", testToken)
	wantSample(t, waiting, "chaperone_approvals_waiting", nil, 1)
	host.decisions <- map[string]any{"approved": true}
	if r := <-done; !r.Success {
		t.Fatalf("the approved click: %v %q", r.Error, r.Message)
	}

	for _, where := range []struct{ url, token string }{{p.base + "/metrics", testToken}, {separate + "/metrics", ""}} {
		m, _ := scrape(t, where.url, where.token)
		t.Run(where.url, func(t *testing.T) {
			wantSample(t, m, "chaperone_tool_calls_total", map[string]string{"tool": toolapi.GetSnapshot, "code": "ok"}, 1)
			wantSample(t, m, "chaperone_tool_calls_total", map[string]string{"tool": toolapi.Click, "code": "ok"}, 4)
			wantSample(t, m, "chaperone_tool_calls_total", map[string]string{"tool": toolapi.Click, "code": string(toolapi.RefInvalid)}, 1)
			wantSample(t, m, "chaperone_tool_call_duration_seconds", map[string]string{"tool": toolapi.Click}, 5)
			// Four clicks settled; the one on a dead ref never acted.
			wantSample(t, m, "chaperone_settle_wait_seconds", map[string]string{"tool": toolapi.Click}, 4)
			wantSample(t, m, "chaperone_tool_call_phase_seconds", map[string]string{"phase": "settle"}, 4)
			wantSample(t, m, "chaperone_approvals_waiting", nil, 0)
			wantSample(t, m, "chaperone_approval_wait_seconds", map[string]string{"outcome": "approved"}, 1)
			wantSample(t, m, "chaperone_sessions_open", nil, 1)
			if n, _ := sample(m, "chaperone_tool_call_phase_seconds", map[string]string{"phase": "gate"}); n < 4 {
				t.Errorf("gate phases: %v, want one for each of the four clicks at least", n)
			}
			if n, _ := sample(m, "chaperone_tool_call_phase_seconds", map[string]string{"phase": "capture"}); n < 6 {
				t.Errorf("capture phases: %v, want one for each call's snapshot at least", n)
			}
			if n, _ := sample(m, "chaperone_screenshot_bytes_total", nil); n <= 0 {
				t.Errorf("screenshot bytes: %v", n)
			}
		})
	}

	get := func(url string, header ...string) int {
		req, _ := http.NewRequest(http.MethodGet, url, nil)
		for i := 0; i+1 < len(header); i += 2 {
			if header[i] == "Host" {
				req.Host = header[i+1]
			} else {
				req.Header.Set(header[i], header[i+1])
			}
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		what   string
		url    string
		header []string
		want   int
	}{
		{"MCP listener, no token", p.base + "/metrics", nil, http.StatusUnauthorized},
		{"MCP listener, another token", p.base + "/metrics", []string{"Authorization", "Bearer " + strings.Repeat("x", len(testToken))}, http.StatusUnauthorized},
		{"MCP listener, token as a query", p.base + "/metrics?access_token=" + testToken, nil, http.StatusUnauthorized},
		{"MCP listener, basic auth", p.base + "/metrics", []string{"Authorization", "Basic " + testToken}, http.StatusUnauthorized},
		{"MCP listener, the token as a cookie", p.base + "/metrics", []string{"Cookie", "token=" + testToken}, http.StatusUnauthorized},
		{"MCP listener, through /healthz", p.base + "/healthz/../metrics", nil, http.StatusUnauthorized},
		{"MCP listener, rebound Host", p.base + "/metrics", []string{"Authorization", "Bearer " + testToken, "Host", "attacker.example:80"}, http.StatusForbidden},
		{"MCP listener, a page's Origin", p.base + "/metrics", []string{"Authorization", "Bearer " + testToken, "Origin", "http://attacker.example"}, http.StatusForbidden},
		{"metrics listener, rebound Host", separate + "/metrics", []string{"Host", "attacker.example"}, http.StatusForbidden},
		{"metrics listener, a page's Origin", separate + "/metrics", []string{"Origin", "http://127.0.0.1:1"}, http.StatusForbidden},
		{"metrics listener, MCP", separate + "/mcp", nil, http.StatusNotFound},
	} {
		if got := get(tc.url, tc.header...); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, got, tc.want)
		}
	}
}

// TestMetricsPoolEndpoints serves from a pool of two endpoints, one up and
// one refusing, the second with a token in its address: /metrics says
// which is up and where the session went, naming each endpoint without
// its path or token. The browser the agent drives, which may open any
// site here (no profile names origins), cannot open the metrics listener
// in any spelling of its address.
func TestMetricsPoolEndpoints(t *testing.T) {
	t.Parallel()
	const poolToken = "pool-secret-5d41402abc4b2a76"
	up := lender.Lend(t)
	down := fmt.Sprintf("ws://127.0.0.1:%d/devtools/browser/x?token=%s", browsertest.FreePort(t), poolToken)
	p := startServe(t, []string{actionBudget}, "serve", "--http", "127.0.0.1:0", "--browser-pool", up+","+down, "--metrics-listen", "127.0.0.1:0")
	c := servertest.Connect(t, servertest.Streamable, p.base, "")
	getSnapshot(t, c)
	metrics := metricsBase(t, p)
	m, body := scrape(t, metrics+"/metrics", "")
	upName, downName := endpointName(t, up), endpointName(t, down)
	wantSample(t, m, "chaperone_browser_endpoints_up", nil, 1)
	wantSample(t, m, "chaperone_browser_endpoint_up", map[string]string{"endpoint": upName, "index": "0"}, 1)
	wantSample(t, m, "chaperone_browser_endpoint_up", map[string]string{"endpoint": downName, "index": "1"}, 0)
	wantSample(t, m, "chaperone_browser_endpoint_sessions", map[string]string{"endpoint": upName, "index": "0"}, 1)
	wantSample(t, m, "chaperone_browser_endpoint_sessions", map[string]string{"endpoint": downName, "index": "1"}, 0)
	if strings.Contains(body, poolToken) || strings.Contains(body, "/devtools/browser") {
		t.Errorf("/metrics shows an endpoint's path or token:\n%s", body)
	}

	// The agent never reads the server's own counters through its browser.
	port := metrics[strings.LastIndex(metrics, ":")+1:]
	for _, u := range []string{metrics + "/metrics", "http://localhost:" + port + "/metrics", "http://0x7f.1:" + port + "/metrics",
		"http://[::ffff:127.0.0.1]:" + port + "/metrics", "http://127.1:" + port + "/metrics", "http://LOCALHOST.:" + port + "/metrics", p.base + "/metrics"} {
		r, snap := act(t, c, toolapi.Navigate, map[string]any{"url": u})
		if r.Success || strings.Contains(snap.Text, "chaperone_tool_calls_total") || !strings.Contains(r.Message, "blocked by policy") {
			t.Errorf("the browser opened the metrics listener at %s: %v %q", u, r.Error, r.Message)
		}
	}
}

// endpointName is a DevTools endpoint as /metrics names it: scheme, host
// and port.
func endpointName(t *testing.T, endpoint string) string {
	t.Helper()
	m := regexp.MustCompile(`^(\w+://[^/?#]+)`).FindStringSubmatch(endpoint)
	if m == nil {
		t.Fatalf("endpoint %q", endpoint)
	}
	return m[1]
}

// otlpReceiver is an OpenTelemetry collector's OTLP/HTTP traces endpoint:
// it keeps every span it is sent, and the raw bodies.
type otlpReceiver struct {
	mu    sync.Mutex
	spans []*tracepb.Span
	res   []*tracepb.ResourceSpans
	raw   [][]byte
}

func newOTLPReceiver(t *testing.T) (*otlpReceiver, string) {
	r := &otlpReceiver{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method != http.MethodPost || req.URL.Path != "/v1/traces" || req.Header.Get("Content-Type") != "application/x-protobuf" {
			t.Errorf("the collector was sent %s %s (%s)", req.Method, req.URL.Path, req.Header.Get("Content-Type"))
			http.Error(w, "not OTLP/HTTP protobuf traces", http.StatusBadRequest)
			return
		}
		var body io.Reader = req.Body
		if req.Header.Get("Content-Encoding") == "gzip" {
			zr, err := gzip.NewReader(req.Body)
			if err != nil {
				http.Error(w, err.Error(), http.StatusBadRequest)
				return
			}
			body = zr
		}
		data, err := io.ReadAll(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var msg coltracepb.ExportTraceServiceRequest
		if err := proto.Unmarshal(data, &msg); err != nil {
			t.Errorf("the collector was sent no ExportTraceServiceRequest: %v", err)
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		r.mu.Lock()
		r.raw = append(r.raw, data)
		for _, rs := range msg.GetResourceSpans() {
			r.res = append(r.res, rs)
			for _, ss := range rs.GetScopeSpans() {
				r.spans = append(r.spans, ss.GetSpans()...)
			}
		}
		r.mu.Unlock()
		out, _ := proto.Marshal(&coltracepb.ExportTraceServiceResponse{})
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return r, srv.URL
}

// received returns the spans received so far.
func (r *otlpReceiver) received() []*tracepb.Span {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]*tracepb.Span(nil), r.spans...)
}

// attr returns a span's attribute, a string or a number formatted.
func attr(s *tracepb.Span, key string) string {
	for _, kv := range s.GetAttributes() {
		if kv.GetKey() != key {
			continue
		}
		v := kv.GetValue()
		if str := v.GetStringValue(); str != "" {
			return str
		}
		return fmt.Sprint(v.GetDoubleValue())
	}
	return ""
}

// TestTraceOfAGatedClick sends traces to an OTLP collector the test runs
// and walks the demo flow, typing on the survey and clicking the gated
// "Finish Cancellation", which a person approves. The click's trace is one
// span tree: the call at its root, its settle, capture and gate phases its
// children, the person's approval the gate's child; no span carries what
// was typed, the page's address or a token.
func TestTraceOfAGatedClick(t *testing.T) {
	t.Parallel()
	const typed = "typed-words-7f3a91"
	rcv, collector := newOTLPReceiver(t)
	c, host, _ := webhookServe(t, "--profile", "demo", "--otel-endpoint", collector)
	s := getSnapshot(t, c)
	for _, step := range []struct{ role, name, fill string }{
		{"button", "Cancel Membership", ""},
		{"button", "Continue to Cancel", ""},
		{"textbox", "Anything else you'd like to tell us?", typed},
		{"button", "Continue", ""},
	} {
		args := map[string]any{"ref": browsertest.Ref(t, s, step.role, step.name)}
		tool := toolapi.Click
		if step.fill != "" {
			tool, args["value"] = toolapi.Fill, step.fill
		}
		r, next := act(t, c, tool, args)
		if !r.Success {
			t.Fatalf("%s %s: %v %s", tool, step.name, r.Error, r.Message)
		}
		s = next
	}
	host.decisions <- map[string]any{"approved": true}
	if r, _ := click(t, c, browsertest.Ref(t, s, "button", "Finish Cancellation")); !r.Success {
		t.Fatalf("the approved click: %v %q", r.Error, r.Message)
	}
	host.asked(t)

	// The spans come in batches, in the order they end: the call's own
	// span ends after its children, so once it is here they are too.
	var spans []*tracepb.Span
	var approval, gate, root *tracepb.Span
	byID := map[string]*tracepb.Span{}
	for deadline := time.Now().Add(60 * time.Second); root == nil; {
		if time.Now().After(deadline) {
			t.Fatalf("no approval under a gate under a call reached the collector in 60 s; %d spans did (approval %v, gate %v)", len(spans), approval, gate)
		}
		time.Sleep(200 * time.Millisecond)
		spans = rcv.received()
		for _, sp := range spans {
			byID[string(sp.GetSpanId())] = sp
			if sp.GetName() == "approval" {
				approval = sp
			}
		}
		if approval == nil {
			continue
		}
		if gate = byID[string(approval.GetParentSpanId())]; gate != nil {
			if gate.GetName() != "gate" {
				t.Fatalf("the approval's parent is %q, want the gate", gate.GetName())
			}
			root = byID[string(gate.GetParentSpanId())]
		}
	}
	if root.GetName() != "tools/call "+toolapi.Click {
		t.Fatalf("the gate's parent is %q, want the click", root.GetName())
	}
	children := map[string][]*tracepb.Span{}
	for _, sp := range spans {
		children[string(sp.GetParentSpanId())] = append(children[string(sp.GetParentSpanId())], sp)
	}
	if len(root.GetParentSpanId()) != 0 || root.GetKind() != tracepb.Span_SPAN_KIND_SERVER {
		t.Errorf("the click's span has parent %x, kind %v: want a root server span", root.GetParentSpanId(), root.GetKind())
	}
	for key, want := range map[string]string{"chaperone.tool": toolapi.Click, "chaperone.code": "ok"} {
		if got := attr(root, key); got != want {
			t.Errorf("the click's %s = %q, want %q", key, got, want)
		}
	}
	if id := attr(root, "chaperone.session"); len(id) != 8 {
		t.Errorf("the click's session is %q, want a short id", id)
	}
	for key, want := range map[string]string{"chaperone.approval.outcome": "approved", "chaperone.approval.channel": "webhook", "chaperone.approval.kind": "checkpoint"} {
		if got := attr(approval, key); got != want {
			t.Errorf("the approval's %s = %q, want %q", key, got, want)
		}
	}
	phases := map[string]int{}
	for _, ch := range children[string(root.GetSpanId())] {
		phases[ch.GetName()]++
		if string(ch.GetTraceId()) != string(root.GetTraceId()) {
			t.Errorf("%s is in another trace than its parent", ch.GetName())
		}
		if ch.GetName() == "settle" && attr(ch, "chaperone.settle.wait_seconds") == "" {
			t.Error("the settle span does not say how long the page took to settle")
		}
		if ch.GetStartTimeUnixNano() < root.GetStartTimeUnixNano() || ch.GetEndTimeUnixNano() > root.GetEndTimeUnixNano() {
			t.Errorf("%s is outside its call", ch.GetName())
		}
	}
	for _, want := range []string{"settle", "capture", "gate"} {
		if phases[want] == 0 {
			t.Errorf("the click's span has no %s child: %v", want, phases)
		}
	}
	if phases["approval"] != 0 {
		t.Errorf("an approval span is the call's child, not the gate's: %v", phases)
	}

	rcv.mu.Lock()
	defer rcv.mu.Unlock()
	page, err := url.Parse(s.Page.URL)
	if err != nil {
		t.Fatal(err)
	}
	site := page.Host
	for _, data := range rcv.raw {
		for _, secret := range []string{typed, site, webhookToken, "Finish Cancellation"} {
			if bytes.Contains(data, []byte(secret)) {
				t.Errorf("a span sent to the collector carries %q", secret)
			}
		}
	}
	for _, rs := range rcv.res {
		for _, kv := range rs.GetResource().GetAttributes() {
			if kv.GetKey() == "service.name" && kv.GetValue().GetStringValue() != "chaperone" {
				t.Errorf("service.name %q", kv.GetValue().GetStringValue())
			}
		}
	}
}
