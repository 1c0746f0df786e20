package main

import (
	"bytes"
	"encoding/json"
	"slices"
	"strings"

	"github.com/duckdb/duckdb-go/v2"
)

// nestedType is the shape of a DuckDB type, as far as showing a value needs it: the fields of a STRUCT (or
// the members of a UNION) in their declared order, the element of a LIST or ARRAY, the key and value of a
// MAP. The driver hands a STRUCT over as a Go map, which has no order; the type keeps DuckDB's.
type nestedType struct {
	kind   string // STRUCT, UNION, LIST (also ARRAY), MAP; "" for every other type
	names  []string
	fields []*nestedType // STRUCT and UNION: one per name; LIST: the element; MAP: key, value
}

// parseNestedType reads a type as DuckDB prints it (the driver's DatabaseTypeName): `STRUCT("a b" INTEGER,
// c VARCHAR[])[3]`, `MAP(VARCHAR, DOUBLE)`, `DECIMAL(18,3)`, `ENUM('x', 'y')`. What it cannot read is a
// plain type: its values are shown as the driver gives them.
func parseNestedType(s string) *nestedType {
	p := typeParser{s: s}
	t := p.typ()
	if p.bad {
		return &nestedType{}
	}
	return t
}

type typeParser struct {
	s   string
	i   int
	bad bool
}

func (p *typeParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// quoted reads a name or text in quote q (q doubled inside), after the opening quote.
func (p *typeParser) quoted(q byte) string {
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c == q {
			if p.i < len(p.s) && p.s[p.i] == q {
				b.WriteByte(q)
				p.i++
				continue
			}
			return b.String()
		}
		b.WriteByte(c)
	}
	p.bad = true
	return b.String()
}

// word reads a name: quoted, or up to a space, parenthesis, comma or bracket.
func (p *typeParser) word() string {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '"' {
		p.i++
		return p.quoted('"')
	}
	start := p.i
	for p.i < len(p.s) && !strings.ContainsRune(" (),[]", rune(p.s[p.i])) {
		p.i++
	}
	return p.s[start:p.i]
}

// skipArgs skips a parenthesised list of type arguments (DECIMAL's, ENUM's), quotes included.
func (p *typeParser) skipArgs() {
	depth := 0
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		switch c {
		case '\'', '"':
			p.quoted(c)
		case '(':
			depth++
		case ')':
			if depth--; depth == 0 {
				return
			}
		}
	}
	p.bad = true
}

func (p *typeParser) expect(c byte) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return
	}
	p.bad = true
}

func (p *typeParser) typ() *nestedType {
	name := strings.ToUpper(p.word())
	if name == "" {
		p.bad = true
		return &nestedType{}
	}
	t := &nestedType{}
	p.space()
	switch {
	case (name == "STRUCT" || name == "UNION") && p.i < len(p.s) && p.s[p.i] == '(':
		p.i++
		t.kind = name
		for !p.bad {
			t.names = append(t.names, p.word())
			t.fields = append(t.fields, p.typ())
			p.space()
			if p.i < len(p.s) && p.s[p.i] == ',' {
				p.i++
				continue
			}
			p.expect(')')
			break
		}
	case name == "MAP" && p.i < len(p.s) && p.s[p.i] == '(':
		p.i++
		t.kind = name
		t.fields = append(t.fields, p.typ())
		p.expect(',')
		t.fields = append(t.fields, p.typ())
		p.expect(')')
	case p.i < len(p.s) && p.s[p.i] == '(':
		p.skipArgs()
	}
	// LIST and ARRAY suffixes: T[] and T[n], any number of them.
	for p.space(); !p.bad && p.i < len(p.s) && p.s[p.i] == '['; p.space() {
		end := strings.IndexByte(p.s[p.i:], ']')
		if end < 0 {
			p.bad = true
			break
		}
		p.i += end + 1
		t = &nestedType{kind: "LIST", fields: []*nestedType{t}}
	}
	return t
}

// field is the type of a STRUCT's field (or UNION's member) name, or a plain type.
func (t *nestedType) field(name string) *nestedType {
	for i, n := range t.names {
		if n == name {
			return t.fields[i]
		}
	}
	return &nestedType{}
}

func (t *nestedType) child(i int) *nestedType {
	if t == nil || i >= len(t.fields) {
		return &nestedType{}
	}
	return t.fields[i]
}

// formatTyped renders v as text, as formatValue does, with a STRUCT's fields in t's order.
func formatTyped(v any, t *nestedType) string {
	if t == nil || t.kind == "" {
		return formatValue(v)
	}
	switch x := v.(type) {
	case map[string]any:
		if t.kind == "UNION" { // the driver gives a UNION as its member's value; kept for safety
			break
		}
		parts := make([]string, 0, len(x))
		for _, k := range t.orderedKeys(x) {
			parts = append(parts, "'"+k+"': "+formatTyped(x[k], t.field(k)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatTyped(e, t.child(0))
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case duckdb.OrderedMap:
		parts := make([]string, 0, x.Len())
		for i, k := range x.Keys() {
			parts = append(parts, formatTyped(k, t.child(0))+"="+formatTyped(x.Values()[i], t.child(1)))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	}
	return formatValue(v)
}

// orderedKeys is the keys of a STRUCT value in t's order, then any t does not name (sorted, as before).
func (t *nestedType) orderedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	seen := make(map[string]bool, len(m))
	for _, n := range t.names {
		if _, ok := m[n]; ok && !seen[n] {
			keys, seen[n] = append(keys, n), true
		}
	}
	var rest []string
	for k := range m {
		if !seen[k] {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// orderedObject is a JSON object whose keys keep their order.
type orderedObject struct {
	keys []string
	vals []any
}

func (o orderedObject) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, k := range o.keys {
		if i > 0 {
			b.WriteByte(',')
		}
		kb, err := json.Marshal(k)
		if err != nil {
			return nil, err
		}
		vb, err := json.Marshal(o.vals[i])
		if err != nil {
			return nil, err
		}
		b.Write(kb)
		b.WriteByte(':')
		b.Write(vb)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// jsonTyped is jsonValue with a STRUCT's fields and a MAP's keys in their order.
func jsonTyped(v any, t *nestedType) any {
	if t == nil || t.kind == "" {
		return jsonValue(v)
	}
	switch x := v.(type) {
	case map[string]any:
		if t.kind == "UNION" {
			break
		}
		o := orderedObject{keys: t.orderedKeys(x)}
		for _, k := range o.keys {
			o.vals = append(o.vals, jsonTyped(x[k], t.field(k)))
		}
		return o
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonTyped(e, t.child(0))
		}
		return out
	case duckdb.OrderedMap:
		var o orderedObject
		for i, k := range x.Keys() {
			o.keys = append(o.keys, formatTyped(k, t.child(0)))
			o.vals = append(o.vals, jsonTyped(x.Values()[i], t.child(1)))
		}
		return o
	}
	return jsonValue(v)
}
