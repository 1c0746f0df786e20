package shell

import (
	"bytes"
	"io"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/internal/testdb"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/udf"
)

// mustParser returns the shell's statement splitter on an in-memory database.
func mustParser(tb testing.TB) sqltext.Splitter {
	tb.Helper()
	return sqltext.Splitter{Count: testdb.Parser(tb), Rules: udf.Lexer()}
}

// TestFeed: lines typed one at a time make statements when the input is complete, dot commands only
// outside a statement, and one history entry for a statement over several lines.
func TestFeed(t *testing.T) {
	sh := &shell{parser: mustParser(t)}
	var buf strings.Builder
	lines := []string{"-- a comment line", "", ".mode csv", "SELECT 'a;", ".not a dot command';", "SELECT 1 AS x, -- one", "  2 AS y; SELECT 3;"}
	var steps []step
	for _, l := range lines {
		steps = append(steps, sh.feed(&buf, l))
	}
	want := []step{
		{}, {},
		{dot: ".mode csv", entry: ".mode csv"},
		{pending: true},
		{stmts: []string{"SELECT 'a;\n.not a dot command';"}, entry: "SELECT 'a;\n.not a dot command';"},
		{pending: true},
		{stmts: []string{"SELECT 1 AS x, -- one\n  2 AS y;", "SELECT 3;"}, entry: "SELECT 1 AS x, -- one\n  2 AS y; SELECT 3;"},
	}
	if !reflect.DeepEqual(steps, want) {
		t.Errorf("steps:\n got %+v\nwant %+v", steps, want)
	}
}

// syncBuffer is a bytes.Buffer that the progress bar's goroutine and the test may use at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestProgressStops: the progress spinner of a long query draws while the query runs and never after it
// ends or is interrupted (it used to go on drawing over the prompt: progressbar's own spinner goroutine
// ignored Exit).
func TestProgressStops(t *testing.T) {
	var stderr syncBuffer
	sh := &shell{cfg: Config{Stdout: io.Discard, Stderr: &stderr, Open: udf.Open}, interactive: true, mode: "table", maxRows: 40, out: io.Discard, cache: &catalogCache{}}
	if err := sh.open(":memory:"); err != nil {
		t.Fatal(err)
	}
	defer sh.close()
	quiet := func(what string) {
		t.Helper()
		before := stderr.String()
		if !strings.Contains(before, "running") {
			t.Fatalf("%s: no progress bar drawn: %q", what, before)
		}
		time.Sleep(600 * time.Millisecond)
		if after := stderr.String(); after != before {
			t.Errorf("%s: the progress bar drew after the query ended: %q", what, after[len(before):])
		}
	}
	if err := sh.exec("SELECT count(*) FROM range(400000000) WHERE range % 7 = 0"); err != nil {
		t.Fatal(err)
	}
	quiet("finished query")

	// Ctrl-C once the bar shows: the query stops with an error, the bar with it (where a process can send
	// itself Ctrl-C).
	if interruptSelf == nil {
		return
	}
	done := make(chan error)
	go func() { done <- sh.exec("SELECT count(*) FROM range(100000000000000) WHERE range % 7 = 3") }()
	deadline := time.Now().Add(20 * time.Second)
	for n := strings.Count(stderr.String(), "running"); strings.Count(stderr.String(), "running") <= n; time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no progress bar for the second query")
		}
	}
	if err := interruptSelf(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "interrupted") {
			t.Errorf("after Ctrl-C: %v", err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("Ctrl-C did not stop the query")
	}
	quiet("interrupted query")
}

// FuzzTableArg: any schema and table name, written with queries.Ident, is one dot-command argument that
// tableArg reads back as that schema and name.
func FuzzTableArg(f *testing.F) {
	for _, s := range [][2]string{{"main", "t"}, {"s", "My Table"}, {"a.b", `say "hi"`}, {"x'y", " "}} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, schema, name string) {
		if queries.ValidIdent(schema) != nil || queries.ValidIdent(name) != nil {
			return
		}
		arg := queries.Ident(schema) + "." + queries.Ident(name)
		args, err := dotArgs(".import f.csv " + arg)
		if err != nil || len(args) != 3 || args[2] != arg {
			t.Fatalf("dotArgs(%q) = %q, %v", arg, args, err)
		}
		gotSchema, gotName, err := tableArg(arg)
		if err != nil || gotSchema != schema || gotName != name {
			t.Fatalf("tableArg(%q) = %q, %q, %v; want %q, %q", arg, gotSchema, gotName, err, schema, name)
		}
	})
}
