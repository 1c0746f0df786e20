package nb

import (
	"fmt"
	"math"
	"regexp"
	"strconv"

	"github.com/sqlnb/sqlnb/queries"
)

// overflowing is implemented by components whose terms can overflow for finite input (quadratic forms):
// limitSQL is class c's term scaled by 2^-1200 (see exporter.functions).
type Overflowing interface {
	LimitSQL(x *Exporter, c int) string
}

// incompleter is implemented by components with required inputs (Input.Required): incompleteSQL is true
// for a row that misses one of them, which then scores NULL.
type Incompleter interface {
	IncompleteSQL(x *Exporter) string
}

// limitScale is 2^-600: values scaled by it square without overflow (the scaled quadratic is 2^-1200 times
// the true one).
const LimitScale = 0x1p-600

// exporter writes one model's scoring SQL; components call its helpers for field access and literals.
type Exporter struct {
	Pg    bool
	Name  string
	Bound map[string]string // per-row bindings (DuckDB): name → expression
	Order []string
	// version: see ExportOptions.Version.
	Version string
	// incomplete is an SQL condition for rows that miss a required value (they score NULL), or "".
	Incomplete string
}

func (e *Exporter) Ident(suffix string) string { return queries.Ident(e.Name + suffix) }

func (e *Exporter) Literal(s string) string { return queries.Literal(s) }

// num writes a float64 literal that parses back to the same value, bit for bit (±Inf and NaN spelled per
// dialect).
func (e *Exporter) Num(x float64) string {
	switch {
	case x != x:
		if e.Pg {
			return "'NaN'::float8"
		}
		return "'nan'::DOUBLE"
	case math.IsInf(x, -1):
		if e.Pg {
			return "'-Infinity'::float8"
		}
		return "'-inf'::DOUBLE"
	case math.IsInf(x, 1):
		if e.Pg {
			return "'Infinity'::float8"
		}
		return "'inf'::DOUBLE"
	}
	if e.Pg {
		return strconv.FormatFloat(x, 'g', -1, 64) + "::float8" // numeric text, then PostgreSQL's strtod: exact
	}
	// With an exponent the literal is a DOUBLE, parsed to the nearest double. Without one DuckDB reads a
	// DECIMAL and casts it (TryCastDecimalToFloatingPoint), which for more than 15 digits is not always the
	// nearest: 1.9057364734159157::DOUBLE is not the double that prints so.
	return strconv.FormatFloat(x, 'e', -1, 64) + "::DOUBLE"
}

// number is feature name of the row argument f as a number.
func (e *Exporter) Number(name string) string {
	if e.Pg {
		return "(f->>" + queries.Literal(name) + ")::float8"
	}
	// struct_extract, not f."name": inside the macros' subqueries f."name" would be read as table f.
	return "CAST(struct_extract(f, " + queries.Literal(name) + ") AS DOUBLE)"
}

// text is feature name of the row argument f as text.
func (e *Exporter) Text(name string) string {
	if e.Pg {
		return "(f->>" + queries.Literal(name) + ")"
	}
	return "CAST(struct_extract(f, " + queries.Literal(name) + ") AS VARCHAR)"
}

// numeric is number category input in of the row argument f as a number, to compare with numberLiteral's
// literals as the SQL functions match a number category (NumberKeys): a FLOAT- or DOUBLE-trained input cast
// to that float type, an integer or DECIMAL one as it is (DuckDB: the argument's own type, compared by SQL's
// rules; PostgreSQL: numeric).
func (e *Exporter) Numeric(in *Input) string {
	name := queries.Literal(in.Name)
	switch {
	case e.Pg && in.Float32():
		return "(f->>" + name + ")::float4"
	case e.Pg && ClassifyType(in.Type) == TypeFloat:
		return "(f->>" + name + ")::float8"
	case e.Pg:
		return "(f->>" + name + ")::numeric"
	case in.Float32():
		return "CAST(struct_extract(f, " + name + ") AS FLOAT)"
	case ClassifyType(in.Type) == TypeFloat:
		return "CAST(struct_extract(f, " + name + ") AS DOUBLE)"
	}
	return "struct_extract(f, " + name + ")"
}

// numberLiteral returns the writer of input in's training values (their text as DuckDB cast them) as SQL
// numbers of numeric's type: a float literal, or for an integer or DECIMAL input the text itself ("3",
// "-1.50").
func (e *Exporter) NumberLiteral(in *Input) func(string) string {
	return func(value string) string {
		x, err := strconv.ParseFloat(value, 64)
		switch {
		case in.Float32() && err == nil:
			if e.Pg {
				return queries.Literal(value) + "::float4"
			}
			return "CAST(" + queries.Literal(value) + " AS FLOAT)"
		case ClassifyType(in.Type) == TypeFloat && err == nil:
			return e.Num(x)
		case numberText.MatchString(value):
			return value
		case err == nil:
			return e.Num(x)
		}
		return "NULL" // not a number: equal to none
	}
}

// numberText is a number as DuckDB casts an integer or DECIMAL to text, which is also an SQL number literal.
var numberText = regexp.MustCompile(`^-?[0-9]+(\.[0-9]+)?(e[-+]?[0-9]+)?$`)

// binary is a Bernoulli feature as a number: booleans read as 1 and 0.
func (e *Exporter) Binary(name string) string {
	if e.Pg {
		// jsonb booleans read as text 'true'/'false'.
		return fmt.Sprintf("(CASE f->>%s WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE (f->>%s)::float8 END)", queries.Literal(name), queries.Literal(name))
	}
	return e.Number(name)
}

func (e *Exporter) IsNaN(x string) string {
	if e.Pg {
		return x + " = 'NaN'::float8"
	}
	return "isnan(" + x + ")"
}

// isMissingNumber is true for NULL, NaN and ±Inf.
func (e *Exporter) IsMissingNumber(x string) string {
	if e.Pg {
		return fmt.Sprintf("%s IS NULL OR %s IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)", x, x)
	}
	return fmt.Sprintf("%s IS NULL OR NOT isfinite(%s)", x, x)
}

// ruled applies e1071's rule to the log-probability expression t when it is on.
func (e *Exporter) Ruled(r E1071Rule, t string) string {
	if !r.On {
		return t
	}
	return fmt.Sprintf("(CASE WHEN exp(%s) <= %s THEN %s ELSE %s END)", t, e.Num(r.Eps), e.Num(r.LogThreshold), t)
}

// logFactorial is log x! for a whole number x ≥ 0: DuckDB's lgamma; in PostgreSQL (no lgamma before 18) the
// exact sum below 21 and Stirling's series above (error < 1e-15; its first term alone beyond 1e5, where the
// rest is below 3e-18 and would overflow PostgreSQL's float8 for x near 1e300).
func (e *Exporter) LogFactorial(x string) string {
	if !e.Pg {
		return "lgamma(" + x + " + 1)"
	}
	z := "(" + x + " + 1)"
	return fmt.Sprintf("(CASE WHEN %s < 21 THEN (SELECT coalesce(sum(ln(k)), 0) FROM generate_series(1, (%s)::int) k) "+
		"WHEN %s < 1e5 THEN (%s - 0.5) * ln(%s) - %s + 0.918938533204672741780329736406 + 1 / (12 * %s) - 1 / (360 * %s ^ 3) + 1 / (1260 * %s ^ 5) - 1 / (1680 * %s ^ 7) "+
		"ELSE (%s - 0.5) * ln(%s) - %s + 0.918938533204672741780329736406 + 1 / (12 * %s) END)",
		x, x, x, z, z, z, z, z, z, z, z, z, z, z)
}

// bind registers a per-row binding (DuckDB): expr is evaluated once per row and named by the result.
func (e *Exporter) Bind(name, expr string) string {
	id := "b_" + name
	if _, ok := e.Bound[id]; !ok {
		e.Bound[id] = expr
		e.Order = append(e.Order, id)
	}
	return id
}
