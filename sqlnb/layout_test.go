package sqlnb_test

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLayout holds the package boundaries docs/architecture.md draws, from what `go list` says each package
// imports (tests aside): a family (sqlnb/family/*) imports only the shared vocabulary (sqlnb/nb), the SQL
// templates (queries) and internal packages — never sqlnb, the store or another family; sqlnb/nb and
// sqlnb/store never import sqlnb or a family; internal/kernel imports nothing of the module. The compiler
// forbids cycles; this test forbids the imports that would not be cycles but would break the layering.
func TestLayout(t *testing.T) {
	const mod = "github.com/sqlnb/sqlnb/"
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}{{range .Imports}} {{.}}{{end}}`, "github.com/sqlnb/sqlnb/...")
	cmd.Dir = ".." // the module root: GOFLAGS=-modfile=go.duckdb15.mod (make test DUCKDB=1.5) names a file there
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	families := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		fields := strings.Fields(line)
		pkg, imports := strings.TrimPrefix(fields[0], mod), fields[1:]
		var allowed func(string) bool
		switch {
		case strings.HasPrefix(pkg, "sqlnb/family/"):
			families++
			allowed = func(p string) bool { return p == "sqlnb/nb" || p == "queries" || strings.HasPrefix(p, "internal/") }
		case pkg == "sqlnb/nb":
			allowed = func(p string) bool { return p == "queries" || strings.HasPrefix(p, "internal/") }
		case pkg == "sqlnb/store":
			allowed = func(p string) bool { return p == "sqlnb/nb" || p == "queries" || strings.HasPrefix(p, "internal/") }
		case pkg == "internal/kernel" || pkg == "queries":
			allowed = func(string) bool { return false }
		default:
			continue
		}
		for _, imp := range imports {
			if p, ok := strings.CutPrefix(imp, mod); ok && !allowed(p) {
				t.Errorf("%s imports %s: the layout does not allow it (docs/architecture.md)", pkg, p)
			}
		}
	}
	if families < 7 {
		t.Errorf("go list found %d family packages under sqlnb/family, want at least 7", families)
	}
}
