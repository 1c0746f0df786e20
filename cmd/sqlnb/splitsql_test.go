package main

import (
	"reflect"
	"testing"
)

func TestSplitStatements(t *testing.T) {
	for _, c := range []struct {
		in   string
		want []string
		rest string
	}{
		{"SELECT 1; SELECT 2;", []string{"SELECT 1;", "SELECT 2;"}, ""},
		{"SELECT ';' AS a;\nSELECT 2", []string{"SELECT ';' AS a;"}, "\nSELECT 2"},
		{`SELECT 1 AS "a;b", 'it''s;' -- c;omment` + "\n;", []string{`SELECT 1 AS "a;b", 'it''s;' -- c;omment` + "\n;"}, ""},
		{"SELECT /* ; */ 1;", []string{"SELECT /* ; */ 1;"}, ""},
		{"SELECT $$a;b$$;", []string{"SELECT $$a;b$$;"}, ""},
		{"SELECT 'open;", nil, "SELECT 'open;"},
		{";;", nil, ""},
	} {
		got, rest := splitStatements(c.in)
		if !reflect.DeepEqual(got, c.want) || rest != c.rest {
			t.Errorf("split(%q) = %q, %q; want %q, %q", c.in, got, rest, c.want, c.rest)
		}
	}
}
