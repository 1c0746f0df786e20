package sqlnb_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// TestTokenizerAgreesWithSQL: the Go tokenizer (scoring) and the SQL tokenizer (training) split the same
// strings into the same tokens.
func TestTokenizerAgreesWithSQL(t *testing.T) {
	db := mustOpenDB(t)
	cases := []string{
		"Hello, World!", "FREE money!!! Call now...", "café naïve Ünïcödé", "cafe\u0301 (decomposed accent)",
		"日本語のテキスト, 中文文本 한국어", "emoji 😀👍🏽 in 🇫🇷 text", "punctuation---runs...and;;;semicolons",
		"", "   ", "abc123 def_456 ٣٤٥ Ⅻ ½", "ΟΔΟΣ Σίσυφος", "İstanbul ISTANBUL ß ẞ ﬁne", "tab\tnew\nline",
		"mixed-CASE Words_With_underscores", "quote's \"double\" `back`", "😀", "…—–", "a\u00a0b\u200bc",
		"ΣΊΣΥΦΟΣ ΣΟΦΌΣ. ΑΣ ΣΣ aΣ Σ ΑΣ.Β ΑΣ'Σ ΑΣ\u0301 ΑΣ\u0301Β ʰΣ ΑʰΣ ΟΔΟΣ-ΟΔΟΣ ΑΣΑ",
	}
	ctx := context.Background()
	q := "SELECT " + nb.TokenizeSQL("s") + "::VARCHAR[] FROM (VALUES (?)) v(s)"
	for _, c := range cases {
		var got []any
		rows, err := db.QueryContext(ctx, q, c)
		if err != nil {
			t.Fatal(err)
		}
		for rows.Next() {
			if err := rows.Scan(&got); err != nil {
				t.Fatal(err)
			}
		}
		rows.Close()
		sqlTokens := make([]string, len(got))
		for i, g := range got {
			sqlTokens[i] = g.(string)
		}
		goTokens := nb.Tokenize(c)
		if len(goTokens) == 0 && len(sqlTokens) == 0 {
			continue
		}
		if !reflect.DeepEqual(goTokens, sqlTokens) {
			t.Errorf("%q: Go %q, SQL %q", c, goTokens, sqlTokens)
		}
	}
	var isNull bool
	if err := db.QueryRowContext(ctx, "SELECT "+nb.TokenizeSQL("NULL::VARCHAR")+" IS NULL").Scan(&isNull); err != nil || !isNull {
		t.Errorf("NULL text: %v %v", isNull, err)
	}
}

// TestTextOptionsAgreeWithSQL: stop words and n-grams give the same terms, in the same order, in SQL
// (training) and Go (scoring).
func TestTextOptionsAgreeWithSQL(t *testing.T) {
	db := mustOpenDB(t)
	ctx := context.Background()
	for _, o := range []sqlnb.TextOptions{{Ngrams: 2, StopWords: "english"}, {Ngrams: 3}, {StopWords: "english"}} {
		for _, c := range []string{"The quick brown fox jumps over the lazy dog", "free money, free MONEY now!!", "a", "", "日本語 の テキスト 😀 ok",
			"it is what it is", "one two"} {
			var got []any
			if err := db.QueryRowContext(ctx, "SELECT "+o.SQL("s")+"::VARCHAR[] FROM (VALUES (?::VARCHAR)) v(s)", c).Scan(&got); err != nil {
				t.Fatal(err)
			}
			sqlTerms := make([]string, len(got))
			for i, g := range got {
				sqlTerms[i] = g.(string)
			}
			goTerms := o.Terms(c)
			if len(goTerms) == 0 && len(sqlTerms) == 0 {
				continue
			}
			if !reflect.DeepEqual(goTerms, sqlTerms) {
				t.Errorf("%+v %q: Go %q, SQL %q", o, c, goTerms, sqlTerms)
			}
		}
	}
	if got := (sqlnb.TextOptions{Ngrams: 2, StopWords: "english"}).Terms("the free money is here"); !reflect.DeepEqual(got, []string{"free", "money", "free money"}) {
		t.Errorf("terms %q", got)
	}
}

// TestFinalSigma: a word-final Σ lower-cases to ς, as Python's str.lower (and so scikit-learn's
// CountVectorizer) does, so that ΟΔΟΣ and οδος are one term (a review found οδοσ); elsewhere Σ is σ. The
// expected strings are CPython 3.11's 'ΟΔΟΣ …'.lower() (Unicode's Final_Sigma: a cased letter before it, past
// case-ignorable characters such as ' . and combining marks, and none after them).
func TestFinalSigma(t *testing.T) {
	for in, want := range map[string][]string{
		"ΟΔΟΣ οδος":                 {"οδος", "οδος"},
		"ΣΊΣΥΦΟΣ":                   {"σίσυφος"},
		"ΑΣ ΣΣ aΣ Σ":                {"ας", "σς", "aς", "σ"},
		"ΑΣ.Β":                      {"ασ", "β"}, // '.' is case-ignorable, Β cased: not final
		"ΑΣ. Β":                     {"ας", "β"}, // the space ends it
		"ΑΣ'Σ":                      {"ασ", "ς"}, // the second Σ follows a cased Σ past '
		"ΟΔΟΣ-ΟΔΟΣ ΑΣΑ":             {"οδος", "οδος", "ασα"},
		"ΑΣ\u0301 ΑΣ\u0301Β ʰΣ ΑʰΣ": {"ας", "ασ", "β", "ʰσ", "αʰς"}, // a combining mark is case-ignorable; ʰ both
	} {
		if got := nb.Tokenize(in); !reflect.DeepEqual(got, want) {
			t.Errorf("Tokenize(%q) = %q, want %q", in, got, want)
		}
	}
}
