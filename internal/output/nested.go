package output

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"

	"github.com/sqlnb/sqlnb/udf"
)

// nestedType is the shape of a DuckDB type, as far as showing a value needs it: the fields of a STRUCT (or
// the members of a UNION) in their declared order, the element of a LIST or ARRAY, the key and value of a
// MAP. The driver hands a STRUCT over as a Go map, which has no order; the type keeps DuckDB's.
type nestedType struct {
	kind   string // STRUCT, UNION, LIST (also ARRAY), MAP; "" for every other type
	base   string // the other types: the name, upper case, without arguments (DOUBLE, TIMESTAMPTZ, DECIMAL)
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
		return &nestedType{base: strings.ToUpper(s)}
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
	t := &nestedType{base: name}
	p.space()
	switch {
	case (name == "STRUCT" || name == "UNION") && p.i < len(p.s) && p.s[p.i] == '(':
		p.i++
		t.kind, t.base = name, ""
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
		t.kind, t.base = name, ""
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

// formatTyped renders v, a value of type t, as text as DuckDB's CLI shows it (its VARCHAR cast): a STRUCT's
// fields in t's order, times in their type's form, and inside a nested value a text quoted where DuckDB
// quotes it.
func formatTyped(v any, t *nestedType) string { return t.text(v, false) }

func (t *nestedType) text(v any, nested bool) string {
	if v == nil {
		return "NULL"
	}
	if t == nil {
		t = &nestedType{}
	}
	if _, str := v.(string); t.base == "JSON" || t.base == "VARCHAR" && !str { // the driver parses JSON (typed VARCHAR inside a list): written back, compact
		if b, err := marshalJSON(v); err == nil {
			return t.quoted(string(b), nested)
		}
	}
	switch x := v.(type) {
	case map[string]any:
		parts := make([]string, 0, len(x))
		for _, k := range t.orderedKeys(x) {
			parts = append(parts, quoteNested(k)+": "+t.field(k).text(x[k], true))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = t.child(0).text(e, true)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	case duckdb.OrderedMap:
		parts := make([]string, 0, x.Len())
		for i, k := range x.Keys() {
			parts = append(parts, t.child(0).text(k, true)+"="+t.child(1).text(x.Values()[i], true))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case duckdb.Union:
		return t.field(x.Tag).text(x.Value, nested)
	}
	return t.quoted(leafText(v, t.base), nested)
}

// quoted is s, a scalar's text, quoted if it is inside a nested value and DuckDB would quote it there.
func (t *nestedType) quoted(s string, nested bool) string {
	if nested && nestedNeedsQuotes(s) {
		return quoteNested(s)
	}
	return s
}

// nestedNeedsQuotes reports whether DuckDB quotes s, a scalar's text inside a LIST, STRUCT or MAP
// (NestedToVarcharCast): empty, a space at either end, "null" in any case, or one of "'(),:=[]{} — and on
// DuckDB 2.0 a backslash (duckdbline).
func nestedNeedsQuotes(s string) bool {
	special := `"'(),:=[]{}`
	if udf.DuckDBLine().NestedQuotesBackslash() {
		special += `\`
	}
	if s == "" || strings.EqualFold(s, "null") || strings.ContainsAny(s, special) {
		return true
	}
	return isCSpace(s[0]) || len(s) >= 2 && isCSpace(s[len(s)-1])
}

func isCSpace(c byte) bool { return c == ' ' || c >= '\t' && c <= '\r' }

// quoteNested is s in single quotes, a quote or backslash inside escaped by a backslash (DuckDB's form of a
// STRUCT's key, and of a scalar inside a nested value that needs quotes).
func quoteNested(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// leafText is a scalar of DuckDB type base (parseNestedType's) as DuckDB's VARCHAR cast writes it.
func leafText(v any, base string) string {
	switch x := v.(type) {
	case float64:
		return floatText(x, 64)
	case float32:
		return floatText(float64(x), 32)
	case []byte:
		if base == "UUID" && len(x) == 16 {
			return fmt.Sprintf("%x-%x-%x-%x-%x", x[0:4], x[4:6], x[6:8], x[8:10], x[10:16])
		}
		return blobText(x)
	case duckdb.UUID:
		return leafText(x[:], "UUID")
	case duckdb.Interval:
		return intervalText(x)
	case time.Time:
		return timeText(x, base)
	}
	return FormatValue(v)
}

// floatText is x as DuckDB writes a DOUBLE (bits 64) or FLOAT (32): the shortest digits that read back as x,
// in positional form with at least one decimal (1.0) when the decimal exponent is in [−4, 16), else as
// 1.5e+300; nan, inf, -inf. (For about one FLOAT in 200 DuckDB writes more digits than needed, its exact
// value, as 1578627.25 for 1578627.2: the same number.)
func floatText(x float64, bits int) string {
	switch {
	case math.IsNaN(x):
		return "nan"
	case math.IsInf(x, 1):
		return "inf"
	case math.IsInf(x, -1):
		return "-inf"
	}
	e := strconv.FormatFloat(x, 'e', -1, bits)
	exp, _ := strconv.Atoi(e[strings.IndexByte(e, 'e')+1:])
	if exp < -4 || exp >= 16 {
		return e
	}
	f := strconv.FormatFloat(x, 'f', -1, bits)
	if !strings.ContainsAny(f, ".") {
		f += ".0"
	}
	return f
}

// blobText is b as DuckDB writes a BLOB: printable ASCII as itself, other bytes and \ ' " as \xHH.
func blobText(b []byte) string {
	var sb strings.Builder
	for _, c := range b {
		if c >= 32 && c <= 126 && c != '\\' && c != '\'' && c != '"' {
			sb.WriteByte(c)
		} else {
			fmt.Fprintf(&sb, "\\x%02X", c)
		}
	}
	return sb.String()
}

// intervalText is iv as DuckDB writes an INTERVAL: "1 year 2 months 3 days 04:05:06.5", "-01:00:00",
// "00:00:00" when zero.
func intervalText(iv duckdb.Interval) string {
	var parts []string
	unit := func(n int64, name string) {
		if n != 0 {
			if n != 1 && n != -1 {
				name += "s"
			}
			parts = append(parts, strconv.FormatInt(n, 10)+" "+name)
		}
	}
	unit(int64(iv.Months/12), "year")
	unit(int64(iv.Months%12), "month")
	unit(int64(iv.Days), "day")
	if iv.Micros != 0 || len(parts) == 0 {
		sign, us := "", iv.Micros
		if us < 0 {
			sign, us = "-", -us
		}
		h, us := us/3_600_000_000, us%3_600_000_000
		m, us := us/60_000_000, us%60_000_000
		sec, us := us/1_000_000, us%1_000_000
		parts = append(parts, fmt.Sprintf("%s%02d:%02d:%02d%s", sign, h, m, sec, fraction(int64(us), 6)))
	}
	return strings.Join(parts, " ")
}

// fraction is "." and n as a fraction of digits digits, trailing zeros cut; "" for 0.
func fraction(n int64, digits int) string {
	if n == 0 {
		return ""
	}
	return "." + strings.TrimRight(fmt.Sprintf("%0*d", digits, n), "0")
}

// The instants the driver gives for DuckDB's infinite timestamps (±the largest int64 in the type's unit)
// and dates (±the largest int32 day).
var (
	tsInfinity = map[string][2]time.Time{
		"TIMESTAMP":    {time.UnixMicro(math.MaxInt64).UTC(), time.UnixMicro(-math.MaxInt64).UTC()},
		"TIMESTAMPTZ":  {time.UnixMicro(math.MaxInt64).UTC(), time.UnixMicro(-math.MaxInt64).UTC()},
		"TIMESTAMP_MS": {time.UnixMilli(math.MaxInt64).UTC(), time.UnixMilli(-math.MaxInt64).UTC()},
		"TIMESTAMP_NS": {time.Unix(0, math.MaxInt64).UTC(), time.Unix(0, -math.MaxInt64).UTC()},
		"TIMESTAMP_S":  {time.Unix(math.MaxInt64, 0).UTC(), time.Unix(-math.MaxInt64, 0).UTC()},
	}
	dateInfinity = [2]time.Time{time.Unix(0, 0).UTC().AddDate(0, 0, math.MaxInt32), time.Unix(0, 0).UTC().AddDate(0, 0, -math.MaxInt32)}
)

// timeText is t as DuckDB writes a value of type base: DATE 2024-01-02, TIME 12:34:56.5, TIMETZ
// 12:34:56+02, TIMESTAMP 2024-01-02 00:00:00 (nanoseconds for TIMESTAMP_NS), TIMESTAMPTZ in the local time
// zone with its offset (DuckDB's TimeZone defaults to it); years before 1 as "0045-03-15 (BC)"; infinity.
func timeText(t time.Time, base string) string {
	switch base {
	case "DATE":
		switch {
		case t.Equal(dateInfinity[0]):
			return "infinity"
		case t.Equal(dateInfinity[1]):
			return "-infinity"
		}
		return dateText(t)
	case "TIME", "TIMETZ":
		s := clockText(t, 6)
		if base == "TIMETZ" {
			_, off := t.Zone()
			s += offsetText(off)
		}
		return s
	}
	if inf, ok := tsInfinity[base]; ok && t.Equal(inf[0]) {
		return "infinity"
	} else if ok && t.Equal(inf[1]) {
		return "-infinity"
	}
	digits := 6
	switch base {
	case "TIMESTAMP_NS":
		digits = 9
	case "TIMESTAMPTZ":
		t = t.In(time.Local)
		_, off := t.Zone()
		return dateText(t) + " " + clockText(t, digits) + offsetText(off)
	case "TIMESTAMP", "TIMESTAMP_S", "TIMESTAMP_MS":
	default: // a time.Time of a type not known here: as before
		return FormatValue(t)
	}
	return dateText(t) + " " + clockText(t, digits)
}

// dateText is the date of t as DuckDB writes it: 2024-01-02, 0045-03-15 (BC) for year −44.
func dateText(t time.Time) string {
	y, m, d := t.Date()
	if y <= 0 {
		return fmt.Sprintf("%04d-%02d-%02d (BC)", 1-y, m, d)
	}
	return fmt.Sprintf("%04d-%02d-%02d", y, m, d)
}

// clockText is the time of day of t, its fraction to digits (6: microseconds, 9: nanoseconds), trailing
// zeros cut.
func clockText(t time.Time, digits int) string {
	frac := int64(t.Nanosecond())
	if digits == 6 {
		frac /= 1000
	}
	return fmt.Sprintf("%02d:%02d:%02d%s", t.Hour(), t.Minute(), t.Second(), fraction(frac, digits))
}

// offsetText is a UTC offset as DuckDB writes one: +00, +05:30, -02:00:10.
func offsetText(sec int) string {
	sign := "+"
	if sec < 0 {
		sign, sec = "-", -sec
	}
	s := fmt.Sprintf("%s%02d", sign, sec/3600)
	if sec%3600 != 0 {
		s += fmt.Sprintf(":%02d", sec%3600/60)
		if sec%60 != 0 {
			s += fmt.Sprintf(":%02d", sec%60)
		}
	}
	return s
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

// marshalJSON is json.Marshal without the escaping of <, > and & (the output is not for HTML).
func marshalJSON(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}

// marshalJSONIndent is json.MarshalIndent without the escaping of <, > and &.
func marshalJSONIndent(v any, prefix, indent string) ([]byte, error) {
	b, err := marshalJSON(v)
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	if err := json.Indent(&out, b, prefix, indent); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
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
		kb, err := marshalJSON(k)
		if err != nil {
			return nil, err
		}
		vb, err := marshalJSON(o.vals[i])
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

// jsonTyped is a value of type t for JSON output: numbers, booleans and NULL native, a STRUCT's fields and a
// MAP's keys in their order, a JSON value as itself, the other scalars as their text (formatTyped's).
func jsonTyped(v any, t *nestedType) any {
	if t == nil {
		t = &nestedType{}
	}
	switch x := v.(type) {
	case nil:
		return nil
	case map[string]any:
		if t.base == "JSON" {
			return x
		}
		o := orderedObject{keys: t.orderedKeys(x)}
		for _, k := range o.keys {
			o.vals = append(o.vals, jsonTyped(x[k], t.field(k)))
		}
		return o
	case []any:
		if t.base == "JSON" {
			return x
		}
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonTyped(e, t.child(0))
		}
		return out
	case duckdb.OrderedMap:
		var o orderedObject
		for i, k := range x.Keys() {
			o.keys = append(o.keys, t.child(0).text(k, false))
			o.vals = append(o.vals, jsonTyped(x.Values()[i], t.child(1)))
		}
		return o
	case duckdb.Union:
		return jsonTyped(x.Value, t.field(x.Tag))
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return floatText(x, 64)
		}
		return x
	case float32:
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return floatText(float64(x), 32)
		}
		return x
	case []byte, duckdb.UUID, duckdb.Interval, time.Time:
		return leafText(v, t.base)
	}
	return JSONValue(v)
}
