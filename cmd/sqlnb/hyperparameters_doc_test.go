package main

import (
	"os"
	"path/filepath"
	"testing"
)

// TestHyperparameterDocs: docs/hyperparameters.md is what the families declare (hyperparameterDoc);
// SQLNB_UPDATE_DOCS=1 rewrites it.
func TestHyperparameterDocs(t *testing.T) {
	path := filepath.Join("..", "..", "docs", "hyperparameters.md")
	want := hyperparameterDoc()
	if os.Getenv("SQLNB_UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, []byte(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != want {
		t.Errorf("%s is stale: run SQLNB_UPDATE_DOCS=1 go test ./cmd/sqlnb -run TestHyperparameterDocs", path)
	}
}
