#!/usr/bin/env bash
# vet-platforms.sh: sqlnb builds and vets for macOS (darwin/arm64, darwin/amd64) and Windows (windows/amd64)
# from this Linux machine (issue 29). Nothing runs there: these are compile-time checks.
#
#   1. Without cgo, for each target: `go vet` and `go build` of every package that builds without cgo. The
#      packages are computed: one that imports (directly or not) a non-standard package with cgo files
#      (duckdb-go's bindings, udf) needs cgo; one whose tests alone do (sqlnb, queries, ...) is vetted
#      without its tests (its .go files as a list).
#   2. Windows with cgo, through Debian's mingw-w64 cross compiler (installed with apt-get when missing and
#      running as root; skipped with a message otherwise): `go vet ./...` (every package and its tests, cgo
#      included) and `go build` of the cgo packages that are not commands (udf: its guard.cc is compiled).
#      The commands are not linked: DuckDB's windows-amd64 static library is built against the UCRT by a
#      newer MinGW, and Debian 12's mingw-w64 links against MSVCRT (unresolved __stdio_common_vsnprintf_s,
#      and libstdc++'s std::fpos<_Mbstatet>).
#   3. macOS with cgo is not checked: cgo needs a C compiler for macOS with Apple's SDK (its libc headers
#      and linker), which Debian does not ship. cmd/sqlnb's file for Unix systems (platform_unix.go, kept
#      self-contained for this) is vetted alone for macOS instead.
#
# The DuckDB line follows GOFLAGS, as for the Makefile (GOFLAGS=-modfile=go.duckdb15.mod checks 1.5). Each
# step is bounded by STEP_TIMEOUT seconds (default 900); the script prints each check with its time and
# exits non-zero if any failed. Besides installing mingw-w64 once, it writes nothing but Go's build cache:
# running it again redoes the same checks.
set -uo pipefail
cd "$(dirname "$0")/.."

STEP_TIMEOUT=${STEP_TIMEOUT:-900}
TARGETS=(darwin/arm64 darwin/amd64 windows/amd64)
MINGW_CC=x86_64-w64-mingw32-gcc
MINGW_CXX=x86_64-w64-mingw32-g++
# A package needs cgo if one of its dependencies outside the standard library has cgo files (the standard
# library's net and os/user have some, with pure-Go fallbacks).
CGO_DEPS='{{if and (not .Standard) .CgoFiles}}{{.ImportPath}}{{"\n"}}{{end}}'

failed=()
start=$SECONDS

# step WHAT CMD...: runs CMD within STEP_TIMEOUT, says how long it took, and records a failure.
step() {
	local what=$1 t0=$SECONDS rc
	shift
	echo "== $what"
	timeout --kill-after=30 "$STEP_TIMEOUT" "$@"
	rc=$?
	if [ "$rc" = 0 ]; then
		echo "   ok ($((SECONDS - t0)) s)"
	else
		[ "$rc" = 124 ] && echo "   timed out after $STEP_TIMEOUT s"
		echo "   FAILED ($((SECONDS - t0)) s)"
		failed+=("$what")
	fi
}

# list ARGS...: go list for the current target. With CGO_ENABLED=1 the cgo files stay in view; it runs no C
# compiler.
list() { env GOOS="$goos" GOARCH="$goarch" CGO_ENABLED=1 go list "$@"; }

# short PKGS...: the packages' paths in the module, on one line.
short() {
	local p
	for p in "$@"; do printf ' %s' "${p#github.com/sqlnb/sqlnb/}"; done
}

echo "$(go version); GOFLAGS=${GOFLAGS:-}"

for target in "${TARGETS[@]}"; do
	goos=${target%/*} goarch=${target#*/}
	pkgs=$(list ./...) || { failed+=("$target: go list"); continue; }
	pure=() pureFiles=() cgo=()
	for p in $pkgs; do
		if [ -n "$(list -deps -f "$CGO_DEPS" "$p")" ]; then
			cgo+=("$p")
		elif [ -n "$(list -deps -test -f "$CGO_DEPS" "$p")" ]; then
			pureFiles+=("$p")
		else
			pure+=("$p")
		fi
	done
	echo "-- $target: without cgo, with tests:$(short "${pure[@]}")"
	echo "-- $target: without cgo, tests need cgo:$(short "${pureFiles[@]}")"
	echo "-- $target: needs cgo:$(short "${cgo[@]}")"

	nocgo=(env GOOS="$goos" GOARCH="$goarch" CGO_ENABLED=0)
	[ ${#pure[@]} -gt 0 ] && step "$target, CGO_ENABLED=0: go vet (with tests)$(short "${pure[@]}")" "${nocgo[@]}" go vet "${pure[@]}"
	built=("${pure[@]}")
	for p in "${pureFiles[@]}"; do
		files=$("${nocgo[@]}" go list -f '{{range .GoFiles}}{{$.Dir}}/{{.}} {{end}}' "$p")
		if [ -z "$files" ]; then
			echo "-- $target: ${p#github.com/sqlnb/sqlnb/} has tests only: nothing to vet without cgo"
			continue
		fi
		# shellcheck disable=SC2086 # a list of file names without spaces (go list prints the module's paths)
		step "$target, CGO_ENABLED=0: go vet (without tests)$(short "$p")" "${nocgo[@]}" go vet $files
		built+=("$p")
	done
	step "$target, CGO_ENABLED=0: go build$(short "${built[@]}")" "${nocgo[@]}" go build -o /dev/null "${built[@]}"

	case $goos in
	windows)
		if ! command -v "$MINGW_CC" >/dev/null 2>&1 || ! command -v "$MINGW_CXX" >/dev/null 2>&1; then
			if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
				step "install Debian's mingw-w64 (apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)" bash -c '
					export DEBIAN_FRONTEND=noninteractive
					apt-get install -y -qq gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 >/dev/null 2>&1 ||
						{ apt-get update -qq && apt-get install -y -qq gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64 >/dev/null; }'
			else
				echo "-- $target with cgo: SKIPPED: $MINGW_CC and $MINGW_CXX are missing and cannot be installed here" \
					"(install them as root: apt-get install gcc-mingw-w64-x86-64 g++-mingw-w64-x86-64)"
				continue
			fi
		fi
		withcgo=(env GOOS="$goos" GOARCH="$goarch" CGO_ENABLED=1 CC="$MINGW_CC" CXX="$MINGW_CXX")
		step "$target, CGO_ENABLED=1 (mingw-w64): go vet ./... (with tests)" "${withcgo[@]}" go vet ./...
		libs=()
		for p in "${cgo[@]}"; do
			[ "$(list -f '{{.Name}}' "$p")" = main ] || libs+=("$p")
		done
		[ ${#libs[@]} -gt 0 ] && step "$target, CGO_ENABLED=1 (mingw-w64): go build (not linked)$(short "${libs[@]}")" \
			"${withcgo[@]}" go build "${libs[@]}"
		echo "-- $target with cgo: the commands are not linked (DuckDB's static library wants the UCRT; Debian's mingw-w64 links MSVCRT)"
		;;
	darwin)
		# cmd/sqlnb needs cgo, but its system-specific file is self-contained: vetted alone as a list of files.
		step "$target, CGO_ENABLED=0: go vet cmd/sqlnb's platform_unix.go alone" "${nocgo[@]}" go vet cmd/sqlnb/platform_unix.go cmd/sqlnb/platform_unix_test.go
		echo "-- $target with cgo: not checked (cgo needs a C compiler with Apple's macOS SDK, which Debian does not ship)"
		;;
	esac
done

echo "== $((SECONDS - start)) s in all"
if [ ${#failed[@]} -gt 0 ]; then
	printf 'FAILED: %s\n' "${failed[@]}"
	exit 1
fi
echo "all platform checks passed"
