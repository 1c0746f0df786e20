package shell

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
)

// historyLimit is how many entries the shell keeps (readline's default).
const historyLimit = 500

// history is the shell's history file: one entry a line, so that an entry typed over several lines comes
// back whole after a restart. readline's own history file writes an entry's lines as separate entries.
//
// An entry's line breaks are stored as carriage returns. The line stays valid SQL, run as it is: DuckDB's
// lexer ends a -- comment at a carriage return as at a line feed, and it is whitespace elsewhere; only
// inside a string literal would its meaning change, and loading turns it back into a line feed. A
// carriage return cannot be typed into an entry (Enter sends it), so nothing else is changed.
type history struct {
	path    string
	entries []string
	last    string
}

func encodeHistory(entry string) string { return strings.ReplaceAll(entry, "\n", "\r") }

func decodeHistory(line string) string { return strings.ReplaceAll(line, "\r", "\n") }

// loadHistory reads the history file at path (none: an empty history; path "": no file at all) and keeps
// its last historyLimit entries, rewriting the file when it held more.
func loadHistory(path string) *history {
	h := &history{path: path}
	if path == "" {
		return h
	}
	f, err := os.Open(path)
	if err != nil {
		return h
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 64<<20)
	for sc.Scan() {
		if line := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(line) != "" {
			h.entries = append(h.entries, decodeHistory(line))
		}
	}
	if len(h.entries) > historyLimit {
		h.entries = h.entries[len(h.entries)-historyLimit:]
		h.rewrite()
	}
	if len(h.entries) > 0 {
		h.last = h.entries[len(h.entries)-1]
	}
	return h
}

// add appends entry to the file (unless it repeats the last entry); the caller also hands it to readline.
func (h *history) add(entry string) {
	entry = strings.TrimSpace(strings.ReplaceAll(entry, "\r\n", "\n"))
	if entry == "" || entry == h.last || h.path == "" {
		return
	}
	h.last = entry
	f, err := os.OpenFile(h.path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return // history is a convenience: the shell goes on without it
	}
	defer f.Close()
	_, _ = f.WriteString(encodeHistory(entry) + "\n")
}

func (h *history) rewrite() {
	tmp, err := os.CreateTemp(filepath.Dir(h.path), ".sqlnb_history*")
	if err != nil {
		return
	}
	w := bufio.NewWriter(tmp)
	for _, e := range h.entries {
		w.WriteString(encodeHistory(e) + "\n")
	}
	if w.Flush() != nil || tmp.Close() != nil || os.Rename(tmp.Name(), h.path) != nil {
		os.Remove(tmp.Name())
	}
}
