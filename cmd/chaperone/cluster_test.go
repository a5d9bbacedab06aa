package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"github.com/chaperone-mcp/chaperone/internal/browsertest"
	"github.com/chaperone-mcp/chaperone/server/servertest"
	"github.com/chaperone-mcp/chaperone/snapshot"
	"github.com/chaperone-mcp/chaperone/toolapi"
)

// clusterHost is the public host name the clients reach the balancer by,
// which the replicas accept through --allowed-hosts (CLUSTER_HOST).
const clusterHost = "chaperone.test"

// cluster is a running scripts/cluster: a load balancer, with the shipped
// configuration, in front of two replicas of the built binary, each on its
// own pool of Chromium endpoints.
type cluster struct {
	// url is the balancer's base URL, http://127.0.0.1:PORT.
	url string
	// state is the script's cluster.env: each replica's and each
	// endpoint's address and pid.
	state map[string]string
}

// startCluster runs scripts/cluster with the balancer (haproxy or nginx)
// and endpoints Chromium endpoints per replica, and waits until it is up.
// The script stops everything it started when the test ends.
func startCluster(t *testing.T, balancer string, endpoints int) *cluster {
	t.Helper()
	// Not t.TempDir: the browsers' helpers may write into their profiles
	// for a moment after they are killed.
	dir, err := os.MkdirTemp("", "chaperone-cluster-test-")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("../../scripts/cluster", "--", "--profile", "none")
	cmd.Env = append(os.Environ(), "CHAPERONE_BIN="+bin, "CHAPERONE_TOKEN="+testToken, actionBudget,
		"CLUSTER_BALANCER="+balancer, fmt.Sprintf("CLUSTER_PORT=%d", browsertest.FreePort(t)),
		fmt.Sprintf("CLUSTER_ENDPOINTS=%d", endpoints), "CLUSTER_HOST="+clusterHost, "CLUSTER_DIR="+dir)
	// Its own process group, so that the end of the test can end whatever
	// the script left.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	out := &syncBuffer{}
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	c := &cluster{state: map[string]string{}}
	t.Cleanup(func() {
		cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-exited:
		case <-time.After(30 * time.Second):
			t.Errorf("scripts/cluster did not stop within 30 s of SIGTERM; killing what it started")
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			for k, v := range c.state {
				if strings.HasSuffix(k, "_PID") {
					var pid int
					fmt.Sscan(v, &pid)
					syscall.Kill(-pid, syscall.SIGKILL)
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			<-exited
		}
		if t.Failed() {
			t.Logf("scripts/cluster:\n%s", out.String())
			for _, log := range []string{"replica1.log", "replica2.log", "haproxy.log", "nginx.log"} {
				if data, err := os.ReadFile(filepath.Join(dir, log)); err == nil {
					t.Logf("%s:\n%s", log, data)
				}
			}
		}
		for range 50 {
			if os.RemoveAll(dir) == nil {
				break
			}
			time.Sleep(100 * time.Millisecond)
		}
	})
	envFile := filepath.Join(dir, "cluster.env")
	for deadline := time.Now().Add(2 * time.Minute); ; {
		if _, err := os.Stat(envFile); err == nil {
			break
		}
		select {
		case <-exited:
			t.Fatalf("scripts/cluster ended before the cluster was up:\n%s", out.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster was not up within 2 minutes:\n%s", out.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	f, err := os.Open(envFile)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	for sc := bufio.NewScanner(f); sc.Scan(); {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			c.state[k] = v
		}
	}
	c.url = c.state["CLUSTER_URL"]
	if c.url == "" || c.state["REPLICA1"] == "" || c.state["REPLICA2"] == "" {
		t.Fatalf("cluster.env lacks addresses: %v", c.state)
	}
	return c
}

// endpoints returns the DevTools endpoints of replica r (1 or 2).
func (c *cluster) endpoints(r int) []string {
	var list []string
	for e := 1; c.state[fmt.Sprintf("R%d_ENDPOINT%d", r, e)] != ""; e++ {
		list = append(list, c.state[fmt.Sprintf("R%d_ENDPOINT%d", r, e)])
	}
	return list
}

// kill ends the process named by the state's key (REPLICA2_PID,
// R1_ENDPOINT1_PID) and its process group at once, as a crash or a lost
// machine would.
func (c *cluster) kill(t *testing.T, key string) {
	t.Helper()
	var pid int
	if _, err := fmt.Sscan(c.state[key], &pid); err != nil || pid <= 1 {
		t.Fatalf("cluster.env has no pid %s: %v", key, c.state)
	}
	syscall.Kill(-pid, syscall.SIGKILL)
	syscall.Kill(pid, syscall.SIGKILL)
}

// hostBearer sends every request with the public Host name and the token,
// as a client that reaches the balancer by its public name does (the DELETE
// mcp-go sends on Close included).
type hostBearer struct {
	host, token string
	next        http.RoundTripper
}

func (b hostBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Host = b.host
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// outcome is what one tool call through the balancer came to.
type outcome int

const (
	outcomeOK    outcome = iota
	outcomeMoved         // the session's browser died and it moved to another endpoint
	outcomeEnded         // 404: the replica does not know the session
	outcomeLost          // anything else: an error the client could not act on
)

// agent is one MCP client of the cluster, walking the demo flow.
type agent struct {
	n       int
	c       *client.Client
	session string // the session id of the last initialize
	// The calls and what they came to, in order, and why each lost one
	// was lost.
	outcomes []outcome
	lost     []string
	moves    []string // the messages of the moves
}

// connect starts the client and initializes it on the revision the server
// speaks (pinned: the client's probe of 2026-07-28 would be another request
// to balance).
func (a *agent) connect(ctx context.Context, url string) error {
	rt := hostBearer{host: strings.Replace(strings.TrimPrefix(url, "http://"), "127.0.0.1", clusterHost, 1), token: testToken,
		next: http.DefaultTransport.(*http.Transport).Clone()}
	c, err := client.NewStreamableHttpClient(url+"/mcp", transport.WithHTTPBasicClient(&http.Client{Transport: rt}))
	if err != nil {
		return err
	}
	if err := c.Start(ctx); err != nil {
		return err
	}
	a.c = c
	return a.initialize(ctx)
}

func (a *agent) initialize(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = mcp.LATEST_LEGACY_PROTOCOL_VERSION
	req.Params.ClientInfo = mcp.Implementation{Name: fmt.Sprintf("agent%d", a.n), Version: "1"}
	if _, err := a.c.Initialize(ctx, req); err != nil {
		return fmt.Errorf("agent %d: initialize: %w", a.n, err)
	}
	a.session = a.c.GetSessionId()
	return nil
}

// replica is the route the session id ends with: r1 or r2.
func (a *agent) replica() string {
	_, route, _ := strings.Cut(a.session, ".")
	return route
}

// call calls a tool and returns its outcome and the page the result shows.
func (a *agent) call(ctx context.Context, name string, args map[string]any) (outcome, *snapshot.Snapshot) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	req := mcp.CallToolRequest{}
	req.Params.Name = name
	req.Params.Arguments = args
	res, err := a.c.CallTool(ctx, req)
	lose := func(why string) (outcome, *snapshot.Snapshot) {
		a.outcomes = append(a.outcomes, outcomeLost)
		a.lost = append(a.lost, fmt.Sprintf("%s on %s: %s", name, a.replica(), why))
		return outcomeLost, nil
	}
	switch {
	case errors.Is(err, transport.ErrSessionTerminated):
		a.outcomes = append(a.outcomes, outcomeEnded)
		return outcomeEnded, nil
	case err != nil:
		return lose(err.Error())
	case res.IsError || res.StructuredContent == nil:
		var text string
		if len(res.Content) > 0 {
			if tc, ok := mcp.AsTextContent(res.Content[0]); ok {
				text = tc.Text
			}
		}
		// get_snapshot's failures are not snapshots, so they come as an
		// error result with their text.
		if moved, _, ok := strings.Cut(text, "\npage "); ok && strings.Contains(moved, "this session moved to the browser at") {
			a.outcomes = append(a.outcomes, outcomeMoved)
			a.moves = append(a.moves, moved)
			return outcomeMoved, nil
		}
		return lose(fmt.Sprintf("error result %.300q", text))
	}
	data, _ := json.Marshal(res.StructuredContent)
	var r struct {
		Error    *string         `json:"error"`
		Message  string          `json:"message"`
		Snapshot json.RawMessage `json:"snapshot"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return lose(err.Error())
	}
	if len(r.Snapshot) > 0 {
		data = r.Snapshot
	}
	var s snapshot.Snapshot
	if err := json.Unmarshal(data, &s); err != nil {
		return lose(err.Error())
	}
	if r.Error != nil {
		if strings.Contains(r.Message, "this session moved to the browser at") {
			a.outcomes = append(a.outcomes, outcomeMoved)
			a.moves = append(a.moves, r.Message)
			return outcomeMoved, &s
		}
		return lose(*r.Error + ": " + r.Message)
	}
	a.outcomes = append(a.outcomes, outcomeOK)
	return outcomeOK, &s
}

// round takes a snapshot and clicks the button that moves the flow on:
// Cancel Membership on the account page (to the retention offer), Keep my
// membership there (back). After a move the step is taken again on the
// reopened page; after a 404 the client initializes a new session and
// starts the round over. It reports whether the round was done.
func (a *agent) round(ctx context.Context) bool {
	for range 4 {
		got, s := a.call(ctx, toolapi.GetSnapshot, nil)
		switch got {
		case outcomeEnded:
			if err := a.initialize(ctx); err != nil {
				a.lost = append(a.lost, err.Error())
				return false
			}
			continue
		case outcomeMoved, outcomeLost:
			continue
		}
		button, next := "Cancel Membership", "/retention"
		if strings.HasSuffix(s.Page.URL, "/retention") {
			button, next = "Keep my membership", "/account"
		}
		e, ok := s.Find("button", button)
		if !ok {
			a.lost = append(a.lost, fmt.Sprintf("no %q on %s", button, s.Page.URL))
			return false
		}
		got, s = a.call(ctx, toolapi.Click, map[string]any{"ref": e.Ref})
		if got == outcomeEnded {
			if err := a.initialize(ctx); err != nil {
				a.lost = append(a.lost, err.Error())
				return false
			}
		}
		if got == outcomeOK && strings.HasSuffix(s.Page.URL, next) {
			return true
		}
	}
	a.lost = append(a.lost, "the round did not complete in 4 tries")
	return false
}

// count returns how many of a's calls came to o.
func (a *agent) count(o outcome) int {
	n := 0
	for _, x := range a.outcomes {
		if x == o {
			n++
		}
	}
	return n
}

// runAgents runs rounds rounds of the flow on every agent at once.
func runAgents(ctx context.Context, agents []*agent, rounds int) {
	var wg sync.WaitGroup
	for _, a := range agents {
		wg.Go(func() {
			for range rounds {
				if !a.round(ctx) {
					return
				}
			}
		})
	}
	wg.Wait()
}

// pagesOn counts the pages of the demo flow open in the browser at
// endpoint: the sessions it holds.
func pagesOn(t *testing.T, endpoint string) int {
	t.Helper()
	res, err := http.Get(endpoint + "/json/list")
	if err != nil {
		t.Fatalf("list the pages of %s: %v", endpoint, err)
	}
	defer res.Body.Close()
	var targets []struct {
		Type, URL string
	}
	if err := json.NewDecoder(res.Body).Decode(&targets); err != nil {
		t.Fatalf("list the pages of %s: %v", endpoint, err)
	}
	n := 0
	for _, tg := range targets {
		if tg.Type == "page" && (strings.HasSuffix(tg.URL, "/account") || strings.HasSuffix(tg.URL, "/retention")) {
			n++
		}
	}
	return n
}

// TestClusterHAProxy runs 8 clients through HAProxy, with the shipped
// packaging/haproxy.cfg, in front of two replicas of two Chromium endpoints
// each, as scripts/cluster starts them. Every request of a session reaches
// the replica that opened it; then, between two steps of every client's
// flow, one replica and one endpoint of the other replica are killed: the
// killed replica's clients get 404 and re-initialize on the other replica,
// the killed endpoint's sessions move to the other endpoint of their
// replica, and no other call is lost.
func TestClusterHAProxy(t *testing.T) {
	t.Parallel()
	testCluster(t, "haproxy", 2, 8)
}

// TestClusterNginx is TestClusterHAProxy through nginx with the shipped
// packaging/nginx.conf, which routes by the replica's name at the end of
// the session id (--session-route): 4 clients, one endpoint per replica,
// one replica killed.
func TestClusterNginx(t *testing.T) {
	t.Parallel()
	testCluster(t, "nginx", 1, 4)
}

func testCluster(t *testing.T, balancer string, endpoints, clients int) {
	c := startCluster(t, balancer, endpoints)
	ctx, cancel := context.WithTimeout(t.Context(), 8*time.Minute)
	defer cancel()
	checkBalancerRequests(t, c, balancer)

	agents := make([]*agent, clients)
	on := map[string][]*agent{}
	// One after another: the balancer's choice of the least loaded replica
	// then alternates.
	for i := range agents {
		agents[i] = &agent{n: i}
		if err := agents[i].connect(ctx, c.url); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { agents[i].c.Close() })
		on[agents[i].replica()] = append(on[agents[i].replica()], agents[i])
	}
	if len(on["r1"]) == 0 || len(on["r2"]) == 0 || len(on) != 2 {
		t.Fatalf("the %d sessions are not spread over the two replicas: r1 %d, r2 %d, of %d", clients, len(on["r1"]), len(on["r2"]), len(on))
	}
	// Each session is known to its replica only; the other answers 404,
	// which is what sends a misrouted client to re-initialize.
	for _, a := range agents {
		for i, r := range []string{"r1", "r2"} {
			want := http.StatusNotFound
			if r == a.replica() {
				want = http.StatusOK
			}
			base := fmt.Sprintf("http://%s", c.state[fmt.Sprintf("REPLICA%d", i+1)])
			if got := servertest.SessionStatus(t, base, a.c, testToken); got != want {
				t.Errorf("agent %d's session (%s) asked of replica %s directly: %d, want %d", a.n, a.replica(), r, got, want)
			}
		}
	}

	// Two rounds each, all at once: no call may fail, which it would on
	// the replica that did not open the session.
	runAgents(ctx, agents, 2)
	for _, a := range agents {
		if a.count(outcomeOK) != len(a.outcomes) || len(a.lost) > 0 {
			t.Fatalf("agent %d on %s before any kill: %d of %d calls ok; lost: %q", a.n, a.replica(), a.count(outcomeOK), len(a.outcomes), a.lost)
		}
	}

	// Kill replica 2, and the endpoint of replica 1 that holds the most of
	// its sessions.
	killedReplica := on["r2"]
	killedEndpoint, held := "", 0
	var key string
	if endpoints > 1 {
		for i, e := range c.endpoints(1) {
			if n := pagesOn(t, e); n > held {
				killedEndpoint, held, key = e, n, fmt.Sprintf("R1_ENDPOINT%d_PID", i+1)
			}
		}
		if held == 0 {
			t.Fatalf("no session of replica 1 (%d of them) is open on any of its endpoints %v", len(on["r1"]), c.endpoints(1))
		}
		c.kill(t, key)
	}
	c.kill(t, "REPLICA2_PID")
	before := make([]int, len(agents))
	for i, a := range agents {
		before[i] = len(a.outcomes)
	}
	// The killed replica's clients go first: they re-initialize on replica
	// 1, whose pool finds the killed endpoint dead and lets go of its
	// browser before that endpoint's own sessions call again. Then all at
	// once.
	runAgents(ctx, killedReplica, 1)
	const rounds = 3
	runAgents(ctx, agents, rounds)

	var lost, ended, moved, calls int
	for i, a := range agents {
		after := a.outcomes[before[i]:]
		calls += len(after)
		killed := containsAgent(killedReplica, a)
		// The acceptance counts the calls lost outside the killed
		// replica's sessions; with the shipped configuration the killed
		// replica's clients lose none either: their next call is a 404.
		for _, why := range a.lost {
			if killed {
				t.Errorf("agent %d of the killed replica: a call failed otherwise than by 404: %s", a.n, why)
			} else {
				t.Errorf("agent %d on the live replica lost a call: %s", a.n, why)
				lost++
			}
		}
		e, m := a.count(outcomeEnded), a.count(outcomeMoved)
		ended += e
		moved += m
		switch {
		case killed && e != 1:
			t.Errorf("agent %d of the killed replica: %d answers of 404, want 1 (then a new session)", a.n, e)
		case !killed && e != 0:
			t.Errorf("agent %d on the live replica: %d answers of 404, want none", a.n, e)
		}
		if killed && a.replica() != "r1" {
			t.Errorf("agent %d re-initialized on %q, want the live replica r1", a.n, a.replica())
		}
		if m > 1 {
			t.Errorf("agent %d moved %d times, want at most once", a.n, m)
		}
		for _, msg := range a.moves {
			from := strings.Contains(msg, "The browser at "+killedEndpoint+" went away")
			if killed || !from || !movedTo(msg, c.endpoints(1), killedEndpoint) {
				t.Errorf("agent %d moved: %q, want a session of replica 1 from %s to another of its endpoints", a.n, msg, killedEndpoint)
			}
		}
		done := 0
		for _, o := range after {
			if o == outcomeOK {
				done++
			}
		}
		if done < 2*rounds {
			t.Errorf("agent %d: %d calls answered after the kills, want the %d of %d rounds", a.n, done, 2*rounds, rounds)
		}
	}
	if moved != held {
		t.Errorf("%d sessions moved, want the %d the killed endpoint held", moved, held)
	}
	// SSE, whose session no response header names, is kept on the first
	// replica.
	sse := servertest.Connect(t, servertest.SSE, c.url, testToken)
	sa := &agent{n: clients, c: sse}
	if got, _ := sa.call(ctx, toolapi.GetSnapshot, nil); got != outcomeOK {
		t.Errorf("a call over SSE through %s: %q", balancer, sa.lost)
	}
	t.Logf("%s: %d clients (%d on the killed replica), %d calls after the kills: %d lost outside the killed replica's sessions, %d answered 404 and re-initialized, %d moved from the killed endpoint",
		balancer, clients, len(killedReplica), calls, lost, ended, moved)
}

// checkBalancerRequests sends requests through the balancer that must be
// refused: another Host than the public one (the replica's DNS rebinding
// check, which the balancer passes through), a forged session id, and with
// HAProxy one request naming two sessions.
func checkBalancerRequests(t *testing.T, c *cluster, balancer string) {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`
	// HAProxy refuses a request naming two sessions; through nginx the
	// replica finds no session by that name.
	twoIDs := map[string]int{"haproxy": http.StatusBadRequest, "nginx": http.StatusNotFound}[balancer]
	for _, tc := range []struct {
		name     string
		host     string
		sessions []string // none: GET /healthz, else tools/list for them
		want     int
	}{
		{"public host", clusterHost, nil, http.StatusOK},
		{"another host", "evil.test", nil, http.StatusForbidden},
		{"another host, public as a suffix", "evil" + clusterHost, nil, http.StatusForbidden},
		{"public host, another port", clusterHost + ":1", nil, http.StatusOK},
		{"unknown session", clusterHost, []string{"mcp-session-00000000-0000-4000-8000-000000000000.r1"}, http.StatusNotFound},
		{"unknown session, no route", clusterHost, []string{"mcp-session-00000000-0000-4000-8000-000000000000"}, http.StatusNotFound},
		{"two sessions", clusterHost, []string{"mcp-session-00000000-0000-4000-8000-000000000000.r1", "mcp-session-00000000-0000-4000-8000-000000000001.r2"}, twoIDs},
		{"two sessions in one header", clusterHost, []string{"mcp-session-00000000-0000-4000-8000-000000000000.r1, mcp-session-00000000-0000-4000-8000-000000000001.r2"}, twoIDs},
	} {
		req, _ := http.NewRequest(http.MethodGet, c.url+"/healthz", nil)
		if len(tc.sessions) > 0 {
			req, _ = http.NewRequest(http.MethodPost, c.url+"/mcp", strings.NewReader(body))
		}
		req.Host = tc.host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Mcp-Protocol-Version", mcp.LATEST_LEGACY_PROTOCOL_VERSION)
		for _, s := range tc.sessions {
			req.Header.Add("Mcp-Session-Id", s)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		res.Body.Close()
		if res.StatusCode != tc.want {
			t.Errorf("%s through %s: %s, want %d", tc.name, balancer, res.Status, tc.want)
		}
	}
}

func containsAgent(list []*agent, a *agent) bool {
	for _, x := range list {
		if x == a {
			return true
		}
	}
	return false
}

// movedTo reports whether the move's message msg names, as where the
// session went, one of the endpoints other than from.
func movedTo(msg string, endpoints []string, from string) bool {
	_, to, ok := strings.Cut(msg, "moved to the browser at ")
	if !ok {
		return false
	}
	for _, e := range endpoints {
		if e != from && (strings.HasPrefix(to, e+",") || strings.HasPrefix(to, e+" ")) {
			return true
		}
	}
	return false
}

// TestBalancerConfigs checks the shipped balancer configurations as the
// balancers read them (haproxy -c, nginx -t), and that the README shows
// them as they are: each haproxy or nginx block in it is a run of whole
// lines of its file.
func TestBalancerConfigs(t *testing.T) {
	t.Parallel()
	files := map[string]string{"haproxy": "../../packaging/haproxy.cfg", "nginx": "../../packaging/nginx.conf"}
	if out, err := exec.Command("haproxy", "-c", "-f", files["haproxy"]).CombinedOutput(); err != nil {
		t.Errorf("haproxy -c: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := os.Mkdir(filepath.Join(dir, "tmp"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf, err := filepath.Abs(files["nginx"])
	if err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("nginx", "-t", "-p", dir, "-c", conf, "-e", "stderr").CombinedOutput(); err != nil {
		t.Errorf("nginx -t: %v\n%s", err, out)
	}

	readme, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	shown := map[string]int{}
	lines := strings.Split(string(readme), "\n")
	for i := 0; i < len(lines); i++ {
		indent := len(lines[i]) - len(strings.TrimLeft(lines[i], " "))
		kind, ok := strings.CutPrefix(lines[i][indent:], "```")
		if _, known := files[kind]; !ok || !known {
			continue
		}
		var block strings.Builder
		for i++; i < len(lines) && strings.TrimSpace(lines[i]) != "```"; i++ {
			block.WriteString(strings.TrimPrefix(lines[i], strings.Repeat(" ", indent)) + "\n")
		}
		data, err := os.ReadFile(files[kind])
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains("\n"+string(data), "\n"+block.String()) {
			t.Errorf("the README's %s block is not a part of %s as it is:\n%s", kind, files[kind], block.String())
		}
		shown[kind]++
	}
	for kind := range files {
		if shown[kind] == 0 {
			t.Errorf("the README shows no %s block of %s", kind, files[kind])
		}
	}
}
