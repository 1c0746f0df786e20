//go:build integration

package itest

import (
	"context"
	gosql "database/sql"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/duckdb/duckdb-go/v2"
)

// Run by .ci/integration.sh (make test-integration), which builds the extension and installs the peers
// named by these variables.
func mustEnv(t testing.TB, name string) string {
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

// buildDir holds the hosts built for this test run (TestMain removes it).
var buildDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "sqlnb-itest-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	buildDir = dir
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// built is the outcome of one build, made once per test run.
type built struct {
	once sync.Once
	path string
	err  error
}

var builds sync.Map // name → *built

// buildOnce returns buildDir/name, made by the command cmd(path) the first time it is asked for; a failed
// build fails every test that needs it.
func buildOnce(t testing.TB, name string, cmd func(path string) *exec.Cmd) string {
	t.Helper()
	v, _ := builds.LoadOrStore(name, &built{})
	b := v.(*built)
	b.once.Do(func() {
		b.path = filepath.Join(buildDir, name)
		c := cmd(b.path)
		var out strings.Builder
		c.Stdout, c.Stderr = &out, &out
		err := c.Start()
		if err == nil {
			// With a fresh module cache, go build compiles DuckDB's bindings first: minutes, not more.
			kill := time.AfterFunc(10*time.Minute, func() { c.Process.Kill() })
			err = c.Wait()
			kill.Stop()
		}
		if err != nil {
			b.err = fmt.Errorf("build %s: %v\n%s", name, err, out.String())
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

// cBuild compiles testdata/chost.c against DuckDB's own libduckdb.so 1.5.6 (npm
// @duckdb/node-bindings-linux-x64) and duckdb.h of the same version (duckdb-go-bindings v0.10506.0).
func cBuild(t *testing.T) string {
	t.Helper()
	lib := mustEnv(t, "SQLNB_LIBDUCKDB_DIR")
	include := mustEnv(t, "SQLNB_DUCKDB_INCLUDE")
	return buildOnce(t, "chost", func(out string) *exec.Cmd {
		return exec.Command("gcc", "-Wall", "-Werror", "-O1", "-I"+include, "-o", out,
			filepath.Join("testdata", "chost.c"), "-L"+lib, "-lduckdb", "-Wl,-rpath,"+lib)
	})
}

// cStaticBuild compiles testdata/chost.c into one program with DuckDB 2.0's static library: the archives
// and static_extension_loader.c of the Go module go.duckdb.org/libduckdb/linux-amd64 (SQLNB_DUCKDB2_STATIC_DIR),
// linked with the flags of that module's prebuilt.go (which exports DuckDB's symbols: -rdynamic), and
// duckdb.h of duckdb-go-bindings v0.20000.0 (SQLNB_DUCKDB2_INCLUDE; the library module ships none).
func cStaticBuild(t *testing.T) string {
	t.Helper()
	dir := mustEnv(t, "SQLNB_DUCKDB2_STATIC_DIR")
	include := mustEnv(t, "SQLNB_DUCKDB2_INCLUDE")
	prebuilt, err := os.ReadFile(filepath.Join(dir, "prebuilt.go"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`#cgo LDFLAGS: (.*)`).FindSubmatch(prebuilt)
	if m == nil {
		t.Fatalf("%s/prebuilt.go: no #cgo LDFLAGS", dir)
	}
	ldflags := strings.Fields(strings.ReplaceAll(string(m[1]), "${SRCDIR}", dir))
	return buildOnce(t, "chost-static", func(out string) *exec.Cmd {
		args := append([]string{"-Wall", "-Werror", "-O1", "-DCHOST_STATIC_EXTENSIONS", "-I" + include, "-I" + dir, "-o", out,
			filepath.Join("testdata", "chost.c"), filepath.Join(dir, "static_extension_loader.c")}, ldflags...)
		return exec.Command("gcc", append(args, "-lpthread")...)
	})
}

// goHost builds extension/host (duckdb-go, DuckDB linked statically) with the given module file: go.mod
// (DuckDB 2.0) or go.duckdb15.mod (1.5.6), whatever GOFLAGS says.
func goHost(t testing.TB, modfile string) string {
	t.Helper()
	root := repo(t)
	return buildOnce(t, "host-"+modfile, func(out string) *exec.Cmd {
		cmd := exec.Command("go", "build", "-modfile="+modfile, "-o", out, "./extension/host")
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOFLAGS=")
		return cmd
	})
}

// newDB makes an empty database file in DuckDB 1.5's storage format (storage_compatibility_version v1.5.0),
// so that hosts of both lines open it whichever DuckDB the binary that then writes into it runs (2.0 keeps
// a file in the format it finds).
func newDB(t testing.TB, name string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	db, err := gosql.Open("duckdb", path+"?storage_compatibility_version=v1.5.0")
	if err == nil {
		_, err = db.Exec("CHECKPOINT")
		db.Close()
	}
	if err != nil {
		t.Fatalf("new database %s: %v", path, err)
	}
	return path
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
