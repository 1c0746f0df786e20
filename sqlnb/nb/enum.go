package nb

import "strings"

// EnumLevels returns the levels of a DuckDB ENUM type text in their declared order, as DESCRIBE and typeof
// write the type: ENUM('a', 'b', 'c'), each level single-quoted with a quote inside doubled (ENUM('it”s')) and
// written as it is otherwise (commas, parentheses, double quotes, blanks, newlines and backslashes are level
// text). The type name is read case-insensitively and blanks around the list and its items are ignored. ok
// is false for any other type and for a text that is not a well-formed list of at least one level; a level
// given twice (DuckDB refuses that) is kept once, at its first place.
func EnumLevels(typ string) (levels []string, ok bool) {
	s := strings.TrimSpace(typ)
	if len(s) < 4 || !strings.EqualFold(s[:4], "ENUM") {
		return nil, false
	}
	s = strings.TrimLeft(s[4:], " \t\r\n")
	if !strings.HasPrefix(s, "(") || !strings.HasSuffix(s, ")") {
		return nil, false
	}
	s = s[1 : len(s)-1]
	seen := map[string]bool{}
	for {
		s = strings.TrimLeft(s, " \t\r\n")
		if !strings.HasPrefix(s, "'") {
			return nil, false
		}
		var b strings.Builder
		i := 1
		for ; ; i++ {
			if i >= len(s) {
				return nil, false // an unterminated level
			}
			if s[i] == '\'' {
				if i+1 < len(s) && s[i+1] == '\'' {
					b.WriteByte('\'')
					i++
					continue
				}
				break
			}
			b.WriteByte(s[i])
		}
		if v := b.String(); !seen[v] {
			seen[v] = true
			levels = append(levels, v)
		}
		s = strings.TrimLeft(s[i+1:], " \t\r\n")
		switch {
		case s == "":
			return levels, true
		case s[0] == ',':
			s = s[1:]
		default:
			return nil, false
		}
	}
}
