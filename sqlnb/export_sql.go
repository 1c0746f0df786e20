package sqlnb

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// Dialects of ExportSQL.
const (
	DialectDuckDB   = "duckdb"
	DialectPostgres = "postgres"
)

// ExportSQL writes a script that scores with s's model using only built-in SQL of dialect: two tables for
// inspection (<model>_classes with the log-priors, <model>_parameters with what nb_show lists) and functions
// that take the same features as nb_predict and follow the same rules (each component writes its own term:
// Component.SQL; missing values add nothing, a NULL row gives NULL):
//
//	DuckDB:     <model>_joint_log_likelihood(f), <model>_predict_proba(f), <model>_predict(f) — macros over a
//	            STRUCT such as the table alias t (SELECT m_predict(t) FROM tbl t).
//	PostgreSQL: the same names as SQL functions over jsonb (SELECT m_predict(to_jsonb(t)) FROM tbl t).
//
// Where every class's score overflows (Gaussian values near 1e200), the functions return the limit: the
// class whose scaled quadratic term is least negative gets all the mass (shared equally on an exact tie).
// Parameters are written as round-trip decimal literals, so the script scores as nb_predict does, up to
// the order of floating-point additions. A family that cannot be written as SQL (text) is an error wrapping
// ErrNotExportable, and so, for PostgreSQL, is a model whose names (ExportedObjects) would be longer than
// the 63 bytes PostgreSQL keeps of a name.
func ExportSQL(w io.Writer, s *Scorer, dialect string) error {
	return ExportSQLWith(w, s, ExportOptions{Dialect: dialect})
}

// ExportOptions are the options of ExportSQLWith.
type ExportOptions struct {
	// Dialect is DialectDuckDB or DialectPostgres.
	Dialect string
	// Version, when set (the result of VersionSQL in the database that stores the model), makes the DuckDB
	// macros fail clearly once the stored model no longer has that version (retrained, its hyperparameters
	// changed, dropped) — for macros persisted beside the model — and marks every object with a comment
	// (ExportMarker) so that sqlnb can tell its own objects from the user's.
	Version string
}

// ExportMarker is the comment sqlnb puts on the objects it persists for model name.
func ExportMarker(name string) string { return "sqlnb export of model " + name }

// VersionSQL is an SQL expression giving the stored version of model name: its generation and its
// hyperparameters (nb.models.params; NULL when there is no such model).
func VersionSQL(name string) string {
	return "(SELECT concat_ws('|', generation, params) FROM nb.models WHERE name = " + queries.Literal(name) + ")"
}

// ExportedObjects lists what ExportSQL creates for model name, as ("table" or "macro", name).
func ExportedObjects(name string) [][2]string {
	return [][2]string{{"table", name + "_classes"}, {"table", name + "_parameters"}, {"macro", name + "_joint_log_likelihood"},
		{"macro", name + "__limit"}, {"macro", name + "_predict_proba"}, {"macro", name + "_predict"}}
}

// ExportSQLWith is ExportSQL with options.
func ExportSQLWith(w io.Writer, s *Scorer, opts ExportOptions) error {
	dialect := opts.Dialect
	switch dialect {
	case DialectDuckDB, DialectPostgres:
	default:
		return fmt.Errorf("%w: dialect %q: use duckdb or postgres", nb.ErrBadOption, dialect)
	}
	if len(s.Model.By) > 0 {
		return fmt.Errorf("%w: model %q has one model per group (by %s): export one group's model, or the pooled model, as JSON instead",
			nb.ErrNotExportable, s.Model.Name, s.GroupInputs[0].Name)
	}
	if dialect == DialectPostgres {
		if err := checkPGNames(s.Model.Name); err != nil {
			return err
		}
	}
	e := &script{Exporter: &nb.Exporter{Pg: dialect == DialectPostgres, Name: s.Model.Name, Bound: map[string]string{}, Version: opts.Version}, s: s}
	lo, hi := make([]string, len(s.Labels)), make([]string, len(s.Labels))
	limit := false
	var incomplete []string
	for _, comp := range s.Components {
		if ic, ok := comp.(nb.Incompleter); ok {
			incomplete = append(incomplete, "("+ic.IncompleteSQL(e.Exporter)+")")
		}
	}
	e.Incomplete = strings.Join(incomplete, " OR ")
	for c := range s.Labels {
		terms := []string{e.Num(s.LogPrior[c])}
		var his []string
		for _, comp := range s.Components {
			t, err := comp.SQL(e.Exporter, c)
			if err != nil {
				return fmt.Errorf("model %q: %w", s.Model.Name, err)
			}
			terms = append(terms, "("+t+")")
			if o, ok := comp.(nb.Overflowing); ok {
				his = append(his, "("+o.LimitSQL(e.Exporter, c)+")")
				limit = true
			}
		}
		lo[c] = strings.Join(terms, "\n      + ")
		hi[c] = strings.Join(append(his, "0"), " + ")
	}
	var b strings.Builder
	e.tables(&b)
	e.functions(&b, lo, hi, limit)
	if e.Version != "" && !e.Pg {
		for _, o := range ExportedObjects(e.Name) {
			if o[1] == e.Name+"__limit" && !limit {
				continue
			}
			fmt.Fprintf(&b, "COMMENT ON %s %s IS %s;\n", strings.ToUpper(o[0]), queries.Ident(o[1]), queries.Literal(ExportMarker(e.Name)))
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// maxPGIdent is the longest name PostgreSQL keeps, in bytes (NAMEDATALEN - 1): it cuts longer ones short,
// so that <model>_predict_proba and <model>_predict would name the same function.
const maxPGIdent = 63

// checkPGNames refuses a model whose exported names (ExportedObjects) PostgreSQL would truncate.
func checkPGNames(name string) error {
	longest := ""
	for _, o := range ExportedObjects(name) {
		if len(o[1]) > len(longest) {
			longest = o[1]
		}
	}
	if len(longest) <= maxPGIdent {
		return nil
	}
	return fmt.Errorf("%w: model %q: PostgreSQL truncates names to %d bytes, and %q is %d bytes: export the model under a name "+
		"of at most %d bytes (sqlnb models export, then models import --name)",
		nb.ErrNotExportable, name, maxPGIdent, longest, len(longest), maxPGIdent-(len(longest)-len(name)))
}

// script writes one model's scoring script: the tables, the functions, and each component's terms through
// the exporter.
type script struct {
	*nb.Exporter
	s *Scorer
}

// pgLabelTypes gives the PostgreSQL type of each label type nb_predict returns as itself (LabelValues's, but
// VARCHAR); other labels are text.
var pgLabelTypes = map[string]string{"BOOLEAN": "boolean", "TINYINT": "smallint", "SMALLINT": "smallint", "INTEGER": "integer",
	"BIGINT": "bigint", "UTINYINT": "smallint", "USMALLINT": "integer", "UINTEGER": "bigint", "UBIGINT": "numeric",
	"FLOAT": "real", "DOUBLE": "double precision"}

// labelType returns the type _predict returns, as nb_predict does: the label column's own type where
// nb_predict keeps it, else text ("" for VARCHAR in DuckDB, text in PostgreSQL).
func (e *script) labelType() string {
	name, _, ok := e.s.Model.LabelValues()
	pgType, typed := pgLabelTypes[name]
	switch {
	case !ok || !typed:
		if e.Pg {
			return "text"
		}
		return ""
	case e.Pg:
		return pgType
	}
	return name
}

// typedLabel casts a label's text to labelType.
func (e *script) typedLabel(expr string) string {
	t := e.labelType()
	if t == "" || t == "text" {
		return expr
	}
	return "CAST(" + expr + " AS " + t + ")"
}

func (e *script) tables(b *strings.Builder) {
	s := e.s
	dbl, txt := "DOUBLE", "VARCHAR"
	if e.Pg {
		dbl, txt = "double precision", "text"
	}
	// Names as Go string literals: a line break in one would end the comment.
	fmt.Fprintf(b, "-- sqlnb model %s (label %s): %d classes, %d features; scoring with built-in SQL only.\n",
		strconv.Quote(e.Name), strconv.Quote(s.Model.Label), len(s.Labels), len(s.Inputs))
	fmt.Fprintf(b, "CREATE TABLE %s (position integer, class %s, log_prior %s);\n", e.Ident("_classes"), txt, dbl)
	for c, l := range s.Labels {
		fmt.Fprintf(b, "INSERT INTO %s VALUES (%d, %s, %s);\n", e.Ident("_classes"), c, queries.Literal(l), e.Num(s.LogPrior[c]))
	}
	fmt.Fprintf(b, "CREATE TABLE %s (feature %s, kind %s, class %s, value %s, parameter %s, estimate %s);\n",
		e.Ident("_parameters"), txt, txt, txt, txt, txt, dbl)
	for _, p := range Parameters(s) {
		if p.Feature == "" {
			continue
		}
		class, value := "NULL", "NULL"
		if !p.NoClass {
			class = queries.Literal(p.Class)
		}
		if p.HasValue {
			value = queries.Literal(p.Value)
		}
		fmt.Fprintf(b, "INSERT INTO %s VALUES (%s, %s, %s, %s, %s, %s);\n", e.Ident("_parameters"), queries.Literal(p.Feature),
			queries.Literal(string(p.Kind)), class, value, queries.Literal(p.Parameter), e.Num(p.Estimate))
	}
}

// list writes per-class expressions as the dialect's array, with the per-row bindings bound once (DuckDB).
func (e *script) list(items []string, bindings bool) string {
	if e.Pg {
		return "ARRAY[\n    " + strings.Join(items, ",\n    ") + "]"
	}
	l := "[\n    " + strings.Join(items, ",\n    ") + "]"
	if !bindings || len(e.Order) == 0 {
		return l
	}
	cols := make([]string, len(e.Order))
	for i, id := range e.Order {
		cols[i] = e.Bound[id] + " AS " + id
	}
	return fmt.Sprintf("(SELECT %s FROM (SELECT %s))", l, strings.Join(cols, ", "))
}

// orIncomplete is " OR <condition>" for rows that miss a required value, or "".
func (e *script) orIncomplete() string {
	if e.Incomplete == "" {
		return ""
	}
	return " OR " + e.Incomplete
}

func (e *script) labels() string {
	q := make([]string, len(e.s.Labels))
	for i, l := range e.s.Labels {
		q[i] = queries.Literal(l)
	}
	if e.Pg {
		return "ARRAY[" + strings.Join(q, ", ") + "]::text[]"
	}
	return "[" + strings.Join(q, ", ") + "]"
}

// pgFunction writes a PostgreSQL SQL function of one jsonb argument f whose body is dollar-quoted with a tag
// the body does not contain: $sqlnb$, else $sqlnb1$, $sqlnb2$, ... The body holds the model's classes and
// categories as literals, and a fixed tag let a category "$sqlnb$; CREATE TABLE ..." end the body and run.
func pgFunction(b *strings.Builder, name, returns, body string) {
	pgFunctionIn(b, "sql", name, returns, body)
}

// pgFunctionIn is pgFunction in language lang (sql or plpgsql).
func pgFunctionIn(b *strings.Builder, lang, name, returns, body string) {
	tag := "$sqlnb$"
	for i := 1; strings.Contains(body, tag); i++ {
		tag = fmt.Sprintf("$sqlnb%d$", i)
	}
	fmt.Fprintf(b, "CREATE FUNCTION %s(f jsonb) RETURNS %s LANGUAGE %s IMMUTABLE AS %s\n%s\n%s;\n", name, returns, lang, tag, body, tag)
}

// pgFeatureKeys is the start of a PL/pgSQL body that finds each feature's key in the row f as nb_predict
// finds a struct field: the exact key, else the only key equal to it ignoring ASCII case (to_jsonb of a
// PostgreSQL table whose unquoted column names were folded to lower case), copied under the feature's name;
// no such key, or several, is an error naming the model and feature (read as NULL, a missing key would have
// been skipped silently: the prior's answer). A row that is NULL returns NULL.
func (e *script) pgFeatureKeys() string {
	var b strings.Builder
	b.WriteString("DECLARE sqlnb_keys text[];\nBEGIN\n  IF f IS NULL OR jsonb_typeof(f) = 'null' THEN RETURN NULL; END IF;\n")
	fmt.Fprintf(&b, "  IF jsonb_typeof(f) <> 'object' THEN RAISE EXCEPTION USING MESSAGE = %s || jsonb_typeof(f) || ', not an object of features: pass a row as to_jsonb(t)'; END IF;\n",
		queries.Literal(fmt.Sprintf("model %q: the argument is a jsonb ", e.Name)))
	seen := map[string]bool{}
	for _, in := range e.s.Inputs {
		if seen[in.Name] {
			continue
		}
		seen[in.Name] = true
		name := queries.Literal(in.Name)
		hint := ""
		if len(in.Name) > maxPGIdent {
			hint = fmt.Sprintf("; PostgreSQL cuts column names to %d bytes: build the row with jsonb_build_object(%s, ...)", maxPGIdent, queries.Literal(in.Name))
		}
		fmt.Fprintf(&b, "  IF NOT f ? %s THEN\n", name)
		fmt.Fprintf(&b, "    sqlnb_keys := ARRAY(SELECT key FROM jsonb_object_keys(f) key WHERE translate(key, 'ABCDEFGHIJKLMNOPQRSTUVWXYZ', 'abcdefghijklmnopqrstuvwxyz') = %s);\n",
			queries.Literal(nb.FoldIdent(in.Name)))
		fmt.Fprintf(&b, "    IF cardinality(sqlnb_keys) <> 1 THEN RAISE EXCEPTION USING MESSAGE = %s || CASE WHEN cardinality(sqlnb_keys) = 0 THEN 'which the row lacks' ELSE 'which several keys match ignoring case' END || ' (its keys: ' || (SELECT coalesce(string_agg(key, ', '), 'none') FROM jsonb_object_keys(f) key) || ')' || %s; END IF;\n",
			queries.Literal(fmt.Sprintf("model %q needs feature %q, ", e.Name, in.Name)), queries.Literal(hint))
		fmt.Fprintf(&b, "    f := f || jsonb_build_object(%s, f -> sqlnb_keys[1]);\n  END IF;\n", name)
	}
	return b.String()
}

// functions writes the scoring functions. lo are the class scores; when every one is -inf (an overflow:
// values near 1e200 squared), hi — the quadratic terms scaled by 2^-1200, which do not overflow — decide:
// the classes with the largest hi share the mass equally (one of them in _predict).
func (e *script) functions(b *strings.Builder, lo, hi []string, limit bool) {
	jll, lim := e.Ident("_joint_log_likelihood"), e.Ident("__limit")
	if e.Pg {
		pgFunctionIn(b, "plpgsql", jll, "double precision[]", e.pgFeatureKeys()+fmt.Sprintf("  RETURN (SELECT CASE WHEN false%s THEN NULL ELSE %s END);\nEND",
			e.orIncomplete(), e.list(lo, false)))
		cases := ""
		if limit {
			pgFunctionIn(b, "plpgsql", lim, "double precision[]", e.pgFeatureKeys()+"  RETURN "+e.list(hi, false)+";\nEND")
			cases += fmt.Sprintf("WHEN (SELECT max(x) FROM unnest(a.arr) x) = '-Infinity'::float8 THEN (SELECT array_agg(CASE WHEN y = (SELECT max(z) FROM unnest(h) z) THEN 0 ELSE '-Infinity'::float8 END ORDER BY o) FROM (SELECT %s(f) AS h) hh, unnest(hh.h) WITH ORDINALITY u(y, o)) ", lim)
		}
		top := "a.arr"
		if cases != "" {
			top = "(CASE " + cases + "ELSE a.arr END)"
		}
		pgFunction(b, e.Ident("_predict_proba"), "jsonb", fmt.Sprintf(`  SELECT jsonb_object_agg(l.label, CASE WHEN b.v - m.mx < -700 THEN 0 ELSE exp(b.v - m.mx) / m.s END ORDER BY l.i)
  FROM (SELECT %s AS arr FROM (SELECT %s(f) AS arr) a) t
  CROSS JOIN LATERAL unnest(t.arr) WITH ORDINALITY b(v, i)
  JOIN unnest(%s) WITH ORDINALITY l(label, i) ON l.i = b.i
  CROSS JOIN LATERAL (SELECT max(x) AS mx, sum(CASE WHEN x - (SELECT max(y) FROM unnest(t.arr) y) < -700 THEN 0 ELSE exp(x - (SELECT max(y) FROM unnest(t.arr) y)) END) AS s FROM unnest(t.arr) x) m
  WHERE t.arr IS NOT NULL AND NOT 'Infinity'::float8 = ANY(t.arr)`, top, jll, e.labels()))
		pgFunction(b, e.Ident("_predict"), e.labelType(), fmt.Sprintf(`  SELECT %s
  FROM (SELECT %s AS arr FROM (SELECT %s(f) AS arr) a) t WHERE t.arr IS NOT NULL AND NOT 'Infinity'::float8 = ANY(t.arr)`,
			e.typedLabel(fmt.Sprintf("(%s)[(SELECT b.i FROM unnest(t.arr) WITH ORDINALITY b(v, i) ORDER BY b.v DESC, b.i LIMIT 1)]", e.labels())), top, jll))
		return
	}
	// DuckDB: macros substitute their arguments textually, so the class scores are bound once per row in a
	// subquery (referencing them in place would evaluate every class's sum again for each use).
	guard := ""
	if e.Version != "" {
		guard = fmt.Sprintf(" WHEN %s IS DISTINCT FROM %s THEN error(%s)", VersionSQL(e.Name), queries.Literal(e.Version),
			queries.Literal(fmt.Sprintf("model %q changed (retrained, its hyperparameters set, or dropped) since these macros were exported: "+
				"run sqlnb export --model %s --persist again", e.Name, shellWord(e.Name))))
	}
	fmt.Fprintf(b, "CREATE MACRO %s(f) AS (CASE WHEN f IS NULL%s THEN NULL%s ELSE %s END);\n", jll, e.orIncomplete(), guard, e.list(lo, true))
	proba := "[exp(x - mx) / s FOR x IN l]"
	pick := "list_position(l, mx)"
	if limit {
		fmt.Fprintf(b, "CREATE MACRO %s(f) AS (%s);\n", lim, e.list(hi, true))
		proba = fmt.Sprintf("CASE WHEN mx = '-inf'::DOUBLE THEN (SELECT [x / list_sum(u) FOR x IN u] FROM (SELECT list_transform(h, lambda y: (y = list_max(h))::DOUBLE) AS u FROM (SELECT %s(f) AS h))) ELSE [exp(x - mx) / s FOR x IN l] END", lim)
		pick = fmt.Sprintf("CASE WHEN mx = '-inf'::DOUBLE THEN list_position(%s(f), list_max(%s(f))) ELSE list_position(l, mx) END", lim, lim)
	}
	// A score of +inf is an overflow of a sum of double terms (a linear model on values near 1e308), which
	// may come in the middle of the sum of a class that is not the top one, and NaN one where +inf and -inf
	// terms meet (DuckDB sorts NaN above every number): the macros cannot tell the top class then and
	// return NULL (nb_* compute the scores in extended range).
	fmt.Fprintf(b, `CREATE MACRO %s(f) AS (
  SELECT CASE WHEN l IS NULL OR mx = 'inf'::DOUBLE OR isnan(mx) THEN NULL ELSE map(%s, %s) END
  FROM (SELECT l, mx, list_sum([exp(y - mx) FOR y IN l]) AS s
        FROM (SELECT l, list_max(l) AS mx FROM (SELECT %s(f) AS l))));
CREATE MACRO %s(f) AS (
  SELECT CASE WHEN l IS NULL OR mx = 'inf'::DOUBLE OR isnan(mx) THEN NULL ELSE %s END FROM (SELECT l, list_max(l) AS mx FROM (SELECT %s(f) AS l)));
`, e.Ident("_predict_proba"), e.labels(), proba, jll,
		e.Ident("_predict"), e.typedLabel(fmt.Sprintf("(%s)[%s]", e.labels(), pick)), jll)
}

// shellWord quotes s for a POSIX shell where it holds anything but letters, digits and -_.,/:= (a model named
// my "m" is 'my "m"' in the command a message suggests).
func shellWord(s string) string {
	plain := s != ""
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_.,/:=", r)) {
			plain = false
			break
		}
	}
	if plain {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
