// Package queries holds every SQL statement sqlnb runs, embedded from .sql files, and the one helper that
// quotes SQL identifiers.
//
// Each file holds one statement and starts with a comment naming its parameters. Files ending in .tmpl.sql
// are text/template sources: they receive identifiers only through the ident function (Ident), never
// values; values are always bound as parameters. Each template's data is a type of this package (data.go),
// which its header comment names (Data (queries.Moments): ...).
package queries
