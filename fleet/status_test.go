package fleet_test

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chaperone-mcp/chaperone/browser"
	"github.com/chaperone-mcp/chaperone/fleet"
)

// TestPoolWithNoEndpointUp: a pool whose endpoints all refuse or are dead
// starts anyway (the server serves on and retries them), each endpoint is
// down with its reason, and a session asked for says why no browser is up;
// no token shows anywhere.
func TestPoolWithNoEndpointUp(t *testing.T) {
	t.Parallel()
	refusing := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Bad or missing authentication.", http.StatusUnauthorized)
	}))
	defer refusing.Close()
	full := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "Too many requests", http.StatusTooManyRequests)
	}))
	defer full.Close()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "ws://" + l.Addr().String() + "/?token=s3cret-dead"
	l.Close()
	pool := []string{
		strings.Replace(refusing.URL, "http://", "ws://", 1) + "/?token=s3cret-refused",
		full.URL + "/?token=s3cret-full",
		dead,
	}
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	f, err := fleet.New(ctx, browser.Options{}, fleet.Config{Pool: pool})
	if err != nil {
		t.Fatalf("a pool with no endpoint up stopped the start: %v", err)
	}
	defer f.Close()
	st := f.Endpoints()
	if len(st) != len(pool) {
		t.Fatalf("%d endpoints reported, want %d: %+v", len(st), len(pool), st)
	}
	for i, want := range []string{"refused", "full", "connection refused"} {
		if st[i].Up || !strings.Contains(st[i].Reason, want) || st[i].Name != fleet.EndpointName(pool[i]) {
			t.Errorf("endpoint %d: %+v, want down with %q", i, st[i], want)
		}
	}
	_, err = f.Open(ctx)
	if err == nil || !strings.Contains(err.Error(), "no browser is up") {
		t.Fatalf("a session with no endpoint up: %v", err)
	}
	for _, e := range st {
		if !strings.Contains(err.Error(), e.Name+": ") {
			t.Errorf("%q does not say why %s is down", err, e.Name)
		}
	}
	for _, s := range []string{err.Error(), strings.Join([]string{st[0].Reason, st[1].Reason, st[2].Reason}, " ")} {
		if strings.Contains(s, "s3cret") {
			t.Errorf("a token shows: %q", s)
		}
	}
}
