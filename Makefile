# The two commands a newcomer needs: `make demo` and `make test`.
GO ?= go

.PHONY: demo test bench build

## demo: snapshot the embedded demo site's account page, as the agent sees it.
demo:
	./scripts/ensure-chromium
	$(GO) run ./cmd/chaperone snapshot

## test: install Chromium when it is missing, then run every test.
test:
	./scripts/ensure-chromium
	$(GO) vet ./...
	$(GO) test -count=1 -timeout 30m ./...

## bench: the benchmarks, each beside its raw-CDP floor.
bench:
	./scripts/ensure-chromium
	$(GO) test -run '^$$' -bench . -benchmem ./...

build:
	$(GO) build -o bin/chaperone ./cmd/chaperone
