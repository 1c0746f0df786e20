// Package progress draws the progress bar of a running DuckDB statement on a terminal: a bar with the
// percentage DuckDB reports (and, with a known total, the rows done and their rate), or a spinner with the
// elapsed time where DuckDB cannot measure progress. Enable turns DuckDB's progress reporting on for a
// connection; Start draws from a delay on until its stop function is called.
package progress
