package main

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"github.com/sqlnb/sqlnb/udf"

	"github.com/spf13/cobra"

	"github.com/sqlnb/sqlnb/internal/outfile"
	"github.com/sqlnb/sqlnb/internal/output"
	"github.com/sqlnb/sqlnb/internal/sqltext"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
)

type predictOptions struct {
	model, from, output, format, prefix string
	proba, probaMap                     bool
	columns                             []string
}

func newPredictCmd(e *env) *cobra.Command {
	o := &predictOptions{}
	cmd := &cobra.Command{
		Use:   "predict --model NAME --from SOURCE [--output FILE]",
		Short: "Score a table, query or file with a stored model",
		Long: `Score every row of SOURCE with model NAME inside DuckDB and write the source columns plus "prediction"
(and, with --proba, one "proba_<class>" column per class) to FILE (.parquet, .csv, .json: one JSON array, or
.jsonl/.ndjson: an object a line; streamed by DuckDB's COPY) or to stdout (--format table|csv|json).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runPredict(cmd, e, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.model, "model", "", "model name (required)")
	f.StringVar(&o.from, "from", "", "source to score: table, query or file glob (required)")
	f.StringVar(&o.output, "output", "", "output file: .parquet, .csv, .tsv, .json (an array) or .jsonl (an object a line); csv, tsv, json also .gz or .zst (default: stdout)")
	f.StringVar(&o.format, "format", "table", formatHelp+" (without --output)")
	f.BoolVar(&o.proba, "proba", false, "add a proba_<class> column per class")
	f.BoolVar(&o.probaMap, "proba-map", false, "add one proba column: a MAP from class to posterior (for classes whose names differ only in case)")
	f.StringVar(&o.prefix, "prefix", "", "prefix of sqlnb's output columns (prediction, proba_...), e.g. nb_ when the source has a column prediction")
	f.StringSliceVar(&o.columns, "columns", nil, "source columns to keep (default: all)")
	_ = cmd.MarkFlagRequired("model")
	_ = cmd.MarkFlagRequired("from")
	return cmd
}

var copyFormats = map[string]string{".parquet": "parquet", ".csv": "csv", ".tsv": "csv", ".json": "json", ".jsonl": "json", ".ndjson": "json"}

// copyOptions are COPY's options beyond the format, by extension: a .json file is one JSON array (what a
// JSON parser reads), .jsonl and .ndjson one object a line; .tsv is csv with tabs.
var copyOptions = map[string]string{".json": ", ARRAY true", ".tsv": ", DELIMITER '\t'"}

// outputFormat returns COPY's format and options for an --output path, by its extension and an optional
// .gz or .zst after it (csv, tsv and json files: DuckDB compresses them; parquet compresses itself).
func outputFormat(path string) (format, options string, ok bool) {
	name := strings.ToLower(path)
	compression := ""
	for suffix, c := range map[string]string{".gz": "gzip", ".zst": "zstd"} {
		if strings.HasSuffix(name, suffix) {
			name, compression = strings.TrimSuffix(name, suffix), c
		}
	}
	ext := filepath.Ext(name)
	format, ok = copyFormats[ext]
	if !ok || (compression != "" && format == "parquet") {
		return "", "", false
	}
	options = copyOptions[ext]
	if compression != "" {
		options += ", COMPRESSION " + compression
	}
	return format, options, true
}

func runPredict(cmd *cobra.Command, e *env, o *predictOptions) error {
	var copyFormat, copyOpts string
	if o.output != "" {
		var ok bool
		if copyFormat, copyOpts, ok = outputFormat(o.output); !ok {
			return usageError{fmt.Errorf("--output %q: use a .parquet, .csv, .tsv or .json file (or .jsonl, .ndjson: an object a line; "+
				"csv, tsv and json compressed as .gz or .zst)", o.output)}
		}
		if f := cmd.Flags().Lookup("format"); f != nil && f.Changed && f.Value.String() != copyFormat {
			return usageError{fmt.Errorf("--format %s with --output %q: the file's format comes from its extension (%s); --format is for standard output",
				f.Value.String(), o.output, copyFormat)}
		}
	}
	if err := nb.ValidateName(o.model); err != nil {
		return usageError{err}
	}
	ctx := cmd.Context()
	db, err := e.openReadOnly()
	if err != nil {
		return err
	}
	defer db.Close()
	m, err := sqlnb.Load(ctx, db, o.model)
	if err != nil {
		return err
	}
	src, err := nb.ResolveSource(ctx, db, o.from)
	if err != nil {
		return err
	}
	sel, err := predictQuery(ctx, db, o, m, src)
	if err != nil {
		return err
	}
	conn, err := db.Conn(ctx) // one connection, whose progress the bar shows
	if err != nil {
		return err
	}
	defer conn.Close()
	start := time.Now()
	if o.output == "" {
		// The rows go to stdout: a bar only when they do not go to the terminal too.
		bar := &tracker{e: e, stop: func() {}}
		if !output.IsTerminal(e.stdout) {
			bar = e.track(ctx, conn, "scoring", o.from)
		}
		err := query(ctx, conn, e.stdout, o.format, sel, src.Args...)
		bar.clear()
		return err
	}
	if readsFile(ctx, conn, o.from, o.output) {
		return usageError{fmt.Errorf("predict %q: --output %s is a file --from reads: write to another file (it would replace the data being scored)", o.model, o.output)}
	}
	// DuckDB writes the whole file to out.Path(); it replaces --output only once complete.
	stmt, err := queries.Render("predict_copy.tmpl.sql", queries.PredictCopy{Select: sel, Path: len(src.Args) + 1, Format: copyFormat, Options: copyOpts})
	if err != nil {
		return err
	}
	out, err := outfile.Create(o.output)
	if err != nil {
		return err
	}
	bar := e.track(ctx, conn, "scoring", o.from)
	res, err := conn.ExecContext(ctx, stmt, append(src.Args, out.Path())...)
	bar.clear()
	if err != nil {
		out.Abort()
		return fmt.Errorf("predict %q: %s", o.model, strings.ReplaceAll(err.Error(), out.Path(), o.output))
	}
	if err := out.Commit(); err != nil {
		return err
	}
	n, _ := res.RowsAffected()
	bar.summary("scored %d rows with %q into %s in %.3fs", n, o.model, o.output, time.Since(start).Seconds())
	return nil
}

// predictQuery is the SELECT that predict writes: the kept source columns, then sqlnb's prediction (and
// posteriors). Output column names are unambiguous by rule: DuckDB's names ignore case, so a class whose
// proba_ column would repeat another's (classes "A" and "a"), or a sqlnb column that the source already has,
// is an error saying what to do (--proba-map, --prefix, --columns), never a silent rename.
func predictQuery(ctx context.Context, db *udf.DB, o *predictOptions, m *sqlnb.Model, src nb.Source) (string, error) {
	cols, err := nb.Describe(ctx, db, src)
	if err != nil {
		return "", err
	}
	kept := cols
	if len(o.columns) > 0 {
		if err := nb.RequireColumns(ctx, db, src, "--columns", o.columns...); err != nil {
			return "", usageError{err}
		}
		kept = nil
		for _, c := range o.columns {
			kept = append(kept, nb.Column{Name: c})
		}
	}
	taken := map[string]string{} // name folded as DuckDB folds identifiers (ASCII letters) → what holds it
	classOf := map[string]bool{} // the folded names that are class columns
	for _, c := range kept {
		if prev, ok := taken[nb.FoldIdent(c.Name)]; ok && len(o.columns) > 0 {
			return "", usageError{fmt.Errorf("predict %q: --columns names %q and %s, which are one column to DuckDB (its names ignore case): name it once",
				m.Name, c.Name, strings.TrimPrefix(prev, "the source column "))}
		}
		taken[nb.FoldIdent(c.Name)] = fmt.Sprintf("the source column %q", c.Name)
	}
	claim := func(name, what string, class bool) error {
		key := nb.FoldIdent(name)
		if prev, ok := taken[key]; ok {
			advice := "give sqlnb's columns a prefix with --prefix (e.g. --prefix nb_), or keep other columns with --columns"
			switch {
			case class && classOf[key]: // two classes: no prefix separates them
				advice = "use --proba-map (one MAP column of every class's posterior) instead of --proba"
			case !o.probaMap && class:
				advice += ", or use --proba-map instead of --proba"
			}
			return usageError{fmt.Errorf("predict %q: the output column %q (%s) would clash with %s, as DuckDB's column names ignore case: %s",
				m.Name, name, what, prev, advice)}
		}
		taken[key] = fmt.Sprintf("sqlnb's %s", what)
		classOf[key] = class
		return nil
	}
	// nb_predict returns the class as text; the output keeps the label column's type (LabelCast).
	data := queries.Predict{From: src.From, Columns: o.columns, Model: queries.Literal(o.model), LabelCast: m.LabelCast(),
		Prediction: o.prefix + "prediction"}
	if err := claim(data.Prediction, "prediction", false); err != nil {
		return "", err
	}
	if o.probaMap {
		data.ProbaMap = o.prefix + "proba"
		if err := claim(data.ProbaMap, "posterior map", false); err != nil {
			return "", err
		}
	}
	if o.proba {
		// The proba_<class> columns are the elements of one nb_predict_proba per row, in the model's class
		// order (its MAP's order): a column per nb_proba call would evaluate the model once per class. The
		// posteriors are one column of an inner SELECT that the outer one takes apart; DuckDB inlines the inner
		// column into each element and its common-subexpression elimination evaluates it once per row.
		data.Posteriors = o.prefix + "__sqlnb_posteriors"
		if err := claim(data.Posteriors, "posteriors", false); err != nil {
			return "", err
		}
		for _, c := range m.Classes {
			name := o.prefix + "proba_" + c.Label
			if err := claim(name, fmt.Sprintf("posterior of class %q", c.Label), true); err != nil {
				return "", err
			}
			data.Proba = append(data.Proba, name)
		}
	}
	return queries.Render("predict_select.tmpl.sql", data)
}

// readsFile reports whether the source from takes in the file at path: from as a file or a glob of files
// (as DuckDB reads it), or a file or glob named by a string literal in from (a query: FROM 'data.csv',
// read_parquet('s*.parquet')) or in the SQL of a view that from names or mentions, and of the views those
// mention, as far as eight deep.
func readsFile(ctx context.Context, conn *sql.Conn, from, path string) bool {
	out, err := os.Stat(path)
	if err != nil {
		return false
	}
	names := append(append([]string{from}, sqltext.Literals(from)...), pathWords(from)...)
	views := map[string]string{} // lower-case name → SQL
	if rows, err := conn.QueryContext(ctx, queries.SQL("source_views.sql")); err == nil {
		for rows.Next() {
			var name, text string
			if rows.Scan(&name, &text) == nil {
				views[strings.ToLower(name)] = text
			}
		}
		rows.Close()
	}
	seen := map[string]bool{}
	texts := []string{from}
	for depth := 0; depth < 8 && len(texts) > 0; depth++ {
		var next []string
		for _, text := range texts {
			lower := strings.ToLower(text)
			for name, def := range views {
				if !seen[name] && mentions(lower, name) {
					seen[name] = true
					names = append(names, sqltext.Literals(def)...)
					names = append(names, pathWords(def)...)
					next = append(next, def)
				}
			}
		}
		texts = next
	}
	for _, n := range names {
		if recursiveGlobMatches(n, path) {
			return true
		}
		matches, _ := filepath.Glob(n)
		for _, m := range matches {
			if in, err := os.Stat(m); err == nil && os.SameFile(in, out) {
				return true
			}
		}
	}
	return false
}

// pathWords returns the words of SQL text that may name a file without quotes, as DuckDB reads FROM
// data.parquet or FROM dir/x.csv (which a view's stored SQL spells bare."csv"): the runs of adjacent tokens
// other than blanks, comments, strings, commas, semicolons and parentheses that hold a '.' or '/' and no
// glob character, without the quotes of their quoted names. A glob is read only from a string (quoted), and
// unquoted * and ? are SQL's: SELECT *, t.*, x * 2 (taken as globs they matched every file of the
// directory, and predict refused to replace its own --output of the last run).
func pathWords(text string) []string {
	var out []string
	var w strings.Builder
	flush := func() {
		if s := w.String(); strings.ContainsAny(s, "./") && !strings.ContainsAny(s, "*?[") {
			out = append(out, s)
		}
		w.Reset()
	}
	for t := range sqltext.Tokens(text) {
		switch {
		case t.Kind == sqltext.Space || t.Kind == sqltext.Comment || t.Kind == sqltext.String ||
			t.Is(",") || t.Is(";") || t.Is("(") || t.Is(")"):
			flush()
		case t.Kind == sqltext.QuotedName && !t.Open:
			w.WriteString(t.Name())
		default:
			w.WriteString(t.Text)
		}
	}
	flush()
	return out
}

// recursiveGlobMatches reports whether a DuckDB glob with ** (any depth of directories: dir/**/*.csv) takes in
// the file at path: path lies under the directory before the ** and its name matches the pattern's last
// part. filepath.Glob reads ** as *, one level.
func recursiveGlobMatches(pattern, path string) bool {
	before, _, ok := strings.Cut(pattern, "**")
	if !ok {
		return false
	}
	dir, err := filepath.Abs(filepath.Clean(before + "."))
	if err != nil {
		return false
	}
	file, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	last := pattern[strings.LastIndexByte(pattern, '/')+1:]
	matched, _ := filepath.Match(last, filepath.Base(file))
	return matched && strings.HasPrefix(file, dir+string(filepath.Separator))
}

// mentions reports whether text names name (lower case) as an identifier, plain or quoted, or holds a string
// that does (a query in a string: query('SELECT * FROM v')).
func mentions(text, name string) bool {
	for t := range sqltext.Significant(text) {
		switch {
		case strings.EqualFold(t.Name(), name):
			return true
		case t.Kind == sqltext.String && strings.Contains(strings.ToLower(t.Value()), name) && mentions(t.Value(), name):
			return true
		}
	}
	return false
}
