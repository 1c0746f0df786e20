package shell

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/internal/testdb"
)

// TestHistoryRoundTrip: entries typed over several lines come back whole after a restart, and each line of
// the file is still valid SQL with the same meaning (a -- comment ends at the stored line break).
func TestHistoryRoundTrip(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	entries := []string{
		"SELECT 42 AS answer;",
		"SELECT 1 AS a, -- the first\n  2 AS b -- the second\n;",
		".mode csv",
		"SELECT 'two\nlines' AS s;\n-- a comment after it",
		"SELECT $$dollar\n$$ AS d; SELECT 3;",
	}
	h := loadHistory(path)
	for _, e := range entries {
		h.add(e)
		h.add(e) // a repeat is not stored twice
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(b), "\n"); n != len(entries) {
		t.Errorf("history file has %d lines, want one per entry (%d):\n%q", n, len(entries), b)
	}
	if got := loadHistory(path).entries; !reflect.DeepEqual(got, entries) {
		t.Errorf("reloaded history:\n got %q\nwant %q", got, entries)
	}

	// The stored form runs as it is: same statements, same columns; only a line break inside a string
	// literal reads differently until it is loaded again.
	conn := testdb.Conn(t)
	p := mustParser(t)
	for _, e := range entries[:2] {
		stored := encodeHistory(e)
		if strings.Contains(stored, "\n") {
			t.Fatalf("stored form has a line feed: %q", stored)
		}
		nWant, _ := p.Count(e)
		nGot, err := p.Count(stored)
		if err != nil || nGot != nWant {
			t.Errorf("stored %q: %d statements, %v; want %d", stored, nGot, err, nWant)
		}
		rows, err := conn.QueryContext(context.Background(), stored)
		if err != nil {
			t.Fatalf("stored %q: %v", stored, err)
		}
		cols, _ := rows.Columns()
		rows.Close()
		if e == entries[1] && !reflect.DeepEqual(cols, []string{"a", "b"}) {
			t.Errorf("stored %q has columns %q, want [a b]", stored, cols)
		}
	}
}

// TestHistoryLimit: a file with more entries than the limit is cut to the last ones.
func TestHistoryLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history")
	var b strings.Builder
	for i := range historyLimit + 100 {
		fmt.Fprintf(&b, "SELECT %d;\n", i)
	}
	os.WriteFile(path, []byte(b.String()), 0o600)
	h := loadHistory(path)
	if len(h.entries) != historyLimit || h.entries[0] != "SELECT 100;" {
		t.Errorf("%d entries, first %q", len(h.entries), h.entries[0])
	}
	if got := loadHistory(path).entries; !reflect.DeepEqual(got, h.entries) {
		t.Errorf("rewritten file differs: %d entries", len(got))
	}
}
