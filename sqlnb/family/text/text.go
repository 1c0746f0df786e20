package text

import (
	"cmp"
	"context"
	"database/sql"
	"fmt"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
	"math"
	"slices"
	"sort"
	"strings"

	"github.com/sqlnb/sqlnb/queries"
)

// The kinds of the text family: a VARCHAR column tokenized (TextOptions) into terms; scoring also takes a
// MAP(VARCHAR, number) of term counts. Unseen terms are ignored; a NULL document adds nothing.
const (
	// Text: a multinomial over the column's training vocabulary: θ_tc = (N_tc + α)/(N_c + αV); b_c gains
	// Σ_t n_t log θ_tc over the document's terms (seed 001; MultinomialNB over CountVectorizer).
	Text nb.Kind = "text"
	// TextBernoulli: presence/absence of each vocabulary term (a term present when its count in the document
	// is > Feature.Binarize): p_tc = (d_tc + α)/(n_c + 2α), d_tc = class-c documents where t is present, n_c =
	// class-c documents whose text is not NULL (DocsTerm); b_c gains Σ_t log(1 - p_tc) plus, per present term,
	// log p_tc - log(1 - p_tc): O(terms present). An empty document has every term absent; a NULL one is left
	// out, in training as in scoring. Unweighted only.
	TextBernoulli nb.Kind = "text_bernoulli"
	// TextComplement: scikit-learn's ComplementNB over the term counts (as Complement over count columns):
	// weights from the other classes' counts, Params.Bool("norm"), priors ignored.
	TextComplement nb.Kind = "text_complement"
)

// TermCount is the number (and weight) of occurrences of one term of a text feature in one class.
type TermCount struct {
	Feature string `json:"feature"`
	Class   string `json:"class"`
	Term    string `json:"term"`
	Count   int64  `json:"count"`
	// Docs is the number of training documents of the class that contain the term.
	Docs int64 `json:"docs"`
	// Present is the number of those documents where the term occurs more than the feature's Binarize
	// times (text_bernoulli).
	Present int64   `json:"present"`
	Weight  float64 `json:"weight"`
}

// DocsTerm is the Term of a text_bernoulli feature's row that counts, in Docs, the class's documents whose
// text is not NULL (n_c). No term of a text_bernoulli feature is empty: the tokenizer drops empty pieces
// (and a term table's feature is text only).
const DocsTerm = ""

// TermsTable is the text features' term counts: nb.terms.
var TermsTable = &nb.Table[TermCount]{
	Name: "terms",
	Key:  func(t *TermCount) nb.RowKey { return nb.RowKey{Feature: t.Feature, Class: t.Class, Value: t.Term} },
	Merge: func(x, t *TermCount) {
		x.Count, x.Docs, x.Present, x.Weight = x.Count+t.Count, x.Docs+t.Docs, x.Present+t.Present, x.Weight+t.Weight
	},
	Subtract: subtractTerm,
	// Training counts the terms documents have: a term no document of the class has any more is dropped.
	Empty: func(t *TermCount) bool { return t.Count == 0 && t.Docs == 0 && t.Present == 0 },
	Check: func(t *TermCount) error {
		if t.Count < 0 || t.Docs < 0 || t.Present < 0 || t.Present > t.Docs || !(t.Weight >= 0) || math.IsInf(t.Weight, 1) {
			return fmt.Errorf("count %d, docs %d, present %d, weight %v: must be ≥ 0 and finite, present ≤ docs", t.Count, t.Docs, t.Present, t.Weight)
		}
		return nil
	},
}

type TextFamily struct{}

func textAccept(c nb.Column) error {
	if nb.ClassifyType(c.Type) != nb.TypeText || strings.HasPrefix(strings.ToUpper(c.Type), "ENUM") {
		return fmt.Errorf("%w: feature %q has type %s: a text feature must be VARCHAR", nb.ErrBadType, c.Name, c.Type)
	}
	return nil
}

func (TextFamily) Kinds() []nb.KindInfo {
	return []nb.KindInfo{
		{Kind: Text, Doc: "a VARCHAR column of documents, words counted (MultinomialNB over CountVectorizer)", Accepts: textAccept, Text: true},
		{Kind: TextBernoulli, Doc: "documents as presence/absence of each word (BernoulliNB over words)", Accepts: textAccept, Text: true, Binarize: true},
		{Kind: TextComplement, Doc: "documents, ComplementNB weights (with complement or other text_complement features only)",
			Accepts: textAccept, Text: true, Priorless: true},
	}
}

func (TextFamily) Tables() []nb.StatsTable { return []nb.StatsTable{TermsTable} }

func (TextFamily) Check(feats, _ []nb.Feature, weighted bool) error {
	for _, f := range feats {
		if f.Kind == TextBernoulli && weighted {
			return fmt.Errorf("%w: feature %q is text_bernoulli, which does not take sample weights yet: use text, or drop --weight", nb.ErrBadOption, f.Name)
		}
	}
	return nil
}

// Train counts each text feature's terms per (fold,) class: train_terms tokenizes the column inside
// DuckDB; the feature of a long term table joins it to the labelled source (train_long_terms).
func (TextFamily) Train(ctx context.Context, sc *nb.Scan, feats []nb.Feature) error {
	for _, f := range feats {
		var err error
		if sc.Plan.Terms != nil && f.Name == sc.Plan.Terms.Feature {
			err = trainLongTerms(ctx, sc, f)
		} else {
			err = trainTerms(ctx, sc, f)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// trainTerms runs train_terms for the text feature f: per (fold,) class and term its occurrences,
// documents, documents where it is present, and weight.
func trainTerms(ctx context.Context, sc *nb.Scan, f nb.Feature) error {
	docs := ""
	if f.Kind == TextBernoulli {
		docs = queries.Ident(f.Name)
	}
	rows, err := sc.Query(ctx, "train_terms.tmpl.sql", queries.Terms{Train: sc.Train(), Tokens: f.Text.SQL(queries.Ident(f.Name)),
		Present: nb.PresentSQL("e.value", sc.Param(1)), Docs: docs}, f.Binarize)
	if err != nil {
		return fmt.Errorf("count the terms of %q: %w", f.Name, err)
	}
	defer rows.Close()
	var t TermCount
	var fold int64
	var w sql.NullFloat64
	ptrs := []any{&t.Class, &t.Term, &t.Count, &t.Docs, &t.Present}
	if sc.Fold != "" {
		ptrs = append([]any{&fold}, ptrs...)
	}
	if sc.Plan.Weight != "" {
		ptrs = append(ptrs, &w)
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		t.Feature, t.Weight = f.Name, float64(t.Count)
		if sc.Plan.Weight != "" {
			t.Weight = w.Float64
		}
		nb.AddRows(sc.Part(fold).Stats, TermsTable, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count the terms of %q: %w", f.Name, err)
	}
	return nil
}

// trainLongTerms runs train_long_terms: the term table joined to the labelled source on the document id.
func trainLongTerms(ctx context.Context, sc *nb.Scan, f nb.Feature) error {
	tp := sc.Plan.Terms
	args := append(append([]any{}, sc.Plan.Src.Args...), tp.Src.Args...)
	stmt, err := queries.Render("train_long_terms.tmpl.sql", queries.LongTerms{
		Train:     queries.Train{From: sc.Plan.Src.FromAt(1), Label: sc.Plan.Label.Name, Weight: sc.Plan.Weight, Fold: sc.Fold},
		TermsFrom: tp.Src.FromAt(len(sc.Plan.Src.Args) + 1), Doc: tp.Doc, Term: tp.Term, Count: tp.Count,
		Present: nb.PresentSQL("n", fmt.Sprintf("$%d", len(args)+1))})
	if err != nil {
		return err
	}
	rows, err := nb.QueryRows(ctx, sc.Conn, stmt, append(args, f.Binarize)...)
	if err != nil {
		return fmt.Errorf("count the term table: %w", err)
	}
	defer rows.Close()
	var t TermCount
	var fold, bad int64
	var count sql.NullInt64 // NULL when a count is NaN or ±Inf (bad)
	ptrs := []any{&t.Class, &t.Term, &count, &t.Docs, &t.Present, &t.Weight, &bad}
	if sc.Fold != "" {
		ptrs = append([]any{&fold}, ptrs...)
	}
	for rows.Next() {
		if err := rows.Scan(ptrs...); err != nil {
			return err
		}
		if bad > 0 {
			return fmt.Errorf("%w: count column %q of the term table holds negative, NaN or infinite counts (term %q): counts must be finite and ≥ 0",
				nb.ErrBadValue, tp.Count, t.Term)
		}
		t.Feature, t.Count = f.Name, count.Int64
		nb.AddRows(sc.Part(fold).Stats, TermsTable, t)
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("count the term table: %w", err)
	}
	return nil
}

// Validate: a text_bernoulli feature's DocsTerm rows count documents only (no occurrences, no presence).
func (TextFamily) Validate(m *nb.Model, feats []nb.Feature) error {
	bern := map[string]bool{}
	for _, f := range feats {
		bern[f.Name] = f.Kind == TextBernoulli
	}
	for i, t := range nb.RowsOf(m, TermsTable) {
		if t.Term == DocsTerm && bern[t.Feature] && (t.Count != 0 || t.Present != 0 || t.Weight != 0) {
			return nb.InvalidRow(m, TermsTable.Name, i, "the documents of text_bernoulli feature %q, class %q (the empty term) have count %d, present %d, "+
				"weight %v: must be 0", t.Feature, t.Class, t.Count, t.Present, t.Weight)
		}
	}
	return nil
}

// textComponent scores one text feature over its vocabulary: table[t*K + c] holds log θ_tc (text), the
// complement weight (text_complement) or log p_tc - log(1 - p_tc) (text_bernoulli, with absent[c] =
// Σ_t log(1 - p_tc) for a document where every term is absent).
type textComponent struct {
	in     *nb.Input
	kind   nb.Kind
	table  []float64
	absent []float64
	weight []float64 // [t*K + c]: the weight of the term's occurrences (documents present, text_bernoulli)
	K      int
}

// Compile lays out a text feature: the vocabulary (terms with a positive count, in at least MinDF
// documents, the MaxFeatures most frequent — scikit-learn's CountVectorizer rules), then the kind's table.
func (TextFamily) Compile(cc *nb.Compiler, feats []nb.Feature) ([]nb.Component, error) {
	terms := nb.RowsByFeature(cc.Model, TermsTable)
	var out []nb.Component
	p := cc.Model.Params
	for _, f := range feats {
		in := cc.Input(f, nb.TermsInput)
		in.Text = f.Text
		in.Presence, in.Threshold = f.Kind == TextBernoulli, f.Binarize
		vocab, total, _ := vocabulary(terms[f.Name], p, cc.Model.Weight != "")
		if p.Int("max_features") > 0 && int64(len(vocab)) > p.Int("max_features") {
			sort.Slice(vocab, func(a, b int) bool {
				ta, tb := total[vocab[a]], total[vocab[b]]
				return ta > tb || (ta == tb && vocab[a] < vocab[b])
			})
			vocab = vocab[:p.Int("max_features")]
		}
		sort.Strings(vocab)
		in.SetValues(vocab)
		K, V := cc.K, len(vocab)
		n := make([]float64, V*K)
		for _, t := range terms[f.Name] {
			if i, ok := in.Index[t.Term]; ok {
				if f.Kind == TextBernoulli {
					n[int(i)*K+cc.Class[t.Class]] += float64(t.Present)
				} else {
					n[int(i)*K+cc.Class[t.Class]] += t.Weight
				}
			}
		}
		tc := &textComponent{in: in, kind: f.Kind, weight: n, K: K}
		switch f.Kind {
		case TextComplement:
			tc.table = nb.ComplementTable(n, V, K, cc.Alpha, p.Bool("norm"))
		case TextBernoulli:
			tc.table, tc.absent = bernoulliTables(n, V, bernoulliDocs(terms[f.Name], cc.Model.Classes, cc.Class), cc.Alpha)
		default:
			tc.table = nb.MultinomialTable(n, V, K, cc.Alpha)
		}
		out = append(out, tc)
	}
	return out, nil
}

// bernoulliDocs returns n_c per class of a text_bernoulli feature: the Docs of its DocsTerm rows (0 for a
// class without one: all its documents NULL). A model trained before those rows were kept has none at all;
// it keeps the rule it was trained with, n_c = every row of the class.
func bernoulliDocs(terms []TermCount, classes []nb.Class, index map[string]int) []float64 {
	n := make([]float64, len(classes))
	if !docsKept(terms) {
		for c, cl := range classes {
			n[c] = float64(cl.Count)
		}
		return n
	}
	for _, t := range terms {
		if c, ok := index[t.Class]; ok && t.Term == DocsTerm {
			n[c] += float64(t.Docs)
		}
	}
	return n
}

// docsKept reports whether a text_bernoulli feature's rows (terms) hold its document counts, DocsTerm rows:
// a model trained before they were kept has none.
func docsKept(terms []TermCount) bool {
	return slices.ContainsFunc(terms, func(t TermCount) bool { return t.Term == DocsTerm })
}

// bernoulliTables returns, per term and class, log p - log(1 - p) and, per class, Σ_t log(1 - p_tc), with
// p_tc = (d_tc + α)/(n_c + 2α), n_c = docs[c].
func bernoulliTables(d []float64, V int, docs []float64, alpha float64) ([]float64, []float64) {
	K := len(docs)
	delta, absent := make([]float64, V*K), make([]float64, K)
	for c := range docs {
		denom := docs[c] + 2*alpha
		for i := range V {
			p := (d[i*K+c] + alpha) / denom
			if denom == 0 {
				p = 0.5
			}
			l1 := math.Log1p(-p)
			delta[i*K+c] = math.Log(p) - l1
			absent[c] += l1
		}
	}
	return delta, absent
}

func (tc *textComponent) Inputs() []*nb.Input { return []*nb.Input{tc.in} }
func (tc *textComponent) Base(int) float64    { return 0 }
func (tc *textComponent) IgnoresPriors() bool { return tc.kind == TextComplement }

// term is row i's term for class c: Σ_t n_t table_tc, plus absent[c] for text_bernoulli; 0 for NULL text.
func (tc *textComponent) term(s *nb.Sparse, i, c int) float64 {
	if s.Null[i] {
		return 0
	}
	v := 0.0
	if tc.absent != nil {
		v = tc.absent[c]
	}
	for e := s.Off[i]; e < s.Off[i+1]; e++ {
		v += s.Val[e] * tc.table[int(s.Idx[e])*tc.K+c]
	}
	return v
}

func (tc *textComponent) Add(b *nb.Batch, out []float64) {
	n, s := b.N, b.Sparse[tc.in.Feature]
	for c := range tc.K {
		o := out[c*n : c*n+n]
		for i := range o {
			o[i] += tc.term(s, i, c)
		}
	}
}

func (tc *textComponent) Row(b *nb.Batch, i, c int) nb.XFloat {
	s := b.Sparse[tc.in.Feature]
	if s.Null[i] {
		return nb.XFloat{}
	}
	var v nb.XFloat
	if tc.absent != nil {
		v = nb.X(tc.absent[c])
	}
	for e := s.Off[i]; e < s.Off[i+1]; e++ {
		v = v.Add(nb.X(s.Val[e]).Mul(nb.X(tc.table[int(s.Idx[e])*tc.K+c])))
	}
	return v
}

func (tc *textComponent) Explain(b *nb.Batch, i, a, c int, out []nb.Contribution) []nb.Contribution {
	return append(out, nb.Contribution{Feature: tc.in.Name, Input: tc.in, LLR: tc.Row(b, i, a).Sub(tc.Row(b, i, c)).Float()})
}

func (tc *textComponent) Parameters(labels []string) []nb.Parameter {
	var out []nb.Parameter
	for c, l := range labels {
		for v, term := range tc.in.Values {
			p := nb.Parameter{Feature: tc.in.Name, Kind: tc.kind, Class: l, Value: term, HasValue: true, Parameter: "log_prob",
				Estimate: tc.table[v*tc.K+c], Count: tc.weight[v*tc.K+c]}
			switch tc.kind {
			case TextBernoulli: // stored as log p - log(1 - p)
				p.Parameter, p.Estimate = "probability", 1/(1+math.Exp(-p.Estimate))
			case TextComplement:
				p.Parameter = "weight"
			}
			out = append(out, p)
		}
	}
	return out
}

func (tc *textComponent) Informative(labels []string, c int) []nb.Informative {
	var out []nb.Informative
	for v, term := range tc.in.Values {
		at := func(d int) float64 { return tc.table[v*tc.K+d] }
		out = append(out, nb.Informative{Class: labels[c], Feature: tc.in.Name, Value: term, LLR: at(c) - nb.BestOther(tc.K, c, at)})
	}
	return out
}

func (tc *textComponent) SQL(*nb.Exporter, int) (string, error) {
	return "", fmt.Errorf("%w: text feature %q: the export has no tokenizer in SQL (its %d-term vocabulary per class aside); score "+
		"text with nb_predict on a connection sqlnb opens, or as the loadable extension", nb.ErrNotExportable, tc.in.Name, len(tc.in.Values))
}

// vocabulary returns the terms of a text feature's statistics with a positive count in at least min_df
// documents (unsorted, before max_features), each term's total count, and the most documents any term is in.
func vocabulary(terms []TermCount, p nb.Params, weighted bool) (vocab []string, total map[string]float64, mostDocs int64) {
	total, docs := map[string]float64{}, map[string]int64{}
	for _, t := range terms {
		if t.Term == DocsTerm {
			continue
		}
		// A vectorizer counts occurrences; sample weights weigh documents in the fit only (scikit-learn's
		// CountVectorizer never sees them). Unweighted, Weight is the count, fractions of a term table too.
		if weighted {
			total[t.Term] += float64(t.Count)
		} else {
			total[t.Term] += t.Weight
		}
		docs[t.Term] += t.Docs
	}
	for t, w := range total {
		if w > 0 && docs[t] >= p.Int("min_df") {
			vocab = append(vocab, t)
		}
		mostDocs = max(mostDocs, docs[t])
	}
	return vocab, total, mostDocs
}

// checkVocabulary refuses a text feature of model m left without a term, where every row would score the
// priors: no training document has one (each is NULL, empty, punctuation or stop words: scikit-learn's
// "empty vocabulary; perhaps the documents only contain stop words"), or min_df prunes them all (its "After
// pruning, no terms remain"). Training and SetParams ask it, of the whole model; the models of
// cross-validation folds, learning-curve sizes and --by groups, and the rows an update adds or forgets, are
// not asked (one small part must not end the sweep or the update). ts is the term table m was trained with,
// if any (its feature has no column of documents to check).
func checkVocabulary(m *nb.Model, ts *nb.TermsSpec) error {
	terms := nb.RowsByFeature(m, TermsTable)
	weighted := m.Weight != ""
	for _, f := range m.Features {
		if !isText(f.Kind) {
			continue
		}
		vocab, _, most := vocabulary(terms[f.Name], m.Params, weighted)
		if len(vocab) > 0 {
			continue
		}
		if all, _, _ := vocabulary(terms[f.Name], nb.Params{}, weighted); len(all) > 0 {
			return fmt.Errorf("%w: model %q: text feature %q: min_df %d leaves no term (the most frequent is in %d documents): lower min_df",
				nb.ErrBadOption, m.Name, f.Name, m.Params.Int("min_df"), most)
		}
		what, todo := "each is NULL, empty or punctuation", "check that the column holds the documents"
		if ts != nil && f.Name == cmp.Or(ts.Feature, "terms") {
			what, todo = "none has a row with a positive count in the term table", fmt.Sprintf("check that its document ids (column %q) match the labelled source's", ts.Doc)
		} else if f.Text.StopWords != "" {
			what, todo = "each is NULL, empty, punctuation or only English stop words", todo+", or train without stop words"
		}
		return fmt.Errorf("%w: model %q: text feature %q: empty vocabulary: no training document has a term (%s): %s",
			nb.ErrBadValue, m.Name, f.Name, what, todo)
	}
	return nil
}

func subtractTerm(x, t *TermCount) error {
	var err error
	c, d, p := x.Count, x.Docs, x.Present
	if c, err = nb.SubCount("the occurrences", c, t.Count); err != nil {
		return err
	}
	if d, err = nb.SubCount("the documents", d, t.Docs); err != nil {
		return err
	}
	if p, err = nb.SubCount("the documents where the term is present", p, t.Present); err != nil {
		return err
	}
	w, err := nb.SubSum("the weight", x.Weight, t.Weight)
	if err != nil {
		return err
	}
	if c == 0 && d == 0 {
		if err := nb.EmptySum("weight", w, x.Weight); err != nil {
			return err
		}
		w = 0
	}
	x.Count, x.Docs, x.Present, x.Weight = c, d, p, w
	return nil
}

// isText reports whether k is one of the text family's kinds.
func isText(k nb.Kind) bool {
	for _, info := range (TextFamily{}).Kinds() {
		if info.Kind == k {
			return true
		}
	}
	return false
}

// CheckModel refuses a text feature left without a term (checkVocabulary).
func (TextFamily) CheckModel(m *nb.Model, terms *nb.TermsSpec) error {
	return checkVocabulary(m, terms)
}

// Updatable refuses a stored model with a text_bernoulli feature but none of its document-count rows
// (DocsTerm): trained before they were kept, it scores with n_c = every row of the class, and rows added,
// merged or forgotten would count only their own documents. (A stored model's vocabulary is never empty, so
// it has non-NULL documents and so such rows.)
func (TextFamily) Updatable(m *nb.Model) error {
	terms := nb.RowsByFeature(m, TermsTable)
	for _, f := range m.Features {
		if f.Kind == TextBernoulli && !docsKept(terms[f.Name]) {
			return fmt.Errorf("%w: model %q: its text_bernoulli feature %q was trained before sqlnb kept each class's count of "+
				"non-NULL documents, which adding, merging or forgetting rows needs: train the model again", nb.ErrNotMergeable, m.Name, f.Name)
		}
	}
	return nil
}
