package nb

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
)

// TokenizeSQL returns the one tokenizer definition as a DuckDB expression over the text expression x:
// lower-case (lowerText: DuckDB's lower, Unicode's simple mapping of each character, after a word-final Σ is
// written ς, as Python's str.lower does), split on runs of characters that are neither letters (\p{L}) nor
// numbers (\p{N}), empty pieces dropped. NULL text gives NULL; empty text gives an empty list. Tokenize is
// the same in Go; TestTokenizerAgreesWithSQL holds them equal on accents, CJK, emoji, punctuation runs, Greek
// and more.
func TokenizeSQL(x string) string {
	return fmt.Sprintf(`list_filter(regexp_split_to_array(lower(CASE WHEN contains(%[1]s, 'Σ') THEN regexp_replace(%[1]s, '%[2]s', '\1ς\2\3', 'g') ELSE %[1]s END), '[^\p{L}\p{N}]+'), lambda t: t <> '')`,
		x, finalSigmaPattern())
}

// Tokenize splits text as TokenizeSQL does: lower-case, then runs of letters and numbers.
func Tokenize(text string) []string {
	return strings.FieldsFunc(lowerText(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsNumber(r)
	})
}

// lowerText lower-cases text as Python's str.lower does for every character but İ (which it maps to i and a
// combining dot, and the tokenizer to i): each character's simple lower-case mapping, and Σ to ς where it
// ends a word (Unicode's Final_Sigma: after a cased letter and any case-ignorable characters, and not before
// case-ignorable characters and a cased letter). Without it ΟΔΟΣ was οδοσ, which never matches the word
// written in lower case, οδος (found by a review against scikit-learn).
func lowerText(text string) string {
	if !strings.ContainsRune(text, 'Σ') {
		return strings.ToLower(text)
	}
	rs := []rune(text)
	var b strings.Builder
	b.Grow(len(text))
	for i, r := range rs {
		if r == 'Σ' && finalSigma(rs, i) {
			b.WriteRune('ς')
			continue
		}
		b.WriteRune(unicode.ToLower(r))
	}
	return b.String()
}

// finalSigma applies Unicode's Final_Sigma condition to the Σ at rs[i], as CPython's handle_capital_sigma:
// the first character before it that is not case-ignorable is cased, and the first after it that is not
// case-ignorable is not cased (or there is none).
func finalSigma(rs []rune, i int) bool {
	j := i - 1
	for j >= 0 && caseIgnorable(rs[j]) {
		j--
	}
	if j < 0 || !cased(rs[j]) {
		return false
	}
	j = i + 1
	for j < len(rs) && caseIgnorable(rs[j]) {
		j++
	}
	return j == len(rs) || !cased(rs[j])
}

// Unicode's Cased and Case_Ignorable properties (DerivedCoreProperties.txt), from Go's tables.
var (
	casedTables          = []*unicode.RangeTable{unicode.Lu, unicode.Ll, unicode.Lt, unicode.Other_Lowercase, unicode.Other_Uppercase}
	caseIgnorableTables  = []*unicode.RangeTable{unicode.Mn, unicode.Me, unicode.Cf, unicode.Lm, unicode.Sk}
	caseIgnorableWordBrk = []rune{ // Word_Break MidLetter, MidNumLet and Single_Quote
		0x27, 0x2E, 0x3A, 0xB7, 0x387, 0x55F, 0x5F4, 0x2018, 0x2019, 0x2024, 0x2027, 0xFE13, 0xFE52, 0xFE55, 0xFF07, 0xFF0E, 0xFF1A,
	}
)

func cased(r rune) bool { return unicode.In(r, casedTables...) }

func caseIgnorable(r rune) bool {
	return unicode.In(r, caseIgnorableTables...) || slices.Contains(caseIgnorableWordBrk, r)
}

// finalSigmaPattern is finalSigma as an RE2 pattern for regexp_replace (replacement \1ς\2\3): a cased,
// not case-ignorable character, case-ignorable ones, Σ, case-ignorable ones, then one that is neither or the
// end. The classes are written from the same tables as cased and caseIgnorable, so SQL and Go agree; made
// once, when a text model is first trained.
var finalSigmaPattern = sync.OnceValue(func() string {
	ignorable := classOf(caseIgnorable)
	casedOnly := classOf(func(r rune) bool { return cased(r) && !caseIgnorable(r) })
	neither := "[^" + classOf(func(r rune) bool { return cased(r) || caseIgnorable(r) })[1:]
	return "(" + casedOnly + ignorable + "*)Σ(" + ignorable + "*)(" + neither + "|$)"
})

// casingPlanes are the code points where Unicode has cased or case-ignorable characters: the first two planes
// and the tags and variation selectors of plane 14 (TestCasingPlanes checks that there are none elsewhere).
var casingPlanes = [][2]rune{{0, 0x1FFFF}, {0xE0000, 0xE0FFF}}

// classOf writes the runes for which in holds as an RE2 character class of \x{…} ranges.
func classOf(in func(rune) bool) string {
	var b strings.Builder
	b.WriteByte('[')
	for _, p := range casingPlanes {
		for r := p[0]; r <= p[1]; r++ {
			if !in(r) {
				continue
			}
			start := r
			for r+1 <= p[1] && in(r+1) {
				r++
			}
			if start == r {
				fmt.Fprintf(&b, `\x{%x}`, start)
			} else {
				fmt.Fprintf(&b, `\x{%x}-\x{%x}`, start, r)
			}
		}
	}
	b.WriteByte(']')
	return b.String()
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
	tok := TokenizeSQL(x)
	if o.StopWords == "english" {
		q := make([]string, len(englishStopWords))
		for i, w := range englishStopWords {
			q[i] = "'" + w + "'"
		}
		tok = fmt.Sprintf("list_filter(%s, lambda t: NOT list_contains([%s], t))", tok, strings.Join(q, ", "))
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
