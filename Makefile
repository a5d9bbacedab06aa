# The two commands a newcomer needs: `make demo` and `make test`.
GO ?= go

.PHONY: demo snapshot test conformance bench bench-mcp bench-load bench-tokens build release-snapshot

## demo: the product's main job on the embedded demo site: an agent (Claude
## when ANTHROPIC_API_KEY is set, else a scripted one) cancels a membership,
## a person approves the final step (at this terminal, or in the web console
## without one), and the server verifies the result; it prints where the run
## record and report are.
demo:
	./scripts/ensure-chromium
	$(GO) run ./cmd/chaperone demo

## snapshot: the embedded demo site's account page, as the agent sees it.
snapshot:
	./scripts/ensure-chromium
	$(GO) run ./cmd/chaperone snapshot

## test: install Chromium, HAProxy, nginx and ffmpeg (for the video export)
## when missing (and, with npm, browserless for the pool tests and the OAuth
## end-to-end test's authorization server and MCP client), then run every
## test.
test:
	./scripts/ensure-chromium
	./scripts/ensure-balancers
	./scripts/ensure-ffmpeg
	./scripts/ensure-oauth-e2e >/dev/null
	./scripts/ensure-browserless >/dev/null
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

## conformance: the official MCP conformance suite's server scenarios that
## apply to a browser server, against the built binary on loopback (installs
## Node 22 and the suite with npm into a cache directory).
conformance:
	./scripts/conformance

## bench: the benchmarks, each beside its raw-CDP floor.
bench:
	./scripts/ensure-chromium
	$(GO) test -run '^$$' -bench . -benchmem ./...

## bench-mcp: the end-to-end table: the built binary driven over stdio by an
## MCP client beside the raw browser (ready on the first page, get_snapshot on
## each flow page, peak PSS), with enough runs for steady ratios.
bench-mcp:
	./scripts/ensure-chromium
	$(GO) test -run '^$$' -bench MCP -benchtime 10x ./browser/

## bench-load: latency under load, CPU per call, memory per session and the
## start, each beside its floor in the same run, as markdown tables.
bench-load:
	./scripts/bench-load

## bench-tokens: tokens per task on four flows under each --screenshots
## setting with --snapshot-delta off and on, beside Playwright MCP on the
## same pages (installs @playwright/mcp with npm into a cache directory).
bench-tokens:
	./scripts/bench-tokens

build:
	$(GO) build -o bin/chaperone ./cmd/chaperone

## release-snapshot: the release built locally, publishing and signing
## nothing (installs the pinned GoReleaser when missing).
release-snapshot:
	./scripts/release-snapshot
