package sqlnb

import "testing"

// TestShellWord: the stale-macro message's command can be pasted into a shell (it printed
// sqlnb export --model my "m".x 'y' é --persist again).
func TestShellWord(t *testing.T) {
	for in, want := range map[string]string{"votes": "votes", "a-b_c.d": "a-b_c.d", `my "m".x 'y' é`: `'my "m".x '\''y'\'' é'`, "": "''", "a b": "'a b'"} {
		if got := shellWord(in); got != want {
			t.Errorf("shellWord(%q) = %s, want %s", in, got, want)
		}
	}
}
