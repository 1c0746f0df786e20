package udf_test

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode"

	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/udf"
)

// refTokens is an independent plain-Go tokenizer: lower-case runes, runs of letters and numbers.
func refTokens(s string) []string {
	var out []string
	var cur []rune
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			cur = append(cur, unicode.ToLower(r))
			continue
		}
		if len(cur) > 0 {
			out = append(out, string(cur))
			cur = cur[:0]
		}
	}
	if len(cur) > 0 {
		out = append(out, string(cur))
	}
	return out
}

var textDocs = []struct{ label, body string }{
	{"spam", "WIN money now!!! Free money, free prizes"}, {"spam", "Cheap pills — buy now; limited offer"},
	{"spam", "You won a FREE cruise! Claim your prize now"}, {"spam", "Make money fast: work from home"},
	{"ham", "Meeting moved to Tuesday, see agenda"}, {"ham", "Can you review the draft before the meeting?"},
	{"ham", "Lunch tomorrow? The café near the office"}, {"ham", "Project update: 3 tasks done, 2 open"},
	{"ham", "日本語のメール: 会議は明日"}, {"spam", "Free 🎁 gift card!!! click now"},
}

// mailDB opens a database with textDocs as table mail(label, body).
func mailDB(t *testing.T) *udf.DB {
	t.Helper()
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail (label VARCHAR, body VARCHAR)`)
	for _, d := range textDocs {
		mustExec(t, db, `INSERT INTO mail VALUES (?, ?)`, d.label, d.body)
	}
	return db
}

// TestTextModelMatchesReference trains a text feature (with a numeric one beside it) in SQL and compares
// nb_joint_log_likelihood with a plain-Go reference (own tokenizer and counter): θ_tc = (N_tc + α)/(N_c +
// αV), unseen terms ignored, empty and NULL text adding nothing, and a MAP of term counts scoring as text.
func TestTextModelMatchesReference(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail (label VARCHAR, body VARCHAR, len DOUBLE)`)
	for _, d := range textDocs {
		mustExec(t, db, `INSERT INTO mail VALUES (?, ?, ?)`, d.label, d.body, float64(len(d.body)))
	}
	mustExec(t, db, `CALL nb_train('spam', 'mail', 'label', feature_kinds := 'body=text', alpha := 0.5)`)
	// Reference model of the text part.
	counts := map[string]map[string]float64{"ham": {}, "spam": {}}
	vocab := map[string]bool{}
	for _, d := range textDocs {
		for _, tok := range refTokens(d.body) {
			counts[d.label][tok]++
			vocab[tok] = true
		}
	}
	V := float64(len(vocab))
	textLL := func(class, body string) float64 {
		total := 0.0
		for _, n := range counts[class] {
			total += n
		}
		v := 0.0
		for _, tok := range refTokens(body) {
			if vocab[tok] {
				v += math.Log(counts[class][tok]+0.5) - math.Log(total+0.5*V)
			}
		}
		return v
	}
	for _, body := range []string{"free money now", "Meeting agenda: the draft", "unseen words only zzz", "", "FREE free FrEe 🎁 café", "会議は明日"} {
		got := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('spam', {'body': ?::VARCHAR, 'len': NULL})::VARCHAR`, body))
		prior := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('spam', {'body': NULL, 'len': NULL})::VARCHAR`))
		for _, c := range []string{"ham", "spam"} {
			want := prior[c] + textLL(c, body)
			if math.Abs(got[c]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%q class %s: b = %.17g, reference %.17g", body, c, got[c], want)
			}
		}
	}
	// A MAP of term counts scores as the text with those counts.
	fromText := one(t, db, `SELECT nb_joint_log_likelihood('spam', {'body': 'free free money zzz', 'len': 30.0})::VARCHAR`)
	fromMap := one(t, db, `SELECT nb_joint_log_likelihood('spam', {'body': MAP {'free': 2, 'money': 1, 'zzz': 5}, 'len': 30.0})::VARCHAR`)
	a, b := parseMap(t, fromText), parseMap(t, fromMap)
	for c := range a {
		if math.Abs(a[c]-b[c]) > 1e-12 {
			t.Errorf("MAP input: %v vs text %v", b, a)
		}
	}
	// Prediction on the training mails, and the error for a wrong type.
	got := queryStrings(t, db, `SELECT count(*) FILTER (WHERE nb_predict('spam', t) = label) FROM mail t`)
	if n, _ := strconv.Atoi(got[0][0]); n < 9 {
		t.Errorf("only %d of 10 training mails classified right", n)
	}
	if err := queryErr(db, `SELECT nb_predict('spam', {'body': 42, 'len': 1.0})`); err == nil || !strings.Contains(err.Error(), `feature "body" is text`) {
		t.Errorf("wrong type: %v", err)
	}
}

// TestVocabularyLimits: min_df and max_features (applied when the model is bound, so nb_set changes them
// without retraining) select the vocabulary as scikit-learn's CountVectorizer does; checked against a
// plain-Go selection through nb_show.
func TestVocabularyLimits(t *testing.T) {
	db := mailDB(t)
	mustExec(t, db, `CALL nb_train('v', 'mail', 'label', kind := 'text')`)
	docs, total := map[string]int{}, map[string]int{}
	for _, d := range textDocs {
		seen := map[string]bool{}
		for _, tok := range refTokens(d.body) {
			total[tok]++
			if !seen[tok] {
				docs[tok]++
				seen[tok] = true
			}
		}
	}
	vocab := func() []string {
		return strings.Split(one(t, db, `SELECT string_agg(DISTINCT value, ' ' ORDER BY value) FROM nb_show('v') WHERE parameter = 'log_prob'`), " ")
	}
	mustExec(t, db, `CALL nb_set('v', min_df := 2)`)
	var want []string
	for tok, n := range docs {
		if n >= 2 {
			want = append(want, tok)
		}
	}
	slices.Sort(want)
	if got := vocab(); !slices.Equal(got, want) {
		t.Errorf("min_df 2: vocabulary %v, want %v", got, want)
	}
	mustExec(t, db, `CALL nb_set('v', min_df := 0, max_features := 3)`)
	all := make([]string, 0, len(total))
	for tok := range total {
		all = append(all, tok)
	}
	slices.SortFunc(all, func(a, b string) int {
		if total[a] != total[b] {
			return total[b] - total[a]
		}
		return strings.Compare(a, b)
	})
	want = append([]string{}, all[:3]...)
	slices.Sort(want)
	if got := vocab(); !slices.Equal(got, want) {
		t.Errorf("max_features 3: vocabulary %v, want %v", got, want)
	}
}

// TestLongTermTable: a model trained from a long (doc_id, term, count) table joined to a labels table equals
// the model trained on the raw text: scoring a document's term MAP gives the text model's scores.
func TestLongTermTable(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail (doc_id INTEGER, label VARCHAR, body VARCHAR)`)
	mustExec(t, db, `CREATE TABLE terms (doc_id INTEGER, term VARCHAR, n INTEGER)`)
	for i, d := range textDocs {
		mustExec(t, db, `INSERT INTO mail VALUES (?, ?, ?)`, i, d.label, d.body)
		counts := map[string]int{}
		for _, tok := range refTokens(d.body) {
			counts[tok]++
		}
		for term, n := range counts {
			mustExec(t, db, `INSERT INTO terms VALUES (?, ?, ?)`, i, term, n)
		}
	}
	mustExec(t, db, `CALL nb_train('fromtext', 'SELECT label, body FROM mail', 'label', kind := 'text', alpha := 0.5)`)
	mustExec(t, db, `CALL nb_train('fromterms', 'SELECT doc_id, label FROM mail', 'label', terms := 'terms', doc := 'doc_id',
		term := 'term', count := 'n', terms_feature := 'body', alpha := 0.5)`)
	rows := queryStrings(t, db, `SELECT m.doc_id, nb_joint_log_likelihood('fromtext', {'body': m.body})::VARCHAR,
		nb_joint_log_likelihood('fromterms', {'body': map_from_entries(list((t.term, t.n)))})::VARCHAR
		FROM mail m JOIN terms t USING (doc_id) GROUP BY m.doc_id, m.body ORDER BY m.doc_id`)
	if len(rows) != len(textDocs) {
		t.Fatalf("%d rows", len(rows))
	}
	for _, r := range rows {
		a, b := parseMap(t, r[1]), parseMap(t, r[2])
		for c := range a {
			if math.Abs(a[c]-b[c]) > 1e-12*math.Max(1, math.Abs(a[c])) {
				t.Errorf("doc %s class %s: from text %v, from terms %v", r[0], c, a[c], b[c])
			}
		}
	}
	if err := queryErr(db, `CALL nb_train('bad', 'SELECT doc_id, label FROM mail', 'label', terms := 'terms', doc := 'doc_id', term := 'term')`); err == nil ||
		!strings.Contains(err.Error(), "--count") {
		t.Errorf("missing count column: %v", err)
	}
	// A NaN or infinite count is the documented error naming the column (it was DuckDB's failed cast of NaN
	// to BIGINT, quoting the generated SQL).
	for _, bad := range []string{"'nan'", "'inf'", "-1"} {
		mustExec(t, db, `CREATE OR REPLACE TABLE badterms AS SELECT doc_id, term, n::DOUBLE AS n FROM terms UNION ALL SELECT 0, 'zzz', `+bad+`::DOUBLE`)
		err := queryErr(db, `CALL nb_train('bad', 'SELECT doc_id, label FROM mail', 'label', terms := 'badterms', doc := 'doc_id', term := 'term', count := 'n')`)
		if err == nil || !strings.Contains(err.Error(), `count column "n" of the term table holds negative, NaN or infinite counts (term "zzz")`) {
			t.Errorf("count %s: %v", bad, err)
		}
	}
}

// TestTextBernoulliMatchesReference: presence/absence over the vocabulary, p_tc = (d_tc + α)/(n_c + 2α),
// b_c = log p(c) + Σ_t [present: log p_tc, absent: log(1 - p_tc)], against a plain-Go reference; a term
// present twice counts once, an empty document has every term absent, a NULL one gives the prior, and a
// MAP of positive counts scores as the text.
func TestTextBernoulliMatchesReference(t *testing.T) {
	db := mailDB(t)
	mustExec(t, db, `CALL nb_train('bern', 'mail', 'label', kind := 'text_bernoulli')`)
	// The positional form: nb_predict('bern', body) for a model whose one feature is text.
	if got := queryStrings(t, db, `SELECT count(*) FILTER (WHERE nb_predict('bern', body) = nb_predict('bern', t)) FROM mail t`); got[0][0] != "10" {
		t.Errorf("positional text argument: %v", got)
	}
	docs := map[string]map[string]float64{"ham": {}, "spam": {}}
	nc := map[string]float64{}
	vocab := map[string]bool{}
	for _, d := range textDocs {
		nc[d.label]++
		seen := map[string]bool{}
		for _, tok := range refTokens(d.body) {
			vocab[tok] = true
			if !seen[tok] {
				docs[d.label][tok]++
				seen[tok] = true
			}
		}
	}
	ref := func(class, body string) float64 {
		present := map[string]bool{}
		for _, tok := range refTokens(body) {
			present[tok] = true
		}
		v := math.Log(nc[class] / float64(len(textDocs)))
		for tok := range vocab {
			p := (docs[class][tok] + 1) / (nc[class] + 2)
			if present[tok] {
				v += math.Log(p)
			} else {
				v += math.Log(1 - p)
			}
		}
		return v
	}
	for _, body := range []string{"free money now", "free free free money", "meeting agenda draft", "", "zzz unseen"} {
		got := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('bern', {'body': ?::VARCHAR})::VARCHAR`, body))
		for _, c := range []string{"ham", "spam"} {
			if want := ref(c, body); math.Abs(got[c]-want) > 1e-12*math.Max(1, math.Abs(want)) {
				t.Errorf("%q class %s: b = %.17g, reference %.17g", body, c, got[c], want)
			}
		}
	}
	null := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('bern', {'body': NULL::VARCHAR})::VARCHAR`))
	if math.Abs(null["spam"]-math.Log(5.0/10)) > 1e-15 {
		t.Errorf("NULL text: %v, want the prior", null)
	}
	a := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('bern', {'body': 'free money'})::VARCHAR`))
	b := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('bern', {'body': MAP {'free': 3, 'money': 1, 'meeting': 0}})::VARCHAR`))
	for c := range a {
		if math.Abs(a[c]-b[c]) > 1e-12 {
			t.Errorf("MAP input %v vs text %v", b, a)
		}
	}
}

// TestTextBernoulliNullDocuments: a NULL document is left out of text_bernoulli's statistics, n_c included
// (it counted in n_c, an empty document's absences without being one), as NULL is when scoring and in every
// other kind; an empty document stays a document with every term absent. Expected numbers: scikit-learn
// 1.2.1, CountVectorizer(token_pattern=r"(?u)\b\w+\b") and BernoulliNB(alpha=1) over the rows with the NULL
// ones dropped: predict_joint_log_proba(x) - class_log_prior_ (sqlnb's prior counts every labelled row, so
// the log prior, the NULL document's score, is subtracted from both).
func TestTextBernoulliNullDocuments(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE d AS SELECT * FROM (VALUES ('A', 'free win'), ('A', NULL), ('A', ''), ('A', 'team free'),
		('B', 'team lunch'), ('B', NULL), ('B', NULL), ('B', 'lunch')) t(label, body)`)
	mustExec(t, db, `CALL nb_train('tb', 'd', 'label', kind := 'text_bernoulli')`)
	want := map[string][2]float64{
		"free lunch":    {-3.1419147837320724, -2.6548056865833978},
		"":              {-2.1610855307203467, -2.654805686583398},
		"team team win": {-2.972015746936675, -3.7534179752515078},
		"zzz":           {-2.1610855307203467, -2.654805686583398},
	}
	prior := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('tb', {'body': NULL::VARCHAR})::VARCHAR`))
	for body, w := range want {
		got := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('tb', {'body': ?::VARCHAR})::VARCHAR`, body))
		for i, c := range []string{"A", "B"} {
			if g := got[c] - prior[c]; math.Abs(g-w[i]) > 1e-12 {
				t.Errorf("%q class %s: log p(x | c) = %.17g, scikit-learn %.17g", body, c, g, w[i])
			}
		}
	}
}

// TestTextNgramsAndStopWords: a text model with bigrams and English stop words scores as a plain-Go
// reference (its own counts and θ) over the same terms.
func TestTextNgramsAndStopWords(t *testing.T) {
	db := mailDB(t)
	mustExec(t, db, `CALL nb_train('ng', 'mail', 'label', kind := 'text', ngrams := 2, stop_words := 'english')`)
	// The terms come from TextOptions.Terms (held equal to the training SQL by TestTextOptionsAgreeWithSQL);
	// the counting and θ below are the reference's own.
	terms := sqlnb.TextOptions{Ngrams: 2, StopWords: "english"}.Terms
	counts := map[string]map[string]float64{"ham": {}, "spam": {}}
	vocab := map[string]bool{}
	for _, d := range textDocs {
		for _, term := range terms(d.body) {
			counts[d.label][term]++
			vocab[term] = true
		}
	}
	if !vocab["free money"] || vocab["the"] {
		t.Fatalf("vocabulary: free money %v, the %v", vocab["free money"], vocab["the"])
	}
	got := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('ng', {'body': 'Free money now, the meeting'})::VARCHAR`))
	prior := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('ng', {'body': NULL::VARCHAR})::VARCHAR`))
	for _, c := range []string{"ham", "spam"} {
		total := 0.0
		for _, n := range counts[c] {
			total += n
		}
		want := prior[c]
		for _, term := range terms("Free money now, the meeting") {
			if vocab[term] {
				want += math.Log(counts[c][term]+1) - math.Log(total+float64(len(vocab)))
			}
		}
		if math.Abs(got[c]-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("class %s: %.17g, reference %.17g", c, got[c], want)
		}
	}
}

// TestTextBernoulliThreshold: with binarize := 1 a term is present only when it occurs more than once in a
// document, in training (documents counted) and scoring, as scikit-learn's BernoulliNB(binarize=1) over counts.
func TestTextBernoulliThreshold(t *testing.T) {
	db := mailDB(t)
	mustExec(t, db, `CALL nb_train('b1', 'mail', 'label', kind := 'text_bernoulli', binarize := 1)`)
	present := func(body string) map[string]bool {
		n := map[string]int{}
		for _, tok := range refTokens(body) {
			n[tok]++
		}
		out := map[string]bool{}
		for tok, k := range n {
			if k > 1 {
				out[tok] = true
			}
		}
		return out
	}
	vocab, docs, nc := map[string]bool{}, map[string]map[string]float64{"ham": {}, "spam": {}}, map[string]float64{}
	for _, d := range textDocs {
		nc[d.label]++
		for _, tok := range refTokens(d.body) {
			vocab[tok] = true
		}
		for tok := range present(d.body) {
			docs[d.label][tok]++
		}
	}
	body := "free free money now now now meeting"
	got := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('b1', {'body': ?::VARCHAR})::VARCHAR`, body))
	for _, c := range []string{"ham", "spam"} {
		want := math.Log(nc[c] / float64(len(textDocs)))
		p := present(body)
		for tok := range vocab {
			q := (docs[c][tok] + 1) / (nc[c] + 2)
			if p[tok] {
				want += math.Log(q)
			} else {
				want += math.Log(1 - q)
			}
		}
		if math.Abs(got[c]-want) > 1e-12*math.Max(1, math.Abs(want)) {
			t.Errorf("class %s: %.17g, reference %.17g", c, got[c], want)
		}
	}
	fromMap := parseMap(t, one(t, db, `SELECT nb_joint_log_likelihood('b1', {'body': MAP {'free': 2, 'money': 1, 'now': 3, 'meeting': 1}})::VARCHAR`))
	for c := range got {
		if math.Abs(got[c]-fromMap[c]) > 1e-12 {
			t.Errorf("MAP input %v vs text %v", fromMap, got)
		}
	}
}

// TestTextInfiniteCount: a MAP term count of ±Inf or NaN is skipped, as a count column's is (it gave NaN
// posteriors and nb_predict the first class), in the SQL functions and ScoreRow.
func TestTextInfiniteCount(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail (label VARCHAR, body VARCHAR)`)
	for _, d := range textDocs {
		mustExec(t, db, `INSERT INTO mail VALUES (?, ?)`, d.label, d.body)
	}
	for _, kind := range []string{"text", "text_complement", "text_bernoulli"} {
		mustExec(t, db, fmt.Sprintf(`CALL nb_train('%s', 'mail', 'label', kind := '%s')`, kind, kind))
		got := queryStrings(t, db, fmt.Sprintf(`SELECT nb_predict_proba('%[1]s', {'body': MAP {'free': 'inf'::DOUBLE, 'meeting': 1, 'x': '-inf'::DOUBLE, 'y': 'nan'::DOUBLE}})::VARCHAR,
			nb_predict_proba('%[1]s', {'body': MAP {'meeting': 1}})::VARCHAR`, kind))[0]
		if got[0] != got[1] || strings.Contains(got[0], "nan") {
			t.Errorf("%s: with infinite counts %s, without them %s", kind, got[0], got[1])
		}
		s := mustScorer(t, db, kind)
		a, _, err1 := s.ScoreRow(map[string]any{"body": map[string]float64{"free": math.Inf(1), "meeting": 1}})
		b, _, err2 := s.ScoreRow(map[string]any{"body": map[string]float64{"meeting": 1}})
		if err1 != nil || err2 != nil || fmt.Sprint(a) != fmt.Sprint(b) {
			t.Errorf("%s: ScoreRow with an infinite count %v (%v), without %v (%v)", kind, a, err1, b, err2)
		}
	}
}

// TestTextMinDFEmpty: a min_df that leaves no term is an error saying so (as scikit-learn's "After pruning,
// no terms remain"), at training and in nb_set; before, every row scored the priors.
func TestTextMinDFEmpty(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CREATE TABLE mail (label VARCHAR, body VARCHAR)`)
	for _, d := range textDocs {
		mustExec(t, db, `INSERT INTO mail VALUES (?, ?)`, d.label, d.body)
	}
	if err := queryErr(db, `CALL nb_train('t', 'mail', 'label', kind := 'text', min_df := 1000)`); err == nil || !strings.Contains(err.Error(), "min_df 1000 leaves no term") {
		t.Errorf("training: %v", err)
	}
	mustExec(t, db, `CALL nb_train('t', 'mail', 'label', kind := 'text')`)
	if err := queryErr(db, `CALL nb_set('t', min_df := 1000)`); err == nil || !strings.Contains(err.Error(), "min_df 1000 leaves no term") {
		t.Errorf("nb_set: %v", err)
	}
}

// TestTermMapDecimalCounts: a MAP of term counts with DECIMAL values (a literal 2.0, a parquet DECIMAL column)
// was refused ("give ... a MAP(VARCHAR, number)"); it scores as the same counts as DOUBLE, whatever the
// DECIMAL's storage (SMALLINT to HUGEINT).
func TestTermMapDecimalCounts(t *testing.T) {
	db := mustOpenDB(t)
	mustExec(t, db, `CALL nb_train('tx', 'SELECT * FROM (VALUES (''a'', ''apple pie''), (''a'', ''apple''), (''b'', ''car the''), (''b'', ''car'')) v(y, body)', 'y', kind := 'text')`)
	got := queryStrings(t, db, `SELECT nb_predict_proba('tx', {'body': MAP {'apple': 2.0, 'car': 1.5}}) = nb_predict_proba('tx', {'body': MAP {'apple': 2.0::DOUBLE, 'car': 1.5::DOUBLE}}),
		nb_predict_proba('tx', {'body': MAP {'apple': 2.5::DECIMAL(30, 3)}}) = nb_predict_proba('tx', {'body': MAP {'apple': 2.5::DOUBLE}}),
		nb_predict_proba('tx', {'body': MAP {'apple': 3::DECIMAL(4, 0)}}) = nb_predict_proba('tx', {'body': 'apple apple apple'})`)
	if len(got) != 1 || got[0][0] != "true" || got[0][1] != "true" || got[0][2] != "true" {
		t.Errorf("DECIMAL counts against DOUBLE: %v", got)
	}
}
