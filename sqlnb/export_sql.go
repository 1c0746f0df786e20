package sqlnb

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// Dialects of ExportSQL.
const (
	DialectDuckDB   = "duckdb"
	DialectPostgres = "postgres"
)

// ExportSQL writes a script that scores with s's model using only built-in SQL of dialect: tables with the
// compiled parameters (<model>_classes, <model>_gaussian, <model>_categorical, for inspection) and
// functions that take the same features as nb_predict and follow the same rules (missing, NaN and
// infinite values skipped, unseen categories as α/(n + αJ) or skipped when α = 0, the α = 1e-10 floor
// when every class rules a row out, a NULL row gives NULL):
//
//	DuckDB:     <model>_joint_log_likelihood(f), <model>_predict_proba(f), <model>_predict(f) — macros over a
//	            STRUCT such as the table alias t (SELECT m_predict(t) FROM tbl t).
//	PostgreSQL: the same names as SQL functions over jsonb (SELECT m_predict(to_jsonb(t)) FROM tbl t).
//
// Parameters are written as round-trip decimal literals, so the script scores as nb_predict does, up to
// the order of floating-point additions.
func ExportSQL(w io.Writer, s *Scorer, dialect string) error {
	switch dialect {
	case DialectDuckDB, DialectPostgres:
	default:
		return fmt.Errorf("%w: dialect %q: use duckdb or postgres", ErrBadOption, dialect)
	}
	for _, f := range s.Features {
		if f.Kind.IsText() {
			return fmt.Errorf("%w: model %q: text feature %q cannot be exported to SQL yet", ErrBadOption, s.Model.Name, f.Name)
		}
	}
	e := &exporter{s: s, pg: dialect == DialectPostgres, name: s.Model.Name}
	var b strings.Builder
	e.tables(&b)
	e.functions(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

type exporter struct {
	s    *Scorer
	pg   bool
	name string
}

func (e *exporter) ident(suffix string) string { return queries.Ident(e.name + suffix) }

// num writes a float64 literal that parses back to the same value (±Inf and NaN spelled per dialect).
func (e *exporter) num(x float64) string {
	switch {
	case math.IsInf(x, -1):
		if e.pg {
			return "'-Infinity'::float8"
		}
		return "'-inf'::DOUBLE"
	case math.IsInf(x, 1):
		if e.pg {
			return "'Infinity'::float8"
		}
		return "'inf'::DOUBLE"
	}
	s := strconv.FormatFloat(x, 'g', -1, 64)
	if e.pg {
		return s + "::float8"
	}
	return s + "::DOUBLE"
}

func (e *exporter) tables(b *strings.Builder) {
	s := e.s
	dbl, txt := "DOUBLE", "VARCHAR"
	if e.pg {
		dbl, txt = "double precision", "text"
	}
	fmt.Fprintf(b, "-- sqlnb model %s (label %s): %d classes, %d features; scoring with built-in SQL only.\n",
		queries.Literal(e.name), queries.Literal(s.Model.Label), len(s.Labels), len(s.Features))
	fmt.Fprintf(b, "DROP TABLE IF EXISTS %s;\nCREATE TABLE %s (position integer, class %s, log_prior %s);\n",
		e.ident("_classes"), e.ident("_classes"), txt, dbl)
	for c, l := range s.Labels {
		fmt.Fprintf(b, "INSERT INTO %s VALUES (%d, %s, %s);\n", e.ident("_classes"), c, queries.Literal(l), e.num(s.LogPrior[c]))
	}
	fmt.Fprintf(b, "DROP TABLE IF EXISTS %s;\nCREATE TABLE %s (feature %s, class %s, mean %s, variance %s);\n",
		e.ident("_gaussian"), e.ident("_gaussian"), txt, txt, dbl, dbl)
	fmt.Fprintf(b, "DROP TABLE IF EXISTS %s;\nCREATE TABLE %s (feature %s, class %s, value %s, log_prob %s);\n",
		e.ident("_categorical"), e.ident("_categorical"), txt, txt, txt, dbl)
	for _, f := range s.Features {
		for c, l := range s.Labels {
			if f.Kind.Counted() {
				fmt.Fprintf(b, "INSERT INTO %s VALUES (%s, %s, NULL, %s); -- weight of one count\n", e.ident("_categorical"),
					queries.Literal(f.Name), queries.Literal(l), e.num(f.Weight[c]))
				continue
			}
			if f.Kind == Gaussian {
				fmt.Fprintf(b, "INSERT INTO %s VALUES (%s, %s, %s, %s);\n", e.ident("_gaussian"), queries.Literal(f.Name),
					queries.Literal(l), e.num(f.Mean[c]), e.num(f.Var[c]))
				continue
			}
			for v, value := range f.Values {
				fmt.Fprintf(b, "INSERT INTO %s VALUES (%s, %s, %s, %s);\n", e.ident("_categorical"), queries.Literal(f.Name),
					queries.Literal(l), queries.Literal(value), e.num(f.LogProb[c][v]))
			}
			fmt.Fprintf(b, "INSERT INTO %s VALUES (%s, %s, NULL, %s); -- unseen value\n", e.ident("_categorical"),
				queries.Literal(f.Name), queries.Literal(l), e.num(f.LogProb[c][f.Unseen()]))
		}
	}
}

// field is the SQL for feature name of the row argument f: text for categories, a number otherwise.
func (e *exporter) field(name string, asText bool) string {
	if e.pg {
		if asText {
			return "(f->>" + queries.Literal(name) + ")"
		}
		return "(f->>" + queries.Literal(name) + ")::float8"
	}
	// struct_extract, not f."name": inside the macros' subqueries f."name" would be read as table f.
	if asText {
		return "CAST(struct_extract(f, " + queries.Literal(name) + ") AS VARCHAR)"
	}
	return "CAST(struct_extract(f, " + queries.Literal(name) + ") AS DOUBLE)"
}

func (e *exporter) isMissingNumber(x string) string {
	if e.pg {
		return fmt.Sprintf("%s IS NULL OR %s IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)", x, x)
	}
	return fmt.Sprintf("%s IS NULL OR NOT isfinite(%s)", x, x)
}

// term is log p(x_j | c) of one feature as SQL, 0 when missing; floor uses the α = 1e-10 tables.
func (e *exporter) term(j, c int, floor bool) string {
	f := &e.s.Features[j]
	switch f.Kind {
	case Multinomial, Complement:
		x := e.field(f.Name, false)
		if e.pg {
			return fmt.Sprintf("CASE WHEN %s THEN 0 ELSE %s * %s END", e.isMissingNumber(x), x, e.num(f.Weight[c]))
		}
		return fmt.Sprintf("CASE WHEN isfinite(%s) THEN %s * %s ELSE 0 END", x, x, e.num(f.Weight[c]))
	case Gaussian:
		x := e.field(f.Name, false)
		return fmt.Sprintf("CASE WHEN %s THEN 0 ELSE %s - (%s - %s) * (%s - %s) * %s END", e.isMissingNumber(x),
			e.num(f.LogNorm[c]), x, e.num(f.Mean[c]), x, e.num(f.Mean[c]), e.num(f.HalfInvVar[c]))
	case Bernoulli:
		lp := f.LogProb
		if floor && f.logProbFloor != nil {
			lp = f.logProbFloor
		}
		x := e.field(f.Name, false)
		if e.pg {
			// jsonb booleans read as text 'true'/'false'.
			x = fmt.Sprintf("(CASE f->>%s WHEN 'true' THEN 1 WHEN 'false' THEN 0 ELSE (f->>%s)::float8 END)", queries.Literal(f.Name), queries.Literal(f.Name))
		}
		return fmt.Sprintf("CASE WHEN %s IS NULL OR %s = 'NaN'::%s THEN 0 WHEN %s > %s THEN %s ELSE %s END", x, x,
			map[bool]string{true: "float8", false: "DOUBLE"}[e.pg], x, e.num(f.Binarize), e.num(lp[c][1]), e.num(lp[c][0]))
	}
	lp := f.LogProb
	if floor && f.logProbFloor != nil {
		lp = f.logProbFloor
	}
	x := e.field(f.Name, true)
	var cases []string
	for v, value := range f.Values {
		cases = append(cases, fmt.Sprintf("WHEN %s THEN %s", queries.Literal(value), e.num(lp[c][v])))
	}
	return fmt.Sprintf("CASE WHEN %s IS NULL THEN 0 ELSE CASE %s %s ELSE %s END END", x, x, strings.Join(cases, " "), e.num(lp[c][f.Unseen()]))
}

func (e *exporter) jll(floor bool) string {
	s := e.s
	vector := !e.pg && len(s.sums) > 0
	classes := make([]string, len(s.Labels))
	for c := range s.Labels {
		terms := []string{e.num(s.LogPrior[c])}
		for j, f := range s.Features {
			if vector && f.Kind.Counted() {
				continue
			}
			terms = append(terms, "("+e.term(j, c, floor)+")")
		}
		if vector {
			// The count columns: one inner product with the class's weights over the vector v (below).
			w := make([]string, len(s.sums))
			for r, j := range s.sums {
				w[r] = e.num(s.Features[j].Weight[c])
			}
			terms = append(terms, "list_inner_product(v, ["+strings.Join(w, ", ")+"])")
		}
		classes[c] = strings.Join(terms, "\n      + ")
	}
	if e.pg {
		return "ARRAY[\n    " + strings.Join(classes, ",\n    ") + "]"
	}
	list := "[\n    " + strings.Join(classes, ",\n    ") + "]"
	if !vector {
		return list
	}
	// The count vector is bound once per row (missing, NaN and infinite counts read as 0).
	v := make([]string, len(s.sums))
	for r, j := range s.sums {
		x := e.field(s.Features[j].Name, false)
		v[r] = fmt.Sprintf("CASE WHEN isfinite(%s) THEN %s ELSE 0 END", x, x)
	}
	return fmt.Sprintf("(SELECT %s FROM (SELECT [%s]::DOUBLE[] AS v))", list, strings.Join(v, ", "))
}

func (e *exporter) labels() string {
	q := make([]string, len(e.s.Labels))
	for i, l := range e.s.Labels {
		q[i] = queries.Literal(l)
	}
	if e.pg {
		return "ARRAY[" + strings.Join(q, ", ") + "]::text[]"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

func (e *exporter) hasFloor() bool {
	for _, f := range e.s.Features {
		if f.logProbFloor != nil {
			return true
		}
	}
	return false
}

func (e *exporter) functions(b *strings.Builder) {
	jll := e.jll(false)
	if e.pg {
		if e.hasFloor() {
			// α = 0: a row every class rules out is rescored with α = 1e-10.
			jll = fmt.Sprintf("(SELECT CASE WHEN (SELECT max(x) FROM unnest(l) x) = '-Infinity'::float8 THEN %s ELSE l END FROM (SELECT %s AS l) s)", e.jll(true), jll)
		}
		fmt.Fprintf(b, `CREATE OR REPLACE FUNCTION %s(f jsonb) RETURNS double precision[] LANGUAGE sql IMMUTABLE AS $sqlnb$
  SELECT CASE WHEN f IS NULL OR jsonb_typeof(f) = 'null' THEN NULL ELSE %s END
$sqlnb$;
CREATE OR REPLACE FUNCTION %s(f jsonb) RETURNS jsonb LANGUAGE sql IMMUTABLE AS $sqlnb$
  SELECT jsonb_object_agg(l.label, exp(b.v - m.mx) / m.s ORDER BY l.i)
  FROM (SELECT %s(f) AS arr) a
  CROSS JOIN LATERAL unnest(a.arr) WITH ORDINALITY b(v, i)
  JOIN unnest(%s) WITH ORDINALITY l(label, i) ON l.i = b.i
  CROSS JOIN LATERAL (SELECT max(x) AS mx, sum(exp(x - (SELECT max(y) FROM unnest(a.arr) y))) AS s FROM unnest(a.arr) x) m
  WHERE a.arr IS NOT NULL
$sqlnb$;
CREATE OR REPLACE FUNCTION %s(f jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $sqlnb$
  SELECT (%s)[(SELECT b.i FROM unnest(a.arr) WITH ORDINALITY b(v, i) ORDER BY b.v DESC, b.i LIMIT 1)]
  FROM (SELECT %s(f) AS arr) a WHERE a.arr IS NOT NULL
$sqlnb$;
`, e.ident("_joint_log_likelihood"), jll, e.ident("_predict_proba"), e.ident("_joint_log_likelihood"), e.labels(),
			e.ident("_predict"), e.labels(), e.ident("_joint_log_likelihood"))
		return
	}
	// DuckDB: macros substitute their arguments textually, so the joint log-likelihoods are bound once per
	// row in a subquery (referencing them in place would evaluate every class's sum again for each use).
	if e.hasFloor() {
		// α = 0: a row every class rules out is rescored with α = 1e-10.
		fmt.Fprintf(b, "CREATE OR REPLACE MACRO %s(l, lf) AS (CASE WHEN list_max(l) = '-inf'::DOUBLE THEN lf ELSE l END);\n", e.ident("__floor"))
		jll = fmt.Sprintf("%s(%s, %s)", e.ident("__floor"), jll, e.jll(true))
	}
	fmt.Fprintf(b, `CREATE OR REPLACE MACRO %s(f) AS (CASE WHEN f IS NULL THEN NULL ELSE %s END);
CREATE OR REPLACE MACRO %s(f) AS (
  SELECT CASE WHEN l IS NULL THEN NULL ELSE map(%s, [exp(x - mx) / s FOR x IN l]) END
  FROM (SELECT l, mx, list_sum([exp(y - mx) FOR y IN l]) AS s
        FROM (SELECT l, list_max(l) AS mx FROM (SELECT %s(f) AS l))));
CREATE OR REPLACE MACRO %s(f) AS (
  SELECT CASE WHEN l IS NULL THEN NULL ELSE (%s)[list_position(l, list_max(l))] END FROM (SELECT %s(f) AS l));
`, e.ident("_joint_log_likelihood"), jll,
		e.ident("_predict_proba"), e.labels(), e.ident("_joint_log_likelihood"),
		e.ident("_predict"), e.labels(), e.ident("_joint_log_likelihood"))
}
