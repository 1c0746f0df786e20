// Package sqltext is sqlnb's one SQL lexer: it cuts SQL text into tokens (words, quoted names, strings,
// numbers, parameters, operators, comments and blanks, each with its byte offset) by DuckDB's own lexical
// rules, and everything in sqlnb that reads SQL text without DuckDB's parser is built on it: the shell's
// statement cutting and its "is the statement complete" test, the named-argument and transaction checks of
// udf's connection, the source resolution of sqlnb/nb (qualified names, search paths, file names in string
// literals) and predict's check that a source reads the output file. Splitter cuts text into statements where
// DuckDB's own parser does (the shell and `sqlnb sql`), asking it only at the ';' the lexer finds outside
// strings and comments.
//
// The rules, as DuckDB 2.0 and 1.5.6 read text (their parser, checked by running queries on both lines;
// TestRules and TestStatementsAsDuckDB hold the lexer to them):
//
//   - Blanks: space, \t, \n, \r, \f, and \v (2.0; 1.5 rejects \v), and outside strings and names the Unicode
//     spaces U+00A0, U+2000–U+200B, U+202F, U+205F, U+3000 and U+FEFF (DuckDB replaces them before it
//     parses; U+1680, U+2028, U+0085 are not blanks).
//   - Comments: -- up to \n or \r; /* … */, nested (/* a /* b */ c */ is one comment). Inside an operator
//     run, -- and /* still start a comment (1 +/* c */ 2 is 1 + 2).
//   - Strings: '…', a quote doubled inside; a backslash is an ordinary character ('a\' is a whole string).
//     E'…' (e'…') also takes \' and the other backslash escapes, but only where the E starts a token
//     (xE'a\' is the word xE and the string 'a\'). B'…', X'…', N'…' and U&'…' are strings too.
//     Dollar quotes: $$…$$ or $tag$…$tag$, the tag an identifier without $ ($1 is a parameter, $1a$ is $1
//     and a$), no escapes; the string ends at the first copy of its opening tag.
//   - Quoted names: "…", a quote doubled inside, backslash ordinary; U&"…"; and `…` (a backtick doubled) in
//     DuckDB 2.0 only (Rules.Backticks; in 1.5 ` is an operator character).
//   - Words: [A-Za-z_] or any byte >= 0x80, then those, digits and $ (a$b is one word); a Unicode space
//     ends a word.
//   - Numbers: digits with single underscores (1_000), a fraction, an exponent only when digits follow it
//     (1e is 1 and e as 1.5 reads it; 2.0 reads 1e as a malformed number, an error either way); 1..2 is 1,
//     .., 2.
//   - Parameters: $1, ?1, ? and $name.
//   - Operators: runs of ~ ! @ ^ & | ` + - * / % < > = (not #: #1 is a column position), without a trailing
//     plus or minus unless the run holds ~ ! @ ^ & | ` ? % (=>-1 is =>, -, 1); : :: := .. and single bytes for
//     the rest.
//   - The text ends at a NUL byte, as DuckDB reads it (a C string): SELECT 1;\x00junk is one statement.
//
// Unterminated strings, names and comments run to the end of the text and are marked Open: DuckDB's parser
// reports them ("unterminated quoted string", 2.0 "unterminated string literal"; an unterminated dollar
// quote is a "syntax error" in 2.0).
package sqltext
