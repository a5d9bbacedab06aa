// Command slowest reads the output of `go test -json` and prints where the
// time went: each package's elapsed time, slowest first, then the N slowest
// tests (top-level tests only unless -sub; a parallel test's time includes
// its wait for a free slot, as go test reports it).
//
//	go test -count=1 -json ./... > /tmp/t.json
//	go run ./internal/slowest -n 10 /tmp/t.json
//
// scripts/slowest-tests runs it.
package main

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"sort"
	"strings"
)

// event is the part of a test2json event this command reads.
type event struct {
	Action  string
	Package string
	Test    string
	Elapsed float64
}

// timing is one package's or one test's elapsed seconds and outcome.
type timing struct {
	name    string
	seconds float64
	action  string
}

func main() {
	n := flag.Int("n", 10, "print the `N` slowest tests")
	sub := flag.Bool("sub", false, "count subtests too")
	flag.Usage = func() {
		fmt.Fprintln(flag.CommandLine.Output(), "usage: slowest [-n N] [-sub] [go-test-json-file]  (standard input without a file)")
		flag.PrintDefaults()
	}
	flag.Parse()
	in := io.Reader(os.Stdin)
	if flag.NArg() > 0 {
		f, err := os.Open(flag.Arg(0))
		if err != nil {
			fmt.Fprintln(os.Stderr, "slowest:", err)
			os.Exit(1)
		}
		defer f.Close()
		in = f
	}
	pkgs, tests, err := read(in, *sub)
	if err != nil {
		fmt.Fprintln(os.Stderr, "slowest:", err)
		os.Exit(1)
	}
	report(os.Stdout, pkgs, tests, *n)
}

// read collects the packages' and the tests' final events.
func read(r io.Reader, sub bool) (pkgs, tests []timing, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	for line := 1; sc.Scan(); line++ {
		b := sc.Bytes()
		if len(b) == 0 || b[0] != '{' {
			continue // a build error or other text go test printed around the events
		}
		var e event
		if err := json.Unmarshal(b, &e); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		if e.Action != "pass" && e.Action != "fail" && e.Action != "skip" {
			continue
		}
		switch {
		case e.Test == "":
			pkgs = append(pkgs, timing{e.Package, e.Elapsed, e.Action})
		case sub || !strings.Contains(e.Test, "/"):
			tests = append(tests, timing{e.Package + "." + e.Test, e.Elapsed, e.Action})
		}
	}
	if err := sc.Err(); err != nil {
		return nil, nil, fmt.Errorf("reading the events: %w", err)
	}
	if len(pkgs) == 0 && len(tests) == 0 {
		return nil, nil, errors.New("no test events: is this the output of go test -json?")
	}
	return pkgs, tests, nil
}

func report(w io.Writer, pkgs, tests []timing, n int) {
	bySeconds := func(ts []timing) {
		sort.SliceStable(ts, func(i, j int) bool { return ts[i].seconds > ts[j].seconds })
	}
	bySeconds(pkgs)
	bySeconds(tests)
	var sum float64
	for _, p := range pkgs {
		sum += p.seconds
	}
	fmt.Fprintf(w, "packages (%d, %.1f s summed; they run side by side, so the wall time is less):\n", len(pkgs), sum)
	for _, p := range pkgs {
		fmt.Fprintf(w, "%8.1f s  %s%s\n", p.seconds, p.name, outcome(p.action))
	}
	if n > len(tests) {
		n = len(tests)
	}
	fmt.Fprintf(w, "\nslowest %d of %d tests:\n", n, len(tests))
	for _, t := range tests[:n] {
		fmt.Fprintf(w, "%8.1f s  %s%s\n", t.seconds, t.name, outcome(t.action))
	}
}

func outcome(action string) string {
	if action == "pass" {
		return ""
	}
	return "  (" + action + ")"
}
