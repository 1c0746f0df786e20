package sqlnb

import (
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
