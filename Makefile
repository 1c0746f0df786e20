# sqlnb: naive Bayes inside DuckDB. `make demo` and `make test` are the two set-up commands.
GO      ?= go
BIN     := bin/sqlnb
PKGS    := ./...
# DuckDB is linked statically through cgo; the first build takes ~20 s.
export CGO_ENABLED=1

.PHONY: all build demo test test-integration test-race bench bench-compare bench-scale bench-big fuzz lint fmt fixtures clean

all: build

build:
	$(GO) build -o $(BIN) ./cmd/sqlnb

# Train on a bundled real dataset (UCI Congressional Voting Records, with missing votes) into the default
# database file ./sqlnb.duckdb, batch-score a parquet file, print the accuracy.
demo: build
	rm -f sqlnb.duckdb sqlnb.duckdb.wal
	$(BIN) train --model votes --label party --from testdata/housevotes84/train.csv
	$(BIN) predict --model votes --from testdata/housevotes84/test.parquet --proba --output out/votes_scored.parquet
	$(BIN) sql -c "SELECT count(*) AS scored, round(avg((prediction = party)::INT), 4) AS accuracy FROM 'out/votes_scored.parquet'"

test:
	$(GO) vet $(PKGS)
	$(GO) test -count=1 -timeout 20m $(PKGS)

# Independent peers: @duckdb/node-api opens files sqlnb wrote, a throw-away PostgreSQL runs the exported
# functions, tmux drives the shell. .ci/integration.sh installs what is missing (apt, npm) and cleans up.
test-integration:
	bash .ci/integration.sh

test-race:
	$(GO) test -race -count=1 -timeout 30m $(PKGS)

# Ratios against floors measured in the same run (see README "Performance").
bench:
	$(GO) test -run '^$$' -bench . -benchtime 1x -timeout 90m ./bench/

# sqlnb against scikit-learn on the same 10M rows, in memory and end to end from a CSV file, the two sides
# interleaved (README "Performance"). Needs Debian's python3-sklearn and python3-pandas; says so otherwise.
# ROWS and REPS change the size and the runs.
bench-compare: build
	$(GO) run ./bench/compare -sqlnb $(BIN) -rows $(or $(ROWS),10000000) -reps $(or $(REPS),3)

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
	$(GO) test -run '^$$' -fuzz FuzzImport -fuzztime 30s ./sqlnb/

lint:
	$(GO) vet $(PKGS)
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); exit 1)

fmt:
	gofmt -w $$(git ls-files '*.go')

# Regenerates the reference fixtures (needs Debian's python3-sklearn, r-cran-e1071, r-cran-mlbench).
fixtures:
	bash testdata/fixtures/generate.sh

clean:
	rm -rf bin out sqlnb.duckdb sqlnb.duckdb.wal
