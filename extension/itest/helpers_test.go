//go:build integration

package itest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// Run by .ci/integration.sh (make test-integration), which builds the extension and installs the peers
// named by these variables.
func mustEnv(t *testing.T, name string) string {
	t.Helper()
	v := os.Getenv(name)
	if v == "" {
		t.Fatalf("%s is not set: run make test-integration", name)
	}
	return v
}

// nodeResult is what testdata/driver.cjs prints for one step.
type nodeResult struct {
	OK     bool        `json:"ok"`
	Rows   [][]*string `json:"rows"`
	Error  string      `json:"error"`
	Files  []string    `json:"files"`
	Status *int        `json:"status"`
	Output string      `json:"output"`
	// Results are the statements of a parallel step.
	Results []nodeResult `json:"results"`
}

// text renders rows as chost does: values tab-separated, NULL as \N, one line per row.
func (r nodeResult) text() string {
	var b strings.Builder
	for _, row := range r.Rows {
		for i, v := range row {
			if i > 0 {
				b.WriteByte('\t')
			}
			if v == nil {
				b.WriteString(`\N`)
			} else {
				b.WriteString(*v)
			}
		}
		b.WriteByte('\n')
	}
	return b.String()
}

type step map[string]any

func open(path string) step {
	return step{"open": path, "options": map[string]string{"allow_unsigned_extensions": "true"}}
}
func sql(q string) step     { return step{"sql": q} }
func closeDB() step         { return step{"close": true} }
func load(ext string) step  { return sql("LOAD '" + ext + "'") }
func files(dir string) step { return step{"files": dir} }

// runNode runs steps in one node process with @duckdb/node-api from nodeDir; env is added to the process.
func runNode(t *testing.T, nodeDir string, env []string, steps ...step) []nodeResult {
	t.Helper()
	spec, err := json.Marshal(steps)
	if err != nil {
		t.Fatal(err)
	}
	driver, _ := filepath.Abs("testdata/driver.cjs")
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute) // a deadlock is a failure
	defer cancel()
	cmd := exec.CommandContext(ctx, "node", driver, nodeDir, string(spec))
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node (a crash is a failure): %v\n%s", err, out)
	}
	var res []nodeResult
	if err := json.Unmarshal(out, &res); err != nil || len(res) != len(steps) {
		t.Fatalf("node output (%d results for %d steps): %v\n%s", len(res), len(steps), err, out)
	}
	return res
}

// cBuild compiles a C program from testdata against DuckDB's own libduckdb.so (npm
// @duckdb/node-bindings-linux-x64) and duckdb.h (the duckdb-go-bindings module of the same DuckDB version).
func cBuild(t *testing.T, src string) string {
	t.Helper()
	lib := mustEnv(t, "SQLNB_LIBDUCKDB_DIR")
	bin := filepath.Join(t.TempDir(), strings.TrimSuffix(src, ".c"))
	cmd := exec.Command("gcc", "-Wall", "-Werror", "-O1", "-I"+mustEnv(t, "SQLNB_DUCKDB_INCLUDE"), "-o", bin,
		filepath.Join("testdata", src), "-L"+lib, "-lduckdb", "-Wl,-rpath,"+lib)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("gcc %s: %v\n%s", src, err, out)
	}
	return bin
}

// runC runs a chost-style program and returns each statement's output ("error: ..." or rows).
func runC(t *testing.T, bin, db string, stmts ...string) []string {
	t.Helper()
	out, err := exec.Command(bin, append([]string{db}, stmts...)...).Output()
	if err != nil {
		t.Fatalf("%s (a crash is a failure): %v\n%s", filepath.Base(bin), err, out)
	}
	parts := strings.Split(string(out), "== ")[1:]
	if len(parts) != len(stmts) {
		t.Fatalf("%d outputs for %d statements:\n%s", len(parts), len(stmts), out)
	}
	for i, p := range parts {
		_, parts[i], _ = strings.Cut(p, "\n")
	}
	return parts
}

// extensionVersion reads the extension version from the file's footer (field 4 of 8 after the 22-byte header).
func extensionVersion(t *testing.T, ext string) string {
	t.Helper()
	b, err := os.ReadFile(ext)
	if err != nil {
		t.Fatal(err)
	}
	f := b[len(b)-534+22+4*32:][:32]
	return strings.TrimRight(string(f), "\x00")
}

// withFooter writes the extension's library with another footer to dir/sqlnb.duckdb_extension (the base name
// must stay sqlnb: DuckDB calls <base name>_init_c_api).
func withFooter(t *testing.T, ext string, flags ...string) string {
	t.Helper()
	b, err := os.ReadFile(ext)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	lib := filepath.Join(dir, "lib.so")
	if err := os.WriteFile(lib, b[:len(b)-534], 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "sqlnb.duckdb_extension")
	cmd := exec.Command("go", append([]string{"run", "../footer", "-in", lib, "-out", out}, flags...)...)
	if msg, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("footer %v: %v\n%s", flags, err, msg)
	}
	return out
}
