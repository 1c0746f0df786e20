package output

import (
	"bufio"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/chzyer/readline"
	"github.com/duckdb/duckdb-go/v2"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

// Formats are the result formats: --format takes them, and the shell's .mode.
var Formats = []string{"table", "csv", "json", "line", "markdown"}

// ValidFormat reports whether format is one of Formats ("" is a table).
func ValidFormat(format string) bool { return format == "" || slices.Contains(Formats, format) }

// formatError is the error for a format that is not one of Formats.
func formatError(format string) error {
	return fmt.Errorf("--format %q: use %s", format, strings.Join(Formats, ", "))
}

// Options say how a result is written.
type Options struct {
	// Format is one of Formats ("" is a table).
	Format string
	// MaxRows is the most rows a table shows, then "… N more rows" (0: all of them). Other formats write
	// every row.
	MaxRows int
	// Notice is where a table written to something other than a terminal says it left rows out (the
	// command's stderr; nil: nowhere).
	Notice io.Writer
}

// DriverLimits explains the errors of the Go driver's (not DuckDB's) that a query can meet: it cannot read
// a STRUCT whose fields have no names, as (1, 'a') and row(1, 'a') make, a MAP whose keys are not scalars,
// or a type it does not know (TIME_NS).
func DriverLimits(err error) error {
	if err == nil {
		return nil
	}
	msg := err.Error()
	if !strings.HasPrefix(msg, "database/sql/driver: ") { // DuckDB's errors (error('…') of the user's included) pass as they are
		return err
	}
	switch {
	case strings.Contains(msg, "API error: empty name"):
		return errors.New("a STRUCT without field names (as (1, 'a') or row(1, 'a') make) cannot be read by the Go " +
			"driver: name its fields ({'x': 1, 'y': 'a'}) or cast it to VARCHAR")
	case strings.Contains(msg, "MAP key type not supported"), strings.Contains(msg, "unsupported data type"):
		return fmt.Errorf("the Go driver cannot read a column of this result (%s): cast it to VARCHAR", strings.TrimPrefix(msg, "database/sql/driver: "))
	}
	return err
}

// WriteRows writes the result of rows (and closes it) as o says, one row at a time: only a table keeps
// rows in memory, at most o.MaxRows of them (0: all), and counts the rest. Errors of the Go driver are
// explained (DriverLimits).
func WriteRows(w io.Writer, rows *sql.Rows, o Options) (err error) {
	defer rows.Close()
	defer func() { err = DriverLimits(err) }()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return err
	}
	names, types := make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.Name(), c.DatabaseTypeName()
	}
	rw, err := newResultWriter(w, o, names, types)
	if err != nil {
		return err
	}
	vals := make([]any, len(cols))
	ptrs := make([]any, len(cols))
	for i := range vals {
		ptrs[i] = &vals[i]
	}
	for rows.Next() {
		if !rw.wants() {
			rw.skip()
			continue
		}
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if err := rw.row(vals); err != nil {
			return err
		}
	}
	if err := rows.Err(); err != nil {
		return err
	}
	return rw.close()
}

// ReadRows reads every row of rows (and closes it): column names, DuckDB type names and values. For
// small results that the caller needs whole (the shell's .schema).
func ReadRows(rows *sql.Rows) (names, types []string, data [][]any, err error) {
	defer rows.Close()
	cols, err := rows.ColumnTypes()
	if err != nil {
		return nil, nil, nil, err
	}
	names, types = make([]string, len(cols)), make([]string, len(cols))
	for i, c := range cols {
		names[i], types[i] = c.Name(), c.DatabaseTypeName()
	}
	for rows.Next() {
		vals := make([]any, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rows.Scan(ptrs...); err != nil {
			return nil, nil, nil, err
		}
		data = append(data, vals)
	}
	return names, types, data, rows.Err()
}

// Write writes rows held in memory (names and types: the columns' names and DuckDB types) as o says.
func Write(w io.Writer, names, types []string, data [][]any, o Options) error {
	rw, err := newResultWriter(w, o, names, types)
	if err != nil {
		return err
	}
	for _, row := range data {
		if !rw.wants() {
			rw.skip()
			continue
		}
		if err := rw.row(row); err != nil {
			return err
		}
	}
	return rw.close()
}

// resultWriter writes one result in a format as its rows arrive. csv, json, line and markdown write each
// row at once; a table is aligned, so it keeps its first limit rows, counts the others, and draws itself
// at close with a "… N more rows" line when rows were left out.
type resultWriter struct {
	w            *bufio.Writer
	out          io.Writer // what w writes to
	format       string
	limit        int
	notice       io.Writer // Options.Notice
	names, types []string
	maxWidth     int           // table: the terminal's width, which wide columns are cut to fit (0: none)
	shapes       []*nestedType // per column: the order of its STRUCT fields (parseNestedType)
	n            int64         // rows seen
	kept         [][]any
	csv          *csv.Writer
	width        int      // line mode: the widest column name
	jsonKeys     [][]byte // json: the column names, quoted once
}

func newResultWriter(w io.Writer, o Options, names, types []string) (*resultWriter, error) {
	if !ValidFormat(o.Format) {
		return nil, formatError(o.Format)
	}
	format := o.Format
	rw := &resultWriter{w: bufio.NewWriterSize(w, 64<<10), out: w, format: format, limit: o.MaxRows, notice: o.Notice, names: names, types: types}
	if f, ok := w.(*os.File); ok && IsTerminal(w) {
		if width, _, err := readline.GetSize(int(f.Fd())); err == nil && width > 0 {
			rw.maxWidth = width
		}
	}
	rw.shapes = make([]*nestedType, len(types))
	for i, t := range types {
		rw.shapes[i] = parseNestedType(t)
	}
	switch format {
	case "csv":
		rw.csv = csv.NewWriter(rw.w) // the header; the rows are written by csvField
		if err := rw.csv.Write(names); err != nil {
			return nil, err
		}
		rw.csv.Flush()
	case "json":
		rw.w.WriteString("[")
		rw.jsonKeys = make([][]byte, len(names))
		for i, n := range names {
			rw.jsonKeys[i], _ = marshalJSON(n)
		}
	case "line":
		for _, n := range names {
			rw.width = max(rw.width, text.RuneWidthWithoutEscSequences(n)) // display columns: 日本語 takes 6
		}
	case "markdown":
		cells := make([]string, len(names))
		for i, n := range names {
			cells[i] = markdownCell(n)
		}
		fmt.Fprintf(rw.w, "| %s |\n|%s\n", strings.Join(cells, " | "), strings.Repeat("---|", len(names)))
	}
	return rw, nil
}

// wants reports whether the next row is written (or kept); when not, the caller only counts it (skip).
func (rw *resultWriter) wants() bool {
	return !rw.isTable() || rw.limit <= 0 || rw.n < int64(rw.limit)
}

func (rw *resultWriter) skip() { rw.n++ }

func (rw *resultWriter) isTable() bool { return rw.format == "table" || rw.format == "" }

// row writes (or, for a table, keeps a copy of) one row.
func (rw *resultWriter) row(vals []any) error {
	rw.n++
	switch rw.format {
	case "csv":
		for i, v := range vals {
			if i > 0 {
				rw.w.WriteByte(',')
			}
			if v != nil {
				rw.w.WriteString(csvField(formatTyped(v, rw.shapes[i])))
			}
		}
		rw.w.WriteByte('\n')
		return nil
	case "json":
		if rw.n > 1 {
			rw.w.WriteString(",")
		}
		rw.w.WriteString("\n  {")
		for i, v := range vals {
			if i > 0 {
				rw.w.WriteString(",")
			}
			rw.w.WriteString("\n    ")
			rw.w.Write(rw.jsonKeys[i])
			rw.w.WriteString(": ")
			var val []byte
			var err error
			switch x := jsonTyped(v, rw.shapes[i]).(type) {
			case map[string]any, []any, orderedObject: // nested: indented under its key
				val, err = marshalJSONIndent(x, "    ", "  ")
			default:
				val, err = marshalJSON(x)
			}
			if err != nil {
				return err
			}
			rw.w.Write(val)
		}
		if len(vals) > 0 {
			rw.w.WriteString("\n  ")
		}
		rw.w.WriteString("}")
	case "line":
		if rw.n > 1 {
			rw.w.WriteString("\n")
		}
		for i, v := range vals {
			pad := strings.Repeat(" ", max(0, rw.width-text.RuneWidthWithoutEscSequences(rw.names[i])))
			fmt.Fprintf(rw.w, "%s%s = %s\n", pad, rw.names[i], formatTyped(v, rw.shapes[i]))
		}
	case "markdown":
		cells := make([]string, len(vals))
		for i, v := range vals {
			cells[i] = markdownCell(formatTyped(v, rw.shapes[i]))
		}
		fmt.Fprintf(rw.w, "| %s |\n", strings.Join(cells, " | "))
	default:
		rw.kept = append(rw.kept, slices.Clone(vals))
	}
	return nil
}

// close ends the result (a table is drawn now) and flushes it.
func (rw *resultWriter) close() error {
	switch rw.format {
	case "csv":
		rw.csv.Flush()
		if err := rw.csv.Error(); err != nil {
			return err
		}
	case "json":
		if rw.n > 0 {
			rw.w.WriteString("\n")
		}
		rw.w.WriteString("]\n")
	case "line", "markdown":
	default:
		rw.drawTable()
		if left := rw.n - int64(len(rw.kept)); left > 0 && rw.notice != nil && !IsTerminal(rw.out) {
			// Redirected to a file or a pipe, a table that leaves rows out loses them silently.
			fmt.Fprintf(rw.notice, "sqlnb: the table shows %d of the %d rows (--max-rows %d): --max-rows 0 shows them all; "+
				"--format csv or json (or predict --output FILE) writes them all without holding them\n", len(rw.kept), rw.n, rw.limit)
		}
	}
	return rw.w.Flush()
}

func (rw *resultWriter) drawTable() {
	t := table.NewWriter()
	t.SetOutputMirror(rw.w)
	t.SetStyle(table.StyleLight)
	t.Style().Format.Header = text.FormatDefault
	header := table.Row{}
	for i, n := range rw.names {
		header = append(header, n+"\n"+strings.ToLower(rw.types[i]))
	}
	t.AppendHeader(header, table.RowConfig{AutoMerge: false})
	cells := make([][]string, len(rw.kept))
	for k, row := range rw.kept {
		cells[k] = make([]string, len(row))
		for i, v := range row {
			cells[k][i] = formatTyped(v, rw.shapes[i])
		}
	}
	widths := fitWidths(rw.names, rw.types, cells, rw.maxWidth)
	align := make([]table.ColumnConfig, len(rw.names))
	for i := range rw.names {
		align[i] = table.ColumnConfig{Number: i + 1, AlignHeader: text.AlignLeft}
		if widths != nil {
			align[i].WidthMax, align[i].WidthMaxEnforcer = widths[i], cut
		}
	}
	t.SetColumnConfigs(align)
	for _, row := range cells {
		r := table.Row{}
		for _, c := range row {
			r = append(r, c)
		}
		t.AppendRow(r)
	}
	t.Render()
	if more := rw.n - int64(len(rw.kept)); more > 0 {
		fmt.Fprintf(rw.w, "… %d more row%s\n", more, Plural(more))
	}
	fmt.Fprintf(rw.w, "(%d row%s)\n", rw.n, Plural(rw.n))
}

// fitWidths returns the widths the columns of a table are cut to so that it fits in maxWidth terminal
// columns, as the DuckDB CLI fits its boxes to the terminal (the widest column is narrowed first, to no
// less than 8), or nil when it fits or maxWidth is 0 (not a terminal).
func fitWidths(names, types []string, cells [][]string, maxWidth int) []int {
	if maxWidth <= 0 || len(names) == 0 {
		return nil
	}
	widths := make([]int, len(names))
	for i, n := range names {
		widths[i] = max(text.RuneWidthWithoutEscSequences(n), text.RuneWidthWithoutEscSequences(types[i]))
	}
	for _, row := range cells {
		for i, c := range row {
			for _, line := range strings.Split(c, "\n") {
				widths[i] = max(widths[i], text.RuneWidthWithoutEscSequences(line))
			}
		}
	}
	total := func() int { // "│ " before each column, " " after, a closing "│"
		n := 1
		for _, w := range widths {
			n += w + 3
		}
		return n
	}
	if total() <= maxWidth {
		return nil
	}
	for total() > maxWidth {
		widest := 0
		for i, w := range widths {
			if w > widths[widest] {
				widest = i
			}
		}
		if widths[widest] <= 8 {
			break
		}
		widths[widest]--
	}
	return widths
}

// cut shortens s to width display columns, its last one "…" when something was cut.
func cut(s string, width int) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if text.RuneWidthWithoutEscSequences(l) > width {
			lines[i] = text.Trim(l, width-1) + "…"
		}
	}
	return strings.Join(lines, "\n")
}

// Plural is "s" unless n is 1: "%d row%s".
func Plural[N int | int64](n N) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// FormatValue renders a DuckDB value as text.
func FormatValue(v any) string {
	switch x := v.(type) {
	case nil:
		return "NULL"
	case string:
		return x
	case []byte:
		return string(x)
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64)
	case float32:
		return strconv.FormatFloat(float64(x), 'g', -1, 32)
	case time.Time:
		if x.Hour() == 0 && x.Minute() == 0 && x.Second() == 0 && x.Nanosecond() == 0 {
			return x.Format("2006-01-02")
		}
		return x.Format("2006-01-02 15:04:05.999999")
	case duckdb.Decimal:
		return decimalText(x)
	case *big.Int:
		return x.String()
	case duckdb.OrderedMap:
		parts := make([]string, 0, x.Len())
		for i, k := range x.Keys() {
			parts = append(parts, FormatValue(k)+"="+FormatValue(x.Values()[i]))
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case map[string]any:
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		parts := make([]string, len(keys))
		for i, k := range keys {
			parts[i] = "'" + k + "': " + FormatValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = FormatValue(e)
		}
		return "[" + strings.Join(parts, ", ") + "]"
	}
	return fmt.Sprint(v)
}

func decimalText(d duckdb.Decimal) string {
	s := d.Value.String()
	if d.Scale == 0 {
		return s
	}
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for len(s) <= int(d.Scale) {
		s = "0" + s
	}
	s = s[:len(s)-int(d.Scale)] + "." + s[len(s)-int(d.Scale):]
	if neg {
		s = "-" + s
	}
	return s
}

// JSONValue keeps numbers, booleans and NULL native in JSON output and renders the rest as text.
func JSONValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return FormatValue(x)
		}
		return x
	case float32:
		return JSONValue(float64(x))
	case duckdb.Decimal:
		return json.Number(decimalText(x)) // every digit, as DuckDB writes a DECIMAL to JSON
	case *big.Int:
		return json.Number(x.String())
	case duckdb.OrderedMap:
		obj := map[string]any{}
		for i, k := range x.Keys() {
			obj[FormatValue(k)] = JSONValue(x.Values()[i])
		}
		return obj
	case map[string]any: // a STRUCT: an object (its fields by name)
		obj := make(map[string]any, len(x))
		for k, e := range x {
			obj[k] = JSONValue(e)
		}
		return obj
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = JSONValue(e)
		}
		return out
	}
	return FormatValue(v)
}

// csvField is one CSV field holding s, quoted as DuckDB's COPY quotes one: when it is empty ("" is the empty
// string, an empty field NULL) or holds a comma, a quote, a line break or a '#' (which DuckDB's reader may
// take for a comment); a quote inside is doubled.
func csvField(s string) string {
	if s != "" && !strings.ContainsAny(s, ",\"\r\n#") {
		return s
	}
	return `"` + strings.ReplaceAll(s, `"`, `""`) + `"`
}

// markdownReplacer escapes what would end a GitHub-flavoured markdown table cell: a '|' (as \|) and a line
// break (as <br>, which GitHub renders as one).
var markdownReplacer = strings.NewReplacer("|", `\|`, "\r\n", "<br>", "\n", "<br>", "\r", "<br>")

// markdownCell is s as one cell (or header) of a markdown table row.
func markdownCell(s string) string { return markdownReplacer.Replace(s) }

// IsTerminal reports whether w is a terminal.
func IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && readline.IsTerminal(int(f.Fd()))
}
