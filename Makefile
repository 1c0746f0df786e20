# sqlnb: naive Bayes inside DuckDB. `make demo` and `make test` are the two set-up commands.
SHELL   := /bin/bash
GO      ?= go
BIN     := bin/sqlnb
PKGS    := ./...
# DuckDB is linked statically through cgo.
export CGO_ENABLED=1

# The DuckDB line: 2.0 (go.mod: duckdb-go v2.20000.0, DuckDB 2.0.0, the primary line) or 1.5 (go.duckdb15.mod:
# duckdb-go v2.10506.0, DuckDB 1.5.6), from the same source: `make test DUCKDB=1.5`. GOFLAGS reaches every go
# command the targets and tests run. The two module files differ only in DuckDB's modules (make lines-check).
DUCKDB ?= 2.0
ifeq ($(DUCKDB),1.5)
export GOFLAGS := -modfile=go.duckdb15.mod $(GOFLAGS)
else ifneq ($(DUCKDB),2.0)
$(error DUCKDB=$(DUCKDB): use 2.0 or 1.5)
endif

.PHONY: lines-check vet-platforms stress bench-lines bench-commits all toolchain build demo test test-integration test-race bench bench-extension bench-compare bench-scale bench-big fuzz lint fmt fixtures clean extension extension-slots

all: build

# cgo compiles udf/guard.cc and links DuckDB's static library against libstdc++: g++ is needed besides gcc.
# On a fresh Debian machine (as root) it is installed from the archive; elsewhere the message says what to do.
toolchain:
	@command -v g++ >/dev/null 2>&1 || { \
		if [ "$$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then \
			echo "installing g++ (apt-get install g++)"; \
			apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq g++ >/dev/null; \
		else \
			echo "sqlnb needs g++ to build (cgo compiles C++ and links libstdc++): install it (Debian: apt-get install g++)"; exit 1; \
		fi; }

build: toolchain
	$(GO) build -ldflags "-X main.commit=$(EXT_VERSION)" -o $(BIN) ./cmd/sqlnb

# sqlnb as a loadable DuckDB extension (README "Use from any DuckDB client"): the same Go packages built as a
# c-shared library that links no DuckDB (build tag duckdb_use_static_lib leaves DuckDB's C API undefined;
# extension/trampolines.S jumps through the function table the host hands over at LOAD), plus DuckDB's
# metadata footer written by extension/footer. DuckDB calls <file base name>_init_c_api: keep the name.
EXT             := build/sqlnb.duckdb_extension
EXT_VERSION     ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
EXT_API_VERSION := v1.5.6
EXT_PLATFORM    := linux_amd64

extension: toolchain
	@test "$$($(GO) env GOOS)_$$($(GO) env GOARCH)" = $(EXT_PLATFORM) || (echo "make extension builds for $(EXT_PLATFORM) only"; exit 1)
	$(GO) build -tags duckdb_use_static_lib -buildmode=c-shared -trimpath -ldflags "-s -w -X main.version=$(EXT_VERSION)" \
		-o build/libsqlnb.so ./extension
	$(GO) run ./extension/footer -in build/libsqlnb.so -out $(EXT) -platform $(EXT_PLATFORM) \
		-api-version $(EXT_API_VERSION) -extension-version $(EXT_VERSION)
	rm -f build/libsqlnb.so build/libsqlnb.h

# Regenerates extension/slots.h (the order of DuckDB's C API function table) from a running DuckDB of the
# primary line: extension/host built from go.mod (duckdb-go, DuckDB 2.0) loads a probe extension. Run after a
# DuckDB upgrade (extension/gen/gen.sh node DIR reads a node-api host instead).
extension-slots: toolchain
	bash extension/gen/gen.sh go

# Train on a bundled real dataset (UCI Congressional Voting Records, with missing votes) into the default
# database file ./sqlnb.duckdb, batch-score a parquet file, print the accuracy.
demo: build
	@# the demo's own model is retrained; other models in ./sqlnb.duckdb stay
	@if [ -e sqlnb.duckdb ]; then $(BIN) models drop votes >/dev/null 2>&1 || true; fi
	$(BIN) train --model votes --label party --from testdata/housevotes84/train.csv
	$(BIN) predict --model votes --from testdata/housevotes84/test.parquet --proba --output out/votes_scored.parquet
	$(BIN) sql -c "SELECT count(*) AS scored, round(avg((prediction = party)::INT), 4) AS accuracy FROM 'out/votes_scored.parquet'"

test: toolchain lines-check
	$(GO) vet $(PKGS)
	$(GO) vet -tags duckdb_use_static_lib ./extension
	$(GO) test -count=1 -timeout 20m $(PKGS)
	$(GO) test -count=1 -tags duckdb_use_static_lib ./extension

# Independent peers: @duckdb/node-api opens files sqlnb wrote, a throw-away PostgreSQL runs the exported
# functions, tmux drives the shell. .ci/integration.sh installs what is missing (apt, npm) and cleans up.
test-integration:
	bash .ci/integration.sh

test-race: toolchain
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# go.mod and go.duckdb15.mod must require the same modules but DuckDB's (after `go get` or `go mod tidy` on
# one, run the same on the other with -modfile=go.duckdb15.mod).
lines-check:
	@diff <(grep -v duckdb go.mod) <(grep -v duckdb go.duckdb15.mod) >/dev/null || { \
		echo "go.mod and go.duckdb15.mod differ outside DuckDB's modules:"; \
		diff <(grep -v duckdb go.mod) <(grep -v duckdb go.duckdb15.mod); exit 1; }

# The model-version concurrency tests STRESS_RUNS times (default 200) beside two busy loops (.ci/stress.sh).
stress: toolchain
	bash .ci/stress.sh

# Compile-time checks for macOS and Windows: vet and build without cgo; Windows with cgo through Debian's
# mingw-w64, installed when missing (see .ci/vet-platforms.sh). DUCKDB=1.5 checks the 1.5 line.
vet-platforms:
	bash .ci/vet-platforms.sh

# Ratios against floors measured in the same run (see README "Performance"). The 10-class logistic
# regression alone takes ~1 hour at 10M rows; BENCH_ONLY picks one configuration (m,k, da4,2, da20,10, lr2,
# lr10) and BENCH_ROWS the rows.
bench: toolchain
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 240m ./bench/

# make bench's benchmarks on the DuckDB 2.0 and 1.5.6 lines in one run, one after the other per benchmark
# (BENCH_ROWS, default 3M; BENCH_RUN picks benchmarks; see bench/lines.sh).
bench-lines: toolchain
	bash bench/lines.sh

# make bench's benchmarks at commit BEFORE and at the work tree, in one run, one after the other per
# benchmark (BENCH_ROWS, default 3M; BENCH_RUN picks benchmarks; see bench/commits.sh).
bench-commits: toolchain
	bash bench/commits.sh

# The loadable extension next to the functions the binary registers and a bare scan, in one run
# (node-api 1.5.6 hosts the extension; installs it like make test-integration).
bench-extension:
	bash .ci/integration.sh bench-extension

# sqlnb against scikit-learn on the same 10M rows, in memory and end to end from a CSV file, the two sides
# interleaved (README "Performance"). Needs Debian's python3-sklearn and python3-pandas; says so otherwise.
# ROWS changes the size, REPS the in-memory runs (best of, default 3), E2E_REPS the end-to-end runs (default 1).
bench-compare: build
	$(GO) run ./bench/compare -sqlnb $(BIN) -rows $(or $(ROWS),10000000) -reps $(or $(REPS),3) -e2e-reps $(or $(E2E_REPS),1)

# eval, eval --no-curves, cv and cv --auc against one scoring pass, time and peak RSS per command
# (ROWS, default 4.6M; ROWS=50000000 for the issue's scale; see bench/scale/run.sh).
bench-scale: build
	bash bench/scale/run.sh

# train and predict --output on a generated 200M-row parquet file with --memory-limit 2GB (ROWS, DIR, LIMIT;
# ~8 GB of free disk; see bench/scale/big.sh).
bench-big: build
	bash bench/scale/big.sh

fuzz:
	$(GO) test -run '^$$' -fuzz FuzzIdent -fuzztime 30s ./queries/
	$(GO) test -run '^$$' -fuzz FuzzStructBinding -fuzztime 30s ./udf/
	$(GO) test -run '^$$' -fuzz FuzzNamedArgumentsAsParsed -fuzztime 30s ./udf/
	$(GO) test -run '^$$' -fuzz FuzzTokens -fuzztime 30s ./internal/sqltext/
	$(GO) test -run '^$$' -fuzz FuzzStatementsAsDuckDB -fuzztime 30s ./internal/sqltext/
	$(GO) test -run '^$$' -fuzz FuzzImport -fuzztime 30s ./sqlnb/

lint:
	$(GO) vet $(PKGS)
	$(GO) vet -tags duckdb_use_static_lib ./extension
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

fmt:
	gofmt -w $$(git ls-files '*.go')

# Regenerates the reference fixtures (needs Debian's python3-sklearn, r-cran-e1071, r-cran-mlbench).
fixtures:
	bash testdata/fixtures/generate.sh

# clean removes what the build made; the models in ./sqlnb.duckdb and the files in out/ are the user's.
clean:
	rm -rf bin build
