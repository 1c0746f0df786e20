// Package shell is sqlnb's interactive SQL shell (`sqlnb shell`): a REPL on one connection of a DuckDB
// database with the nb_* functions, with line editing and Tab completion (keywords, functions, tables,
// columns, models, files, dot commands; chzyer/readline), a persistent history file where a statement typed
// over several lines stays one entry, statements cut where DuckDB's own parser cuts them (sqltext.Splitter),
// dot commands (.help lists them), results written by package output and a progress bar (package progress)
// for a query that runs for more than half a second. Ctrl-C cancels the running query through DuckDB's
// interrupt. With input that is not a terminal it runs it as a script that stops at the first error.
//
// The command that runs it (cmd/sqlnb's shell command) passes everything else in a Config: the input and
// outputs, the database and how to open one with the command's settings, and the table's row limit.
package shell
