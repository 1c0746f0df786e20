package nb

import (
	"strconv"
	"strings"
)

// Label types whose classes sqlnb writes back as their own type (LabelValues: the exported macros, and
// sqlnb predict's output through LabelCast); any other label type (DECIMAL, DATE, ENUM, ...) is written as
// text, DuckDB's CAST(label AS VARCHAR). nb_predict returns that text for every label type: DuckDB's C API
// fixes a scalar function's return type when it is registered.
var LabelTypes = map[string]func(string) (any, error){
	"BOOLEAN":   func(s string) (any, error) { return strconv.ParseBool(s) },
	"TINYINT":   signed(8),
	"SMALLINT":  signed(16),
	"INTEGER":   signed(32),
	"BIGINT":    signed(64),
	"UTINYINT":  unsigned(8),
	"USMALLINT": unsigned(16),
	"UINTEGER":  unsigned(32),
	"UBIGINT":   unsigned(64),
	"FLOAT":     func(s string) (any, error) { return parseFloatLabel(s, 32) },
	"DOUBLE":    func(s string) (any, error) { return parseFloatLabel(s, 64) },
	"VARCHAR":   func(s string) (any, error) { return s, nil },
}

func signed(bits int) func(string) (any, error) {
	return func(s string) (any, error) { return strconv.ParseInt(s, 10, bits) }
}

func unsigned(bits int) func(string) (any, error) {
	return func(s string) (any, error) { return strconv.ParseUint(s, 10, bits) }
}

// LabelValues returns the class labels (in model order) as values of the label column's type: int64 for TINYINT, SMALLINT, INTEGER and
// BIGINT, uint64 for the unsigned integers, float64 for FLOAT and DOUBLE, bool for BOOLEAN, string for
// VARCHAR; typ is the type's name. ok is false for any other type (DECIMAL, DATE, ENUM, ...) and for a label
// that does not read back as its type (a hand-edited store): then the labels are text (typ "VARCHAR"),
// as DuckDB's CAST(label AS VARCHAR) wrote them at training.
func (m *Model) LabelValues() (typ string, vals []any, ok bool) {
	text := func() (string, []any, bool) {
		vals := make([]any, len(m.Classes))
		for i, c := range m.Classes {
			vals[i] = c.Label
		}
		return "VARCHAR", vals, false
	}
	typ = strings.ToUpper(strings.TrimSpace(m.LabelType))
	parse, known := LabelTypes[typ]
	if !known {
		return text()
	}
	vals = make([]any, len(m.Classes))
	for i, c := range m.Classes {
		v, err := parse(c.Label)
		if err != nil {
			return text()
		}
		vals[i] = v
	}
	return typ, vals, true
}

// parseFloatLabel reads a FLOAT or DOUBLE label as DuckDB writes it as text: numbers, inf, -inf, and NaN as
// "nan" or "-nan".
func parseFloatLabel(s string, bits int) (any, error) {
	if s == "-nan" {
		s = "nan"
	}
	return strconv.ParseFloat(s, bits)
}

// LabelCast returns the DuckDB type that nb_predict's text reads back as, for a label type in labelTypes
// other than VARCHAR whose every class reads as that type (LabelValues), else "": CAST(nb_predict(m, t) AS
// LabelCast()) is the label in its own type. The name is one of labelTypes' keys, never the stored text.
func (m *Model) LabelCast() string {
	typ, _, ok := m.LabelValues()
	if !ok || typ == "VARCHAR" {
		return ""
	}
	for name := range LabelTypes {
		if name == typ {
			return name
		}
	}
	return ""
}
