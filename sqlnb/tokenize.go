package sqlnb

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
)

// TokenizeSQL is the one tokenizer definition, as a DuckDB expression over the text expression %s: lower-case
// (DuckDB's lower, Unicode-aware), split on runs of characters that are neither letters (\p{L}) nor numbers
// (\p{N}), empty pieces dropped. NULL text gives NULL; empty text gives an empty list. Tokenize is the same in
// Go; TestTokenizerAgreesWithSQL holds them equal on accents, CJK, emoji, punctuation runs and more.
const TokenizeSQL = `list_filter(regexp_split_to_array(lower(%s), '[^\p{L}\p{N}]+'), t -> t <> '')`

// Tokenize splits text as TokenizeSQL does: lower-case, then runs of letters and numbers.
func Tokenize(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// TextOptions are a text feature's tokenizer settings, fixed at training and applied identically at
// scoring: stop words removed after tokenizing, then word n-grams from 1 to Ngrams (joined by a space).
type TextOptions struct {
	Ngrams    int    `json:"ngrams,omitempty"`
	StopWords string `json:"stop_words,omitempty"` // "" or "english"
}

// Validate checks the settings.
func (o TextOptions) Validate() error {
	if o.Ngrams < 0 || o.Ngrams > 5 {
		return fmt.Errorf("%w: ngrams %d: use 1 to 5", ErrBadOption, o.Ngrams)
	}
	if o.StopWords != "" && o.StopWords != "english" {
		return fmt.Errorf("%w: stop words %q: use english (or none)", ErrBadOption, o.StopWords)
	}
	return nil
}

// Terms returns the terms of text under o: Tokenize, stop words removed, then n-grams.
func (o TextOptions) Terms(text string) []string {
	tok := Tokenize(text)
	if o.StopWords == "english" {
		tok = slices.DeleteFunc(tok, func(t string) bool { return stopSet[t] })
	}
	out := tok
	for n := 2; n <= o.Ngrams; n++ {
		for i := 0; i+n <= len(tok); i++ {
			out = append(out, strings.Join(tok[i:i+n], " "))
		}
	}
	return out
}

var stopSet = func() map[string]bool {
	m := make(map[string]bool, len(englishStopWords))
	for _, w := range englishStopWords {
		m[w] = true
	}
	return m
}()

// SQL returns the DuckDB expression giving the terms of the text expression x under o (TokenizeSQL, the
// stop words filtered, the n-grams appended): the same list Terms returns, in the same order.
func (o TextOptions) SQL(x string) string {
	tok := fmt.Sprintf(TokenizeSQL, x)
	if o.StopWords == "english" {
		q := make([]string, len(englishStopWords))
		for i, w := range englishStopWords {
			q[i] = "'" + w + "'"
		}
		tok = fmt.Sprintf("list_filter(%s, t -> NOT list_contains([%s], t))", tok, strings.Join(q, ", "))
	}
	if o.Ngrams <= 1 {
		return tok
	}
	parts := []string{"tok"}
	for n := 2; n <= o.Ngrams; n++ {
		words := make([]string, n)
		for k := range n {
			words[k] = fmt.Sprintf("tok[i + %d]", k)
		}
		parts = append(parts, fmt.Sprintf("[%s FOR i IN range(1, len(tok) - %d)]", strings.Join(words, " || ' ' || "), n-2))
	}
	return fmt.Sprintf("(SELECT list_concat(%s) FROM (SELECT %s AS tok))", strings.Join(parts, ", "), tok)
}
