package sqlnb

import (
	"fmt"
	"math"
)

// Scorer is a Model compiled for scoring: priors and hyperparameters applied, each family's features laid
// out as Components. It is immutable and safe for concurrent use.
type Scorer struct {
	Model *Model
	// Labels are the class labels in model order.
	Labels []string
	// LogPrior is log p(c) per class (0 for every class when a component's scores replace the priors).
	LogPrior []float64
	// Inputs are the model's features as the components read them, in model (training) order.
	Inputs []*Input
	// Components are the compiled blocks of features, in registry order.
	Components []Component

	// Intercepts: LogPrior holds fitted intercepts (logistic regression), not log-priors.
	Intercepts bool
	// NoPriors: the scores ignore the priors (complement kinds, as scikit-learn's ComplementNB): LogPrior
	// is 0 and Parameters gives no prior estimate.
	NoPriors bool
	// GroupInputs are the group columns of a per-group model (nil otherwise), read as category inputs after
	// the features (Input.Feature = len(Inputs) + g): they pick each row's group model (groups.go).
	GroupInputs []*Input

	groups *groupDispatch

	base     []float64 // per class: LogPrior + Σ Component.Base
	numbers  []int     // features read as numbers: a NULL among them sends the row to the row reference
	required []int     // features whose missing value makes the row NULL (Input.Required)
}

// compiler is what a Family compiles against: the model, its class index and the effective smoothing and
// e1071 rule, and the inputs the components create.
type compiler struct {
	m      *Model
	K      int
	class  map[string]int
	alpha  float64
	rule   e1071Rule
	inputs []*Input
	pos    map[string]int
}

// input creates the Input of feature f.
func (cc *compiler) input(f Feature, kind InputKind) *Input {
	j := cc.pos[f.Name]
	in := &Input{Feature: j, Name: f.Name, Type: f.Type, Kind: kind}
	cc.inputs[j] = in
	return in
}

// e1071Rule is e1071's prediction rule: a per-feature probability or density ≤ eps counts as threshold.
type e1071Rule struct {
	on                           bool
	threshold, eps, logThreshold float64
}

// apply takes a per-feature log-probability t and returns log(threshold) if exp(t) ≤ eps, else t.
func (r e1071Rule) apply(t float64) float64 {
	if math.Exp(t) <= r.eps {
		return r.logThreshold
	}
	return t
}

// applyProb takes a per-feature probability or density p and returns log(threshold) if p ≤ eps, else log p.
func (r e1071Rule) applyProb(p float64) float64 {
	if p <= r.eps {
		return r.logThreshold
	}
	return math.Log(p)
}

// Compile applies m's Params and lays the model out for scoring: priors (fit n_c/n, smoothed
// (n_c+α)/(n+αK), uniform 1/K, or given), then each family's Compile (see gaussian.go, categorical.go,
// counts.go, textfamily.go, poisson.go for their rules). A per-group model compiles its pooled model and
// every group's (the Scorer then scores each row with its group's model: groups.go).
func Compile(m *Model) (*Scorer, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: compile: a nil model", ErrBadOption)
	}
	if len(m.By) > 0 {
		if err := m.Validate(); err != nil {
			return nil, err
		}
		return compileGroups(m)
	}
	return compileOne(m)
}

// compileOne compiles a model without groups.
func compileOne(m *Model) (*Scorer, error) {
	if err := m.Validate(); err != nil {
		return nil, err
	}
	return compileValid(m)
}

// compileValid is compileOne for a model the caller validated.
func compileValid(m *Model) (*Scorer, error) {
	K := len(m.Classes)
	s := &Scorer{Model: m, Labels: make([]string, K), LogPrior: make([]float64, K), base: make([]float64, K)}
	for c, cl := range m.Classes {
		s.Labels[c] = cl.Label
	}
	s.computePriors()
	cc := &compiler{m: m, K: K, class: m.ClassIndex(), alpha: m.Params.effectiveAlpha(),
		inputs: make([]*Input, len(m.Features)), pos: m.FeatureIndex()}
	if p := m.Params; p.Threshold > 0 {
		cc.rule = e1071Rule{on: true, threshold: p.Threshold, eps: p.Eps, logThreshold: math.Log(p.Threshold)}
	}
	for _, g := range byFamily(m.Features) {
		comps, err := g.fam.Compile(cc, g.feats)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", m.Name, err)
		}
		s.Components = append(s.Components, comps...)
	}
	s.Inputs = cc.inputs
	for j, in := range s.Inputs {
		if in == nil {
			return nil, fmt.Errorf("%w: model %q: feature %q was not compiled", ErrInvalidModel, m.Name, m.Features[j].Name)
		}
		switch {
		case in.Required:
			s.required = append(s.required, j)
		case in.Kind == NumberInput:
			s.numbers = append(s.numbers, j)
		}
	}
	for _, comp := range s.Components {
		if p, ok := comp.(priorless); ok && p.ignoresPriors() {
			clear(s.LogPrior) // complement scores ignore the priors, as scikit-learn
			s.NoPriors = true
		}
	}
	for _, comp := range s.Components {
		if ic, ok := comp.(intercepter); ok {
			s.Intercepts = true
			for c := range K {
				s.LogPrior[c] += ic.intercept(c)
			}
		}
	}
	for c := range K {
		s.base[c] = s.LogPrior[c]
		for _, comp := range s.Components {
			s.base[c] += comp.Base(c)
		}
	}
	return s, nil
}

func (s *Scorer) computePriors() {
	for c, p := range classPriors(s.Model) {
		s.LogPrior[c] = math.Log(p)
	}
}

// classPriors returns p(c) per class by the model's prior rule: fit n_c/n (weighted: w_c/w), smoothed
// (n_c + α)/(n + αK), uniform 1/K, or given.
func classPriors(m *Model) []float64 {
	K := float64(len(m.Classes))
	total := 0.0
	for _, c := range m.Classes {
		total += c.Weight
	}
	out := make([]float64, len(m.Classes))
	for c, cl := range m.Classes {
		switch m.Params.Priors {
		case PriorsSmoothed:
			out[c] = (cl.Weight + m.Params.Alpha) / (total + m.Params.Alpha*K)
		case PriorsUniform:
			out[c] = 1 / K
		case PriorsGiven:
			out[c] = cl.Prior
		default:
			out[c] = cl.Weight / total
		}
	}
	return out
}

// String describes s briefly.
func (s *Scorer) String() string {
	return fmt.Sprintf("scorer %q: %d classes, %d features", s.Model.Name, len(s.Labels), len(s.Inputs))
}

// Batch is a vector of rows to score, one column per model feature (model order), decoded as the feature's
// Input says.
type Batch struct {
	// N is the number of rows.
	N int
	// Num holds the values of number inputs (nil for the others), length ≥ N.
	Num [][]float64
	// Valid holds, per number input, a DuckDB validity mask: bit i%64 of word i/64 is set when row i is not
	// NULL. nil means no NULLs.
	Valid [][]uint64
	// Cat holds the codes of category inputs (nil for the others): 0..J-1 a training value, Unseen() an
	// unseen one, Missing() NULL.
	Cat [][]int32
	// Sparse holds the terms of terms inputs (nil for the others).
	Sparse []*Sparse

	masks [][]uint64 // validity buffers owned by the batch (Gather)
}

// NewBatch returns a batch of n rows with buffers for every input of s and no validity masks.
func (s *Scorer) NewBatch(n int) *Batch { return s.newBatch(n, s.GroupInputs) }

// newBatch returns a batch of n rows for the features of s and the group inputs given.
func (s *Scorer) newBatch(n int, groups []*Input) *Batch {
	w := len(s.Inputs) + len(groups)
	b := &Batch{N: n, Num: make([][]float64, w), Valid: make([][]uint64, w),
		Cat: make([][]int32, w), Sparse: make([]*Sparse, w)}
	for _, in := range groups {
		b.Cat[in.Feature] = make([]int32, n)
	}
	// The number columns share one allocation, each starting one cache line (8 doubles) further into its
	// stride than the last: columns a power of two apart (DuckDB's vectors are 2048 rows) fall into the
	// same L1 cache sets, and the count kernel, which reads a block of rows from every column once per pair
	// of classes, evicted its own lines (twice the time at 20 columns × 10 classes).
	stride, numbers := (n+7)&^7+8, 0
	for _, in := range s.Inputs {
		if in.Kind == NumberInput {
			numbers++
		}
	}
	slab := make([]float64, stride*numbers)
	for j, in := range s.Inputs {
		switch in.Kind {
		case NumberInput:
			b.Num[j], slab = slab[:n:n], slab[stride:]
		case TermsInput:
			b.Sparse[j] = &Sparse{}
			b.Sparse[j].Reset()
		default:
			b.Cat[j] = make([]int32, n)
		}
	}
	return b
}

// OwnBuffer reports whether number input j should be copied into the batch's own buffer (the one NewBatch
// allocates) even where the caller's memory holds its values as float64 already: the count kernel reads a
// block of rows from every count column once per pair of classes, and the batch's buffers are laid out so
// that those blocks do not evict each other from the L1 cache, where vectors of 2048 doubles would (the
// copy costs less than it saves: 0.270 → 0.250 s for 10M rows × 20 DOUBLE count columns × 10 classes).
func (s *Scorer) OwnBuffer(j int) bool {
	for _, comp := range s.Components {
		if cs, ok := comp.(*countsComponent); ok {
			for _, in := range cs.in {
				if in.Feature == j {
					return true
				}
			}
		}
	}
	return false
}

// isValid reports whether row i is valid in a DuckDB validity mask (nil: all valid).
func isValid(mask []uint64, i int) bool {
	return mask == nil || mask[i>>6]&(1<<(uint(i)&63)) != 0
}

// Workspace is scratch space for JointLogLikelihood, reused across batches by one goroutine.
type Workspace struct {
	bad, null []bool
	// Null is nil unless some row misses a value the model requires (Input.Required): then Null[i] says that
	// row i's results are NULL (its scores are NaN).
	Null []bool
	// Shift is nil unless some row's class scores lie beyond float64's range (values near 1e200 squared): then
	// Shift[i] is what was subtracted from every class score of row i (the largest one), so that the written
	// scores still give its posteriors; its true scores are out + Shift[i] (-Inf in float64).
	Shift []float64

	groups *groupScratch // per-group models: the rows of each group
}

// ShiftOf returns the shift of row i (0 for most rows).
func (ws *Workspace) ShiftOf(i int) float64 {
	if ws == nil || ws.Shift == nil {
		return 0
	}
	return ws.Shift[i]
}

// JointLogLikelihood writes b_c = log p(c) + Σ_j log p(x_j | c) (seed 004) for every row of b into out,
// class-major: out[c*N + i], len(out) ≥ K*N. The components' vector kernels run over every row; then rows
// with a NULL number or a score that is not finite (NaN or ±Inf input, a value whose square overflows) are
// rescored with the row reference, where missing values (NULL, and NaN or ±Inf for numbers) add nothing
// (seed 004) and scores have an extended range: if they lie beyond float64's, the row's scores are shifted
// (Workspace.Shift) so that its posteriors are the mathematical limit — the class whose log-density is
// least negative gets all the mass. ws may be nil.
//
// A per-group model scores each row with its group's model (groups.go): the classes the group lacks score
// -Inf.
func (s *Scorer) JointLogLikelihood(b *Batch, out []float64, ws *Workspace) {
	if ws == nil {
		ws = &Workspace{}
	}
	if s.groups != nil {
		s.groupedJLL(b, out, ws)
		return
	}
	s.pooledJLL(b, out, ws)
}

// pooledJLL is JointLogLikelihood without group dispatch.
func (s *Scorer) pooledJLL(b *Batch, out []float64, ws *Workspace) {
	n, K := b.N, len(s.Labels)
	for c := range K {
		fill(out[c*n:c*n+n], s.base[c])
	}
	for _, comp := range s.Components {
		comp.Add(b, out)
	}
	if ws == nil {
		ws = &Workspace{}
	}
	s.fixup(b, out, ws)
}

// Incomplete reports whether row i of b misses a value the model requires (Input.Required: NULL, or NaN
// or ±Inf for a number): its results are NULL.
func (s *Scorer) Incomplete(b *Batch, i int) bool {
	for _, j := range s.required {
		if s.misses(b, j, i) {
			return true
		}
	}
	return false
}

// misses reports whether row i of b misses input j's value (NULL; NaN or ±Inf for a number).
func (s *Scorer) misses(b *Batch, j, i int) bool {
	if s.Inputs[j].Kind == NumberInput {
		x := b.Num[j][i]
		return !isValid(b.Valid[j], i) || x-x != 0
	}
	return b.Cat[j][i] == s.Inputs[j].Missing()
}

// markIncomplete sets ws.Null (and NaN scores) for the rows that miss a required value: a NULL (validity
// mask; word by word) or, for a category, the Missing code. A NaN or ±Inf required number makes the row's
// scores non-finite, so fixup finds it with the rows to rescore and marks it here (nullIfNonFinite).
func (s *Scorer) markIncomplete(b *Batch, ws *Workspace) {
	n := b.N
	ws.Null = nil
	mark := func(i int) {
		if ws.Null == nil {
			ws.Null = ws.nullBuf(n)
		}
		ws.Null[i] = true
	}
	for _, j := range s.required {
		in := s.Inputs[j]
		if in.Kind != NumberInput {
			miss := in.Missing()
			for i, code := range b.Cat[j][:n] {
				if code == miss {
					mark(i)
				}
			}
			continue
		}
		mask := b.Valid[j]
		if mask == nil {
			continue
		}
		for w := 0; w*64 < n; w++ {
			if mask[w] == ^uint64(0) {
				continue
			}
			for i := w * 64; i < n && i < w*64+64; i++ {
				if mask[w]&(1<<(uint(i)&63)) == 0 {
					mark(i)
				}
			}
		}
	}
}

// nullIfNonFinite marks row i NULL if one of its required numbers is NaN or ±Inf, and reports whether it
// did.
func (s *Scorer) nullIfNonFinite(b *Batch, i int, ws *Workspace) bool {
	for _, j := range s.required {
		if s.Inputs[j].Kind == NumberInput {
			if x := b.Num[j][i]; x-x != 0 {
				if ws.Null == nil {
					ws.Null = ws.nullBuf(b.N)
				}
				ws.Null[i] = true
				return true
			}
		}
	}
	return false
}

func (ws *Workspace) nullBuf(n int) []bool {
	if cap(ws.null) < n {
		ws.null = make([]bool, n)
	}
	b := ws.null[:n]
	clear(b)
	return b
}

// NullOf reports whether row i's results are NULL (a required value is missing).
func (ws *Workspace) NullOf(i int) bool { return ws != nil && ws.Null != nil && ws.Null[i] }

// fixup rescores with the row reference the rows the vector kernels cannot score, and marks the rows that
// miss a required value.
func (s *Scorer) fixup(b *Batch, out []float64, ws *Workspace) {
	n, K := b.N, len(s.Labels)
	ws.Shift = nil
	s.markIncomplete(b, ws)
	if cap(ws.bad) < n {
		ws.bad = make([]bool, n)
	}
	bad := ws.bad[:n]
	clear(bad)
	any := false
	for _, j := range s.numbers {
		mask := b.Valid[j]
		if mask == nil {
			continue
		}
		for w := 0; w*64 < n; w++ {
			if mask[w] == ^uint64(0) {
				continue
			}
			for i := w * 64; i < n && i < w*64+64; i++ {
				if mask[w]&(1<<(uint(i)&63)) == 0 {
					bad[i], any = true, true
				}
			}
		}
	}
	for c := range K {
		col := out[c*n : c*n+n]
		if allFinite(col) {
			continue
		}
		for i, v := range col {
			if v-v != 0 && !ws.NullOf(i) && !s.nullIfNonFinite(b, i, ws) {
				bad[i], any = true, true
			}
		}
	}
	// Rows that miss a required value score NaN (their results are NULL), whatever the kernels wrote.
	for i, null := range ws.Null {
		if null {
			bad[i] = false
			for c := range K {
				out[c*n+i] = math.NaN()
			}
		}
	}
	if !any {
		return
	}
	scores, row := make([]XFloat, K), make([]float64, K)
	for i, isBad := range bad {
		if !isBad {
			continue
		}
		if shift, ok := s.rescore(b, i, scores, row); ok {
			if ws.Shift == nil {
				ws.Shift = make([]float64, n)
			}
			ws.Shift[i] = shift
		}
		for c, v := range row {
			out[c*n+i] = v
		}
	}
}

// rescore writes row i's class scores computed by the row reference to dst; if they lie beyond float64's
// range, they are shifted by the largest (shifted reports it, shift is what was subtracted). scores is
// scratch space (len(s.Labels)).
func (s *Scorer) rescore(b *Batch, i int, scores []XFloat, dst []float64) (shift float64, shifted bool) {
	s.rowScores(b, i, scores)
	top, finite := scores[0], true
	for _, x := range scores {
		if x.Greater(top) {
			top = x
		}
		v := x.Float()
		finite = finite && v-v == 0
	}
	if finite {
		for c, x := range scores {
			dst[c] = x.Float()
		}
		return 0, false
	}
	for c, x := range scores {
		dst[c] = x.Sub(top).Float()
	}
	return top.Float(), true
}

// RowScores writes row i's class scores computed by the row reference (each component's Row, in extended
// range) into dst: what JointLogLikelihood's vector kernels must agree with (-Inf where the true score is
// below float64's range).
func (s *Scorer) RowScores(b *Batch, i int, dst []float64) {
	sc, gb, gi, classOf := s.rowGroup(b, i)
	x := make([]XFloat, len(sc.Labels))
	sc.rowScores(gb, gi, x)
	if classOf != nil {
		for c := range dst[:len(s.Labels)] {
			dst[c] = math.Inf(-1)
		}
		for c, v := range x {
			dst[classOf[c]] = v.Float()
		}
		return
	}
	for c, v := range x {
		dst[c] = v.Float()
	}
}

// rowScores writes row i's class scores (the row reference) into dst.
func (s *Scorer) rowScores(b *Batch, i int, dst []XFloat) {
	for c := range dst {
		v := X(s.LogPrior[c])
		for _, comp := range s.Components {
			v = v.Add(comp.Row(b, i, c))
		}
		dst[c] = v
	}
}

// Argmax writes, for every row, the index of the class with the largest joint log-likelihood in jll
// (class-major, as JointLogLikelihood writes it); ties go to the first class in model order, and a NaN score
// ends the search (the row keeps the best class before it). top is scratch of length ≥ n. Sixteen rows at a
// time with AVX2 where the CPU has it (argmax_amd64.s), the rest four rows at a time, their best class and
// score in locals while the classes are walked, without branches.
func Argmax(jll []float64, n, K int, dst []int32, top []float64) {
	dst, top = dst[:n], top[:n]
	i := 0
	if useAVX2 && n >= 16 {
		_ = jll[K*n-1]
		i = n &^ 15
		argmaxAVX2(&jll[0], n, K, &dst[0], &top[0], i)
	}
	for ; n-i >= 4; i += 4 {
		t := jll[i : i+4 : i+4]
		t0, t1, t2, t3 := t[0], t[1], t[2], t[3]
		var d0, d1, d2, d3 int32
		for c := 1; c < K; c++ {
			v := jll[c*n+i : c*n+i+4 : c*n+i+4]
			ci := int32(c)
			d0 = pick(v[0] > t0, ci, d0)
			d1 = pick(v[1] > t1, ci, d1)
			d2 = pick(v[2] > t2, ci, d2)
			d3 = pick(v[3] > t3, ci, d3)
			t0, t1, t2, t3 = max(v[0], t0), max(v[1], t1), max(v[2], t2), max(v[3], t3)
		}
		dst[i], dst[i+1], dst[i+2], dst[i+3] = d0, d1, d2, d3
		top[i], top[i+1], top[i+2], top[i+3] = t0, t1, t2, t3
	}
	for ; i < n; i++ {
		t, d := jll[i], int32(0)
		for c := 1; c < K; c++ {
			v := jll[c*n+i]
			d = pick(v > t, int32(c), d)
			t = max(v, t)
		}
		dst[i], top[i] = d, t
	}
}

// pick returns a if cond, else b (the compiler makes it a conditional move).
func pick(cond bool, a, b int32) int32 {
	if cond {
		return a
	}
	return b
}

// ClassPosterior returns p(c | x) for row i: Posterior's value for class c, bit for bit (exp(b_c − B) ·
// (1/Σ), B = max b), as nb_proba gives it (from Posteriors, chunk-wide) — also in the limits (a
// class at −∞ next to finite ones gives 0; every class at −∞, or a NaN score, gives NaN, as Posterior).
func ClassPosterior(jll []float64, n, K, i, c int) float64 {
	mx, sum := shiftedExpSum(jll, n, K, i, nil)
	return expNonPositive(jll[c*n+i]-mx) * (1 / sum)
}

// LogPosterior turns the joint log-likelihoods of row i (class-major jll with n rows) into
// log p(c | x) = b_c - log Σ exp(b_c') (seed 004's log-sum-exp: the largest b is factored out first),
// written to dst.
func LogPosterior(jll []float64, n, K, i int, dst []float64) {
	mx, sum := shiftedExpSum(jll, n, K, i, nil)
	ls := math.Log(sum)
	for c := range K {
		dst[c] = (jll[c*n+i] - mx) - ls
	}
}

// Posterior writes p(c | x) = exp(b_c - B) / Σ exp(b_c' - B), B = max b, for row i to dst, as
// exp(b_c - B) · (1/Σ): K multiplications cost less than K divisions and add at most an ulp; the
// probabilities sum to 1 within a few ulps.
func Posterior(jll []float64, n, K, i int, dst []float64) {
	_, sum := shiftedExpSum(jll, n, K, i, dst)
	inv := 1 / sum
	for c := range K {
		dst[c] *= inv
	}
}

// Posteriors writes p(c | x) of every row to dst, row-major (dst[i*K+c]), the same values as Posterior
// row by row (the exponentials dominate nb_predict_proba's cost). sums is scratch of n elements (it receives
// the rows' sums). With AVX2 (useAVX2), posteriorsAVX2 (exp_amd64.s) does groups of eight rows for 3 to
// posteriorsWide classes in one pass (the same bits), and posteriorsRows what it leaves.
func Posteriors(jll []float64, n, K int, dst, sums []float64) {
	if K == 2 {
		posteriorsTwo(jll, n, dst)
		return
	}
	i0 := 0
	if useAVX2 && K >= 3 && K <= posteriorsWide && n >= 8 {
		_, _ = jll[K*n-1], dst[n*K-1] // the kernel reads and writes up to here
		var scratch [posteriorsWide * 8]float64
		for n-i0 >= 8 {
			i0 += posteriorsAVX2(&jll[i0], n, K, n-i0, &dst[i0*K], &scratch[0], nil, nil)
			if n-i0 >= 8 { // a group with a NaN difference
				posteriorsRows(jll, n, K, i0, i0+8, dst, sums)
				i0 += 8
			}
		}
	}
	for ; i0 < n; i0 += posteriorBlock {
		posteriorsRows(jll, n, K, i0, min(i0+posteriorBlock, n), dst, sums)
	}
}

// posteriorsWide is the most classes posteriorsAVX2 takes: its scratch holds a group's exponentials, 8 a
// class (4 KB on the stack); more go to expSumsBlock and scaleRows.
const posteriorsWide = 64

// posteriorsRows is Posteriors for rows i0 ≤ i < i1: expSumsBlock, then scaleRows.
func posteriorsRows(jll []float64, n, K, i0, i1 int, dst, sums []float64) {
	expSumsBlock(jll, n, K, i0, i1, dst, sums)
	scaleRows(dst[i0*K:i1*K], K, sums[i0:i1])
}

// scaleRows multiplies each row of K values in dst by 1/sum of its row (scaleRowsAVX2 with AVX2: the same
// operations, four values at a time).
func scaleRows(dst []float64, K int, sum []float64) {
	if len(sum) == 0 {
		return
	}
	_ = dst[len(sum)*K-1]
	if useAVX2 {
		scaleRowsAVX2(&dst[0], K, &sum[0], len(sum))
		return
	}
	for i, s := range sum {
		row := dst[i*K : i*K+K]
		inv := 1 / s
		for c := range row {
			row[c] *= inv
		}
	}
}

// expSumsBlock computes, for rows i0 ≤ i < i1, exp(b_ic − B_i) (B_i = max_c b_ic) into dst[i*K+c] and
// their sum in class order into sum[i], as expSumsGo. With AVX2 (useAVX2), expSumsAVX2 (exp_amd64.s) does
// it four rows at a time, one pass over the classes for each group (the same bits), and leaves to expSumsGo
// the groups with a NaN difference and the last rows. (Posteriors uses it for more than posteriorsWide
// classes; posteriorsAVX2 does the rest.)
func expSumsBlock(jll []float64, n, K, i0, i1 int, dst, sum []float64) {
	if i0 == i1 {
		return
	}
	_, _, _ = jll[(K-1)*n+i1-1], dst[i1*K-1], sum[i1-1] // the kernel reads and writes up to here
	byFours(i1-i0, func(i int) int { return expSumsAVX2(&jll[i0+i], n, K, i1-i0-i, &dst[(i0+i)*K], &sum[i0+i]) },
		func(i, j int) { expSumsGo(jll, n, K, i0+i, i0+j, dst, sum) })
}

// expSumsGo is expSumsBlock in Go: expShiftedBlock, then each row's sum (rowSum).
func expSumsGo(jll []float64, n, K, i0, i1 int, dst, sum []float64) {
	expShiftedBlock(jll, n, K, i0, i1, dst, sum)
	for i := i0; i < i1; i++ {
		sum[i] = rowSum(dst[i*K : i*K+K])
	}
}

// LogPosteriors writes log p(c | x) of every row to dst, row-major, the same values as LogPosterior.
func LogPosteriors(jll []float64, n, K int, dst, rowMax []float64) {
	for i0 := 0; i0 < n; i0 += posteriorBlock {
		i1 := min(i0+posteriorBlock, n)
		expShiftedBlock(jll, n, K, i0, i1, dst, rowMax)
		for i := i0; i < i1; i++ {
			row := dst[i*K : i*K+K]
			ls, mx := math.Log(rowSum(row)), rowMax[i]
			for c := range row {
				row[c] = (jll[c*n+i] - mx) - ls
			}
		}
	}
}

// posteriorsTwo is Posteriors for two classes with one exponential per row instead of two: the larger
// score's is e^0 = 1, the other's e^(−|b₁ − b₀|) (the same difference as b_c − B, bit for bit), their sum
// 1 + e, so that the probabilities are 1·(1/(1+e)) and e·(1/(1+e)): Posterior's operations on the same values.
// A score of +∞ makes both NaN, as in Posterior (whose larger score's e^(b − B) is then e^(+∞ − +∞)). With AVX2
// (useAVX2), posteriorsTwoAVX2 (exp_amd64.s) does four rows at a time, the same bits, and leaves to
// posteriorsTwoGo the groups of four with a NaN difference or a +∞ score, and the last n mod 4 rows.
func posteriorsTwo(jll []float64, n int, dst []float64) {
	b0, b1, dst := jll[:n], jll[n:2*n], dst[:2*n]
	byFours(n, func(i int) int { return posteriorsTwoAVX2(&b0[i], &b1[i], &dst[2*i], n-i) },
		func(i, j int) { posteriorsTwoGo(b0[i:j], b1[i:j], dst[2*i:2*j]) })
}

// posteriorsTwoGo is posteriorsTwo in Go, row by row (b0 and b1 the two classes' scores, dst 2·len(b0)
// posteriors row-major): the reference the AVX2 kernel reproduces.
func posteriorsTwoGo(b0, b1, dst []float64) {
	b1, dst = b1[:len(b0)], dst[:2*len(b0)]
	for i, v := range b0 {
		d := b1[i] - v
		if math.IsInf(v, 1) || math.IsInf(b1[i], 1) {
			d = math.NaN() // as Posterior's e^(+∞ − +∞): the posteriors are NaN
		}
		e := -math.Abs(d)
		if e <= 0 && hasFMA {
			e = expRebuild(expReduce(e))
		} else {
			e = expSlow(e) // NaN
		}
		inv := 1 / (1 + e)
		top := 0 // the class with the larger score
		if d > 0 {
			top = 1
		}
		dst[2*i+top] = inv
		dst[2*i+1-top] = e * inv
	}
}

// posteriorBlock is the rows Posteriors and LogPosteriors finish at a time: with 10 classes their
// exponentials (20 KB) stay in the L1 cache between the passes over them.
const posteriorBlock = 256

// expShiftedBlock computes, for rows i0 ≤ i < i1, B_i = max_c b_ic into rowMax and exp(b_ic − B_i) into
// dst[i*K+c]: a pass over each class's contiguous scores per step (strided writes to dst, which a block
// keeps in cache).
func expShiftedBlock(jll []float64, n, K, i0, i1 int, dst, rowMax []float64) {
	mx, d := rowMax[i0:i1], dst[i0*K:i1*K]
	copy(mx, jll[i0:i1])
	for c := 1; c < K; c++ {
		for i, v := range jll[c*n+i0 : c*n+i1] {
			mx[i] = max(mx[i], v) // no branch: which class is largest is a coin toss per row
		}
	}
	for c := range K {
		expShifted(d[c:], K, jll[c*n+i0:c*n+i1], mx)
	}
}

// rowSum returns Σ_c row[c] in class order, as shiftedExpSum adds.
func rowSum(row []float64) float64 {
	s := 0.0
	for _, v := range row {
		s += v
	}
	return s
}

// LogEvidence returns log p(x) = log Σ_c p(c) p(x | c) for row i (seed 004's log-sum-exp); add the row's
// Workspace shift.
func LogEvidence(jll []float64, n, K, i int) float64 {
	mx, sum := shiftedExpSum(jll, n, K, i, nil)
	return mx + math.Log(sum)
}

// LogEvidences writes LogEvidence of every row to dst, bit for bit, with the vector kernels instead of a
// scalar exponential per class and row: with AVX2 (useAVX2), posteriorsAVX2 (exp_amd64.s) without a dst
// takes each row's B = max b and Σ exp(b_c − B) eight rows at a time in one pass over the classes (the
// same bits as the posteriors'), for up to posteriorsWide classes; logEvidencesRows (expShiftedBlock and the rows' sums in class
// order) does what it leaves. work holds n·K values, rowMax n.
func LogEvidences(jll []float64, n, K int, dst, work, rowMax []float64) {
	i0 := 0
	if useAVX2 && K <= posteriorsWide && n >= 8 {
		_, _, _ = jll[K*n-1], dst[n-1], rowMax[n-1] // the kernel reads and writes up to here
		var scratch [posteriorsWide * 8]float64
		for n-i0 >= 8 {
			did := posteriorsAVX2(&jll[i0], n, K, n-i0, nil, &scratch[0], &rowMax[i0], &dst[i0])
			for i := i0; i < i0+did; i++ {
				dst[i] = rowMax[i] + math.Log(dst[i]) // dst held the sum
			}
			i0 += did
			if n-i0 >= 8 { // a group with a NaN difference
				logEvidencesRows(jll, n, K, i0, i0+8, dst, work, rowMax)
				i0 += 8
			}
		}
	}
	for ; i0 < n; i0 += posteriorBlock {
		logEvidencesRows(jll, n, K, i0, min(i0+posteriorBlock, n), dst, work, rowMax)
	}
}

// logEvidencesRows is LogEvidences for rows i0 ≤ i < i1 by expShiftedBlock and rowSum.
func logEvidencesRows(jll []float64, n, K, i0, i1 int, dst, work, rowMax []float64) {
	expShiftedBlock(jll, n, K, i0, i1, work, rowMax)
	for i := i0; i < i1; i++ {
		dst[i] = rowMax[i] + math.Log(rowSum(work[i*K:i*K+K]))
	}
}

// shiftedExpSum returns B = max_c b_c and Σ exp(b_c - B) (in class order); if e is not nil it receives
// exp(b_c - B).
func shiftedExpSum(jll []float64, n, K, i int, e []float64) (float64, float64) {
	mx := math.Inf(-1)
	for c := range K {
		mx = max(mx, jll[c*n+i]) // NaN if a score is NaN (every posterior is NaN then anyway), as expShiftedBlock
	}
	// The row's exponentials rowVector classes at a time through expShifted (the vector kernel where there is
	// one, four at a time, rather than one long scalar chain each; the same bits), summed in class order.
	sum := 0.0
	var b, sh, x [rowVector]float64
	for c0 := 0; c0 < K; c0 += rowVector {
		m := min(rowVector, K-c0)
		for c := range m {
			b[c], sh[c] = jll[(c0+c)*n+i], mx
		}
		expShifted(x[:m], 1, b[:m], sh[:m])
		for c, v := range x[:m] {
			if e != nil {
				e[c0+c] = v
			}
			sum += v
		}
	}
	return mx, sum
}

// rowVector is how many classes shiftedExpSum hands to expShifted at once (its buffers live on the stack).
const rowVector = 16

// gatherNumbers copies rows idx of number input j of b, with its validity, into dst.
func (b *Batch) gatherNumbers(dst *Batch, j int, idx []int) {
	n := len(idx)
	src, d := b.Num[j], dst.Num[j][:n]
	for r, i := range idx {
		d[r] = src[i]
	}
	dst.Valid[j] = nil
	if mask := b.Valid[j]; mask != nil {
		out := dst.validBuf(j, n)
		for r, i := range idx {
			if isValid(mask, i) {
				out[r>>6] |= 1 << (uint(r) & 63)
			}
		}
		dst.Valid[j] = out
	}
}

// Gather copies rows idx of b into dst (a batch of the same scorer from NewBatch) and sets dst.N.
func (b *Batch) Gather(dst *Batch, idx []int) {
	n := len(idx)
	dst.N = n
	for j := range b.Num {
		if b.Num[j] != nil {
			b.gatherNumbers(dst, j, idx)
		}
		if b.Cat[j] != nil {
			src, d := b.Cat[j], dst.Cat[j][:n]
			for r, i := range idx {
				d[r] = src[i]
			}
		}
		if src := b.Sparse[j]; src != nil {
			d := dst.Sparse[j]
			d.Reset()
			for _, i := range idx {
				for e := src.Off[i]; e < src.Off[i+1]; e++ {
					d.Add(src.Idx[e], src.Val[e])
				}
				if src.Null[i] {
					d.EndNullRow()
				} else {
					d.EndRow()
				}
			}
		}
	}
}

// validBuf returns a cleared validity buffer of feature j for n rows, owned by b.
func (b *Batch) validBuf(j, n int) []uint64 {
	if b.masks == nil {
		b.masks = make([][]uint64, len(b.Num))
	}
	w := (n + 63) / 64
	if cap(b.masks[j]) < w {
		b.masks[j] = make([]uint64, w)
	}
	m := b.masks[j][:w]
	clear(m)
	return m
}
