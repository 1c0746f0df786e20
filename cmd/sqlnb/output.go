package main

import (
	"context"
	"database/sql"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/big"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/duckdb/duckdb-go/v2"
	"github.com/jedib0t/go-pretty/v6/table"
	"github.com/jedib0t/go-pretty/v6/text"
)

func mkdirAll(dir string) error { return os.MkdirAll(dir, 0o755) }

// query runs stmt and writes its result to w in format (table, csv, json, line or markdown).
func query(ctx context.Context, db *sql.DB, w io.Writer, format, stmt string, args ...any) error {
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return err
	}
	names, types, data, err := readRows(rows)
	if err != nil {
		return err
	}
	return writeResult(w, format, names, types, data)
}

// readRows reads every row of rows (and closes it): column names, DuckDB type names and values.
func readRows(rows *sql.Rows) (names, types []string, data [][]any, err error) {
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

func writeResult(w io.Writer, format string, names, types []string, data [][]any) error {
	switch format {
	case "csv":
		cw := csv.NewWriter(w)
		_ = cw.Write(names)
		for _, row := range data {
			rec := make([]string, len(row))
			for i, v := range row {
				if v != nil {
					rec[i] = formatValue(v)
				}
			}
			_ = cw.Write(rec)
		}
		cw.Flush()
		return cw.Error()
	case "json":
		out := make([]map[string]any, len(data))
		for r, row := range data {
			obj := make(map[string]any, len(row))
			for i, v := range row {
				obj[names[i]] = jsonValue(v)
			}
			out[r] = obj
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "line":
		width := 0
		for _, n := range names {
			width = max(width, len(n))
		}
		for r, row := range data {
			if r > 0 {
				fmt.Fprintln(w)
			}
			for i, v := range row {
				fmt.Fprintf(w, "%*s = %s\n", width, names[i], formatValue(v))
			}
		}
		return nil
	case "markdown":
		fmt.Fprintf(w, "| %s |\n|%s\n", strings.Join(names, " | "), strings.Repeat("---|", len(names)))
		for _, row := range data {
			cells := make([]string, len(row))
			for i, v := range row {
				cells[i] = strings.ReplaceAll(formatValue(v), "|", "\\|")
			}
			fmt.Fprintf(w, "| %s |\n", strings.Join(cells, " | "))
		}
		return nil
	case "table", "":
		t := table.NewWriter()
		t.SetOutputMirror(w)
		t.SetStyle(table.StyleLight)
		t.Style().Format.Header = text.FormatDefault
		header := table.Row{}
		for i, n := range names {
			header = append(header, n+"\n"+strings.ToLower(types[i]))
		}
		t.AppendHeader(header, table.RowConfig{AutoMerge: false})
		align := make([]table.ColumnConfig, len(names))
		for i := range names {
			align[i] = table.ColumnConfig{Number: i + 1, AlignHeader: text.AlignLeft}
		}
		t.SetColumnConfigs(align)
		for _, row := range data {
			r := table.Row{}
			for _, v := range row {
				if v == nil {
					r = append(r, "NULL")
				} else {
					r = append(r, formatValue(v))
				}
			}
			t.AppendRow(r)
		}
		t.Render()
		fmt.Fprintf(w, "(%d row%s)\n", len(data), plural(len(data)))
		return nil
	}
	return usageError{fmt.Errorf("--format %q: use table, csv, json, line or markdown", format)}
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// formatValue renders a DuckDB value as text.
func formatValue(v any) string {
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
			parts = append(parts, formatValue(k)+"="+formatValue(x.Values()[i]))
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
			parts[i] = "'" + k + "': " + formatValue(x[k])
		}
		return "{" + strings.Join(parts, ", ") + "}"
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			parts[i] = formatValue(e)
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

// jsonValue keeps numbers, booleans and NULL native in JSON output and renders the rest as text.
func jsonValue(v any) any {
	switch x := v.(type) {
	case nil, bool, string, int8, int16, int32, int64, uint8, uint16, uint32, uint64, int, uint:
		return x
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return formatValue(x)
		}
		return x
	case float32:
		return jsonValue(float64(x))
	case duckdb.Decimal:
		f, _ := strconv.ParseFloat(decimalText(x), 64)
		return f
	case duckdb.OrderedMap:
		obj := map[string]any{}
		for i, k := range x.Keys() {
			obj[formatValue(k)] = jsonValue(x.Values()[i])
		}
		return obj
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = jsonValue(e)
		}
		return out
	}
	return formatValue(v)
}
