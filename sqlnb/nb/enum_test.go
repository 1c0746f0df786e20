package nb_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// TestEnumLevels: the type texts as DuckDB writes them (DESCRIBE of CAST(... AS ENUM(...)) and of a CREATE
// TYPE ... AS ENUM, on DuckDB 1.5.6 and 2.0.0; the round trip through DuckDB itself is
// TestEnumLevelsDuckDB in sqlnb/family/categorical), and texts that are not ENUM lists.
func TestEnumLevels(t *testing.T) {
	for _, c := range []struct {
		name, typ string
		want      []string // nil: not an ENUM list
	}{
		{"plain", "ENUM('1st', '2nd', '3rd', 'Crew')", []string{"1st", "2nd", "3rd", "Crew"}},
		{"one", "ENUM('x')", []string{"x"}},
		{"quote", "ENUM('a''b', '''', 'c''''')", []string{"a'b", "'", "c''"}},
		{"comma and parentheses", "ENUM('c,d', 'e)f', '(', ')')", []string{"c,d", "e)f", "(", ")"}},
		{"blanks kept inside", "ENUM(' sp ', '', 'x\"y', 'a\nb', 'back\\slash', 'é')", []string{" sp ", "", "x\"y", "a\nb", "back\\slash", "é"}},
		{"case and blanks around", "  enum ( 'a' ,'b' )  ", []string{"a", "b"}},
		{"duplicate kept once", "ENUM('a', 'b', 'a')", []string{"a", "b"}},
		{"varchar", "VARCHAR", nil},
		{"boolean", "BOOLEAN", nil},
		{"empty list", "ENUM()", nil},
		{"unterminated", "ENUM('a)", nil},
		{"missing comma", "ENUM('a' 'b')", nil},
		{"trailing comma", "ENUM('a', )", nil},
		{"unquoted", "ENUM(a, b)", nil},
		{"trailing text", "ENUM('a') x", nil},
		{"list of enums", "ENUM('a')[]", nil},
		{"named", "ENUMERATION('a')", nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, ok := nb.EnumLevels(c.typ)
			if ok != (c.want != nil) || !slices.Equal(got, c.want) {
				t.Errorf("EnumLevels(%q) = %q, %v; want %q, %v", c.typ, got, ok, c.want, c.want != nil)
			}
		})
	}
}

// enumText writes levels as DuckDB writes an ENUM type.
func enumText(levels []string) string {
	q := make([]string, len(levels))
	for i, l := range levels {
		q[i] = "'" + strings.ReplaceAll(l, "'", "''") + "'"
	}
	return "ENUM(" + strings.Join(q, ", ") + ")"
}

// FuzzEnumLevels: any text parses without panicking, and the levels of a written ENUM read back as written.
func FuzzEnumLevels(f *testing.F) {
	for _, s := range []string{"a", "a'b", "c,d", "e)f", "", "'", "''", "ENUM('x')", " , "} {
		f.Add(s, "b")
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		nb.EnumLevels(a)
		nb.EnumLevels(b)
		levels := []string{a}
		if b != a {
			levels = append(levels, b)
		}
		got, ok := nb.EnumLevels(enumText(levels))
		if !ok || !slices.Equal(got, levels) {
			t.Errorf("EnumLevels(%q) = %q, %v; want %q", enumText(levels), got, ok, levels)
		}
	})
}
