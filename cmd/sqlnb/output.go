package main

import (
	"context"
	"database/sql"
	"fmt"
	"io"
	"strings"

	"github.com/sqlnb/sqlnb/internal/output"
)

// maxRows is the global --max-rows flag: the most rows a table shows (0: all of them). Other formats
// write every row.
var maxRows = defaultMaxRows

// defaultMaxRows is the DuckDB CLI's default.
const defaultMaxRows = 40

// formats are the result formats (package output); the shell's .mode takes the same names.
var formats = output.Formats

// formatHelp is the help of every --format flag.
var formatHelp = "output format: " + strings.Join(formats, ", ")

// leftOutNotice is where a table written to something other than a terminal says it left rows out (the
// command's stderr; nil: nowhere).
var leftOutNotice io.Writer

// checkFormat refuses a --format that is not one of formats (a usage error).
func checkFormat(format string) error {
	if output.ValidFormat(format) {
		return nil
	}
	return usageError{fmt.Errorf("--format %q: use %s", format, strings.Join(formats, ", "))}
}

// outputOptions are the options of a result written in format: at most --max-rows rows of a table.
func outputOptions(format string, limit int) output.Options {
	return output.Options{Format: format, MaxRows: limit, Notice: leftOutNotice}
}

// query runs stmt on db (a *sql.DB or *sql.Conn) and writes its result to w in format (table, csv, json,
// line or markdown), row by row.
func query(ctx context.Context, db interface {
	QueryContext(context.Context, string, ...any) (*sql.Rows, error)
}, w io.Writer, format, stmt string, args ...any) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	rows, err := db.QueryContext(ctx, stmt, args...)
	if err != nil {
		return output.DriverLimits(err)
	}
	return writeRows(w, format, maxRows, rows)
}

// writeRows writes the result of rows (and closes it) in format (output.WriteRows), a table at most limit
// rows of it (0: all).
func writeRows(w io.Writer, format string, limit int, rows *sql.Rows) error {
	if err := checkFormat(format); err != nil {
		rows.Close()
		return err
	}
	return output.WriteRows(w, rows, outputOptions(format, limit))
}

// writeResult writes rows held in memory in format; a table shows at most --max-rows of them.
func writeResult(w io.Writer, format string, names, types []string, data [][]any) error {
	if err := checkFormat(format); err != nil {
		return err
	}
	return output.Write(w, names, types, data, outputOptions(format, maxRows))
}

// jsonValue keeps numbers, booleans and NULL native in JSON output and renders the rest as text
// (output.JSONValue).
func jsonValue(v any) any { return output.JSONValue(v) }
