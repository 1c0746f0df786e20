// Package output writes query results as sqlnb's commands and shell show them: an aligned table (at most
// Options.MaxRows rows, cut to a terminal's width), csv, json, line or markdown, row by row as the rows
// arrive. Values are written as DuckDB's own VARCHAR cast writes them (a STRUCT's fields in their declared
// order, times in their type's form, a text inside a nested value quoted where DuckDB quotes it); json keeps
// numbers, booleans and NULL native.
//
// It also holds what a statement's result and errors look like to a user: Quiet (the reports DuckDB's CLI
// leaves out), DriverLimits and NoParameterValues (errors of the Go driver, explained).
package output
