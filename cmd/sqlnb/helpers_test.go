package main

import (
	"bytes"
	"strings"
	"testing"
)

// sqlnbRun runs one sqlnb command line (in the test's current directory) and returns what it wrote to
// stdout and stderr and its exit code.
func sqlnbRun(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errs bytes.Buffer
	code = run(args, strings.NewReader(""), &out, &errs)
	return out.String(), errs.String(), code
}

// mustRun runs a command line that must succeed and returns its stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errs, code := sqlnbRun(t, args...)
	if code != exitOK {
		t.Fatalf("sqlnb %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errs)
	}
	return out
}
