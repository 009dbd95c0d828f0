# Scrollcast: `make demo` to see it, `make test` to prove it.
SHELL := /bin/bash
PORT ?= 8080
HOST ?= 127.0.0.1
SWIFT_BUILD_FLAGS ?=
ARTIFACTS ?= $(CURDIR)/test-artifacts
PY := $(CURDIR)/.venv/bin/python
# Flags for a bench target's script, e.g. `make bench BENCH_ARGS="--steps 100,500 --duration 5"`
# (`python3 -m bench.ladder --help`, and likewise for each bench module, lists them).
BENCH_ARGS ?=

.PHONY: deps deps-demo deps-cluster-demo demo-server demo-resolve demo-page wasm-objects precompress bundle demo-build wasm bench-wasm build release demo cluster-demo test test-swift test-page test-e2e test-e2e-workers test-e2e-alone bench-engine bench-rooms bench bench-inputs bench-durability bench-wire bench-slow bench-cluster bench-cluster-inputs bench-links bench-isolation conformance fuzz clean

# What the tests and benchmarks need (a browser, Redis, Node, the Python clients); the demos
# install only what they run (scripts/install-deps.sh says which).
deps:
	@scripts/install-deps.sh test
deps-demo:
	@scripts/install-deps.sh demo
deps-cluster-demo:
	@scripts/install-deps.sh cluster-demo

# The engine as WebAssembly for the page (docs/wasm.md), rebuilt when an engine, wire or replica
# source changes; every build, the demo and the tests make it, so CI fails when it stops compiling.
WASM := Public/wasm/scrollcast-engine.wasm
WASM_SOURCES := $(shell find Sources/ScrollEngine Sources/ScrollWire Sources/ScrollReplica Wasm -name '*.swift') Wasm/allocator.c scripts/build-wasm.sh
$(WASM): $(WASM_SOURCES)
	scripts/build-wasm.sh $@

wasm: deps
	$(MAKE) $(WASM)

# gzip and brotli copies of the page's files (and its bundle) in .build/public-encoded, which the server sends to
# browsers that accept them (docs/design.md, "Static files"); only stale copies are made again.
precompress: $(WASM) bundle
	scripts/precompress.sh Public .build/public-encoded

# The page's modules as one script, Public/bundle/page.js (git ignores it; rewritten only when it changes).
bundle:
	scripts/bundle-page.py Public

build: deps
	swift build $(SWIFT_BUILD_FLAGS)
	$(MAKE) precompress

release: deps
	swift build -c release
	$(MAKE) precompress

# Only what the demo runs: the server (and scrollcast-link for LINK=...), the page's module and
# its compressed copies; no benchmarks, tools or test-only packages. In the debug configuration by
# default: it builds in a third of release's time on two cores (121 s against 335–454 s for the
# server alone, docs/benchmarks.md §16), one room's frames cost the server little either way, the
# page's engine is the optimised .wasm in both, and `make test` then reuses the build.
# DEMO_CONFIG=release for a release server.
DEMO_CONFIG ?= debug
DEMO_PRODUCTS := scrollcast $(if $(LINK),scrollcast-link)
# Two lines of work that make runs side by side: the server (apt's install beside SwiftPM's
# resolution, then swift build) and the page (its Swift modules compiled for WebAssembly from the
# start, as they need the toolchain alone; once apt has installed wasi-libc and binaryen, the link,
# the bundle and the compressed copies). On a fresh machine apt and git mostly wait, and the
# module's compiles take the core they leave free (idle, 85–92 s to the page against 99–102 one
# after the other: docs/benchmarks.md §18). Their lines interleave: --output-sync would hold
# back swift build's progress until it ends.
demo-build:
	@$(MAKE) --no-print-directory -j3 demo-server demo-page LINK=$(LINK)
demo-server: deps-demo demo-resolve
	for product in $(DEMO_PRODUCTS); do swift build -c $(DEMO_CONFIG) --product $$product || exit 1; done
# SwiftPM looks system libraries up only when it plans a build: resolving needs no package.
demo-resolve:
	swift package resolve
# The page's copies but the module's are made while the module links, the module's after it.
demo-page: deps-demo wasm-objects
	$(MAKE) bundle
	scripts/precompress.sh Public .build/public-encoded
	$(MAKE) precompress
# At nice 10: on a busy machine, at full priority, they slowed SwiftPM's resolution and the
# server's build, which the demo waits for first (docs/benchmarks.md §18).
wasm-objects:
	nice -n 10 scripts/build-wasm.sh --compile-only

# Rooms are kept in the repo's data/ (git ignores it), so they survive restarts of the demo.
# LINK=4g (or lan, broadband, bad-wifi, loopback) puts scrollcast-link in front, on LINK_PORT
# (default PORT + 1), and prints the URL through the emulated link (docs/links.md).
LINK ?=
LINK_PORT ?= $(shell echo $$(($(PORT) + 1)))
demo:
	$(MAKE) demo-build LINK=$(LINK)
ifeq ($(LINK),)
	@echo "Scrollcast: open http://$(HOST):$(PORT)/?room=demo (Ctrl-C stops the server; rooms are kept in data/)"
	.build/$(DEMO_CONFIG)/scrollcast --host $(HOST) --port $(PORT) --public $(CURDIR)/Public --data $(CURDIR)/data/scrollcast.sqlite
else
	@DEMO_BIN=.build/$(DEMO_CONFIG) scripts/demo-link.sh "$(LINK)" "$(HOST)" "$(PORT)" "$(LINK_PORT)"
endif

# Three nodes (8080-8082) sharing rooms through their own redis-server (REDIS_PORT, 6390); kill one to see failover.
cluster-demo: deps-cluster-demo
	$(MAKE) demo-build
	@SCROLLCAST_BIN=.build/$(DEMO_CONFIG)/scrollcast scripts/cluster-demo.sh

# Two lines of work side by side, as `make demo` does: the Swift build and its unit tests, and the
# page's module with its copies. The module's Swift compiles need the toolchain alone: at nice 10
# they take what the build leaves idle, and its link and copies run beside the unit tests
# (docs/benchmarks.md §19). The browser tests need both, and run after with nothing beside them:
# the unit tests' build beside the browser tests, even as SCHED_IDLE, made stamped inputs reach
# the room late, and beside the `alone` tests at nice 19 it moved a timed figure past its bound
# (docs/benchmarks.md §22).
test: deps
	@$(MAKE) --no-print-directory -j3 test-swift test-page
	$(MAKE) test-e2e
test-swift:
	swift build --build-tests $(SWIFT_BUILD_FLAGS)
	swift test --skip-build $(SWIFT_BUILD_FLAGS)
test-page: wasm-objects
	$(MAKE) precompress

# Browser and protocol tests against the real server; screenshots land in $(ARTIFACTS). Three
# workers (E2E_WORKERS), each with its own servers and browser: most tests wait on links and
# animations, not the CPU: on the 2-core machines two workers left a third of it idle, three use
# most of it (docs/benchmarks.md §19). Tests marked `alone` (their figure is the machine's own
# timing) run one at a time, never beside another browser or protocol test.
E2E_WORKERS ?= 3
E2E_ENV = SCROLLCAST_BIN=$(CURDIR)/.build/debug/scrollcast SCROLLCAST_ARTIFACTS=$(ARTIFACTS)
test-e2e:
	$(MAKE) test-e2e-workers
	$(MAKE) test-e2e-alone
test-e2e-workers: deps
	mkdir -p $(ARTIFACTS)
	@echo "test-e2e: screenshots and browser console logs go to $(ARTIFACTS)"
	$(E2E_ENV) $(PY) -m pytest -q -n $(E2E_WORKERS) -m "not alone" --durations=40 Tests/e2e Tests/bench
test-e2e-alone: deps
	mkdir -p $(ARTIFACTS)
	$(E2E_ENV) $(PY) -m pytest -q -m alone --durations=20 Tests/e2e Tests/bench

# The native/WebAssembly cross-check at scale (WASM_SCRIPTS scripts, default 20,000): native
# and Chromium times, frames compared, the module's sizes; headline last. The server only serves
# the module here, so it is the debug build; the native engine runs in release.
WASM_SCRIPTS ?= 20000
bench-wasm: build
	swift build -c release --product scrollcast-replica-check
	SCROLLCAST_BIN=$(CURDIR)/.build/debug/scrollcast SCROLLCAST_CHECK_BIN=$(CURDIR)/.build/release/scrollcast-replica-check \
	  $(PY) -m bench.wasm_scale $(WASM_SCRIPTS) $(BENCH_ARGS)

bench-engine: deps
	swift build -c release --product scrollcast-bench-engine
	.build/release/scrollcast-bench-engine

# The room layer's own CPU per delivered frame (hub, rooms, timers, v2 encoding; no sockets, no
# store thread) on a manual clock, 500 rooms x (1+1) and 10 x (100+1) driven by the drag gesture;
# thread CPU time, so the figure holds on a busy machine. Headline last: rooms_cpu_ratio_small_to_large.
bench-rooms: deps
	swift build -c release --product scrollcast-bench-rooms
	.build/release/scrollcast-bench-rooms

# Load ladder against the release server on this machine, with the loopback probe as the
# machine's own limit, and the same steps against a plain Node `ws` broadcaster (bench/peer_bench.py);
# rewrites its sections of docs/benchmarks.md and docs/benchmarks.svg (a few minutes). The durability figures and
# the inputs ladder (bench-inputs) come first, so the ladder's headline (peer_cpu_ratio_1000) stays the last line.
bench: deps
	swift build -c release
	mkdir -p .build/bench
	$(CC) -O2 -Wall -Wextra -pthread -o .build/bench/loopback-probe bench/loopback-probe.c
	python3 -m bench.durability
	python3 -m bench.inputs_ladder $(BENCH_INPUTS_ARGS)
	python3 -m bench.ladder $(BENCH_ARGS)

# Issue 29's inputs ladder beside the frames ladder, same rooms, scripts fling and mixed: server CPU and bytes per
# viewer-second, p99 input-to-replica (scrollcast-load --stream inputs --replica: every beat checked), missed, the
# largest clean step of each stream and the ratios inputs / frames at 1,000 and 1,500 viewers; rewrites its section
# of docs/benchmarks.md (about 10 minutes). Flags: BENCH_INPUTS_ARGS (`python3 -m bench.inputs_ladder --help`).
# Headline last: inputs_cpu_ratio_1000=N (the larger of the two scripts', at the page's 250 ms batches; the line
# before it, inputs_one_frame_cpu_ratio_1000, at one frame period).
BENCH_INPUTS_ARGS ?=
bench-inputs: deps
	swift build -c release --product scrollcast
	swift build -c release --product scrollcast-load
	python3 -m bench.inputs_ladder $(BENCH_INPUTS_ARGS)

# The cost of durable rooms: the same row-move load with the SQLite store and in memory
# (medians of alternating runs), and the restore time of a room with 100,000 logged inputs.
bench-durability: release
	python3 -m bench.durability $(BENCH_ARGS)

# Only the comparison `make bench` ends with: the same load in protocol v1 and v2, mean bytes per
# frame and server CPU of each, printed (nothing rewritten; `make bench` puts it in docs/benchmarks.md).
bench-wire: deps
	swift build -c release
	python3 -m bench.ladder --wire-only $(BENCH_ARGS)

# Slow work off the room thread (issue 20): p99 input-to-frame at 1,000 viewers with and without four
# clients downloading a 100,000-entry recording, and server CPU per frame with 500 small rooms against
# 10 large ones; puts its section into docs/benchmarks.md. Headline last: isolation_p99_ratio=N.
bench-isolation: deps
	swift build -c release
	python3 -m bench.isolation $(BENCH_ARGS)

clean:
	rm -rf .build test-artifacts reports

# libFuzzer over the protocol decoders (with AddressSanitizer), time-boxed; new inputs it finds
# are kept in reports/fuzz-corpus. A crash writes crash-* files: replay one with
# `.build/debug/scrollwire-fuzz FILE`, then add it to Fuzz/regressions/.
FUZZ_SECONDS ?= 60
fuzz:
	swift build --scratch-path .build-fuzz -Xswiftc -sanitize=fuzzer,address -Xswiftc -DFUZZING \
	  -Xswiftc -parse-as-library --product scrollwire-fuzz
	mkdir -p reports/fuzz-corpus reports/fuzz-crashes
	cp Fuzz/corpus/* reports/fuzz-corpus/
	.build-fuzz/debug/scrollwire-fuzz -max_total_time=$(FUZZ_SECONDS) -max_len=20000 \
	  -artifact_prefix=reports/fuzz-crashes/ reports/fuzz-corpus

# Autobahn|Testsuite (sections 1-7, 9) against `scrollcast --conformance-echo`; see docs/reliability.md.
conformance: build
	scripts/run-conformance.sh

# Issue 7's slow-consumer check: the same load with and without 100 viewers that never read.
bench-slow: release
	python3 -m bench.slow_consumers $(BENCH_ARGS)

# Issue 15's cluster cost: the same load on one node and on three nodes sharing one Redis
# (`scrollcast-load --url A,B,C`): local vs remote input-to-frame latency, CPU of the nodes and of
# Redis, broker bytes per frame, the identity check, then redis-benchmark's PUBLISH rate (a few minutes).
bench-cluster: release
	python3 -m bench.cluster $(BENCH_ARGS)

# The same in the inputs stream (issue 29): every viewer replicates, nodes relay batches and beats,
# not frames; the nodes' CPU against one node's (goal ≤ 1.3) and remote − local input-to-batch p99.
bench-cluster-inputs: release
	python3 -m bench.cluster --stream inputs $(BENCH_ARGS)

# Issue 19's baselines: per link profile (loopback, 4g, bad-wifi), in headless Chromium through the
# link emulator, the page's own judder during flings, input-to-photon and load to first frame,
# and scrollcast-load --link's input-to-frame and jitter; rewrites the Links section of
# docs/benchmarks.md (a few minutes). Headline last: links_4g_judder_pct.
bench-links: release
	$(PY) -m bench.links $(BENCH_ARGS)
