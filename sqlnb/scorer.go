package sqlnb

import (
	"fmt"
	"math"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// Scorer is a Model compiled for scoring: priors and hyperparameters applied, each family's features laid
// out as Components. It is immutable and safe for concurrent use.
type Scorer struct {
	Model *nb.Model
	// Labels are the class labels in model order.
	Labels []string
	// LogPrior is log p(c) per class (0 for every class when a component's scores replace the priors).
	LogPrior []float64
	// Inputs are the model's features as the components read them, in model (training) order.
	Inputs []*nb.Input
	// Components are the compiled blocks of features, in registry order.
	Components []nb.Component

	// Intercepts: LogPrior holds fitted intercepts (logistic regression), not log-priors.
	Intercepts bool
	// NoPriors: the scores ignore the priors (complement kinds, as scikit-learn's ComplementNB): LogPrior
	// is 0 and Parameters gives no prior estimate.
	NoPriors bool
	// GroupInputs are the group columns of a per-group model (nil otherwise), read as category inputs after
	// the features (Input.Feature = len(Inputs) + g): they pick each row's group model (groups.go).
	GroupInputs []*nb.Input

	groups *groupDispatch

	base     []float64 // per class: LogPrior + Σ Component.Base
	numbers  []int     // features read as numbers: a NULL among them sends the row to the row reference
	required []int     // features whose missing value makes the row NULL (Input.Required)
}

// Compile applies m's Params and lays the model out for scoring: priors (fit n_c/n, smoothed
// (n_c+α)/(n+αK), uniform 1/K, or given), then each family's Compile (see gaussian.go, categorical.go,
// counts.go, textfamily.go, poisson.go for their rules). A per-group model compiles its pooled model and
// every group's (the Scorer then scores each row with its group's model: groups.go).
func Compile(m *nb.Model) (*Scorer, error) {
	if m == nil {
		return nil, fmt.Errorf("%w: compile: a nil model", nb.ErrBadOption)
	}
	if len(m.By) > 0 {
		if err := families.Validate(m); err != nil {
			return nil, err
		}
		return compileGroups(m)
	}
	return compileOne(m)
}

// compileOne compiles a model without groups.
func compileOne(m *nb.Model) (*Scorer, error) {
	if err := families.Validate(m); err != nil {
		return nil, err
	}
	return compileValid(m)
}

// compileValid is compileOne for a model the caller validated.
func compileValid(m *nb.Model) (*Scorer, error) {
	K := len(m.Classes)
	s := &Scorer{Model: m, Labels: make([]string, K), LogPrior: make([]float64, K), base: make([]float64, K)}
	for c, cl := range m.Classes {
		s.Labels[c] = cl.Label
	}
	s.computePriors()
	cc := &nb.Compiler{Model: m, K: K, Class: m.ClassIndex(), Alpha: nb.EffectiveAlpha(m.Params),
		Inputs: make([]*nb.Input, len(m.Features)), Pos: m.FeatureIndex()}
	if p := m.Params; p.Float("threshold") > 0 {
		cc.Rule = nb.E1071Rule{On: true, Threshold: p.Float("threshold"), Eps: p.Float("eps"), LogThreshold: math.Log(p.Float("threshold"))}
	}
	for _, g := range families.ByFamily(m.Features) {
		comps, err := g.Family.Compile(cc, g.Features)
		if err != nil {
			return nil, fmt.Errorf("model %q: %w", m.Name, err)
		}
		s.Components = append(s.Components, comps...)
	}
	s.Inputs = cc.Inputs
	for j, in := range s.Inputs {
		if in == nil {
			return nil, fmt.Errorf("%w: model %q: feature %q was not compiled", nb.ErrInvalidModel, m.Name, m.Features[j].Name)
		}
		switch {
		case in.Required:
			s.required = append(s.required, j)
		case in.Kind == nb.NumberInput:
			s.numbers = append(s.numbers, j)
		}
	}
	for _, comp := range s.Components {
		if p, ok := comp.(nb.Priorless); ok && p.IgnoresPriors() {
			clear(s.LogPrior) // complement scores ignore the priors, as scikit-learn
			s.NoPriors = true
		}
	}
	for _, comp := range s.Components {
		if ic, ok := comp.(nb.Intercepter); ok {
			s.Intercepts = true
			for c := range K {
				s.LogPrior[c] += ic.Intercept(c)
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
	for c, p := range nb.ClassPriors(s.Model) {
		s.LogPrior[c] = math.Log(p)
	}
}

// String describes s briefly.
func (s *Scorer) String() string {
	return fmt.Sprintf("scorer %q: %d classes, %d features", s.Model.Name, len(s.Labels), len(s.Inputs))
}

// NewBatch returns a batch of n rows with buffers for every input of s and no validity masks.
func (s *Scorer) NewBatch(n int) *nb.Batch { return s.newBatch(n, s.GroupInputs) }

// newBatch returns a batch of n rows for the features of s and the group inputs given.
func (s *Scorer) newBatch(n int, groups []*nb.Input) *nb.Batch {
	w := len(s.Inputs) + len(groups)
	b := &nb.Batch{N: n, Num: make([][]float64, w), Valid: make([][]uint64, w),
		Cat: make([][]int32, w), Sparse: make([]*nb.Sparse, w)}
	for _, in := range groups {
		b.Cat[in.Feature] = make([]int32, n)
	}
	// The number columns share one allocation, each starting one cache line (8 doubles) further into its
	// stride than the last: columns a power of two apart (DuckDB's vectors are 2048 rows) fall into the
	// same L1 cache sets, and the count kernel, which reads a block of rows from every column once per pair
	// of classes, evicted its own lines (twice the time at 20 columns × 10 classes).
	stride, numbers := (n+7)&^7+8, 0
	for _, in := range s.Inputs {
		if in.Kind == nb.NumberInput {
			numbers++
		}
	}
	slab := make([]float64, stride*numbers)
	for j, in := range s.Inputs {
		switch in.Kind {
		case nb.NumberInput:
			b.Num[j], slab = slab[:n:n], slab[stride:]
		case nb.TermsInput:
			b.Sparse[j] = &nb.Sparse{}
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
		if o, ok := comp.(nb.BufferOwner); ok && o.OwnsBuffers() {
			for _, in := range comp.Inputs() {
				if in.Feature == j {
					return true
				}
			}
		}
	}
	return false
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
func (s *Scorer) JointLogLikelihood(b *nb.Batch, out []float64, ws *Workspace) {
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
func (s *Scorer) pooledJLL(b *nb.Batch, out []float64, ws *Workspace) {
	n, K := b.N, len(s.Labels)
	for c := range K {
		kernel.Fill(out[c*n:c*n+n], s.base[c])
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
func (s *Scorer) Incomplete(b *nb.Batch, i int) bool {
	for _, j := range s.required {
		if s.misses(b, j, i) {
			return true
		}
	}
	return false
}

// misses reports whether row i of b misses input j's value (NULL; NaN or ±Inf for a number).
func (s *Scorer) misses(b *nb.Batch, j, i int) bool {
	if s.Inputs[j].Kind == nb.NumberInput {
		x := b.Num[j][i]
		return !nb.IsValid(b.Valid[j], i) || x-x != 0
	}
	return b.Cat[j][i] == s.Inputs[j].Missing()
}

// markIncomplete sets ws.Null (and NaN scores) for the rows that miss a required value: a NULL (validity
// mask; word by word) or, for a category, the Missing code. A NaN or ±Inf required number makes the row's
// scores non-finite, so fixup finds it with the rows to rescore and marks it here (nullIfNonFinite).
func (s *Scorer) markIncomplete(b *nb.Batch, ws *Workspace) {
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
		if in.Kind != nb.NumberInput {
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
func (s *Scorer) nullIfNonFinite(b *nb.Batch, i int, ws *Workspace) bool {
	for _, j := range s.required {
		if s.Inputs[j].Kind == nb.NumberInput {
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

// fixup rescores with the row reference the rows the vector kernels cannot score, and marks the rows that
// miss a required value.
func (s *Scorer) fixup(b *nb.Batch, out []float64, ws *Workspace) {
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
		if kernel.AllFinite(col) {
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
	scores, row := make([]nb.XFloat, K), make([]float64, K)
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
func (s *Scorer) rescore(b *nb.Batch, i int, scores []nb.XFloat, dst []float64) (shift float64, shifted bool) {
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
func (s *Scorer) RowScores(b *nb.Batch, i int, dst []float64) {
	sc, gb, gi, classOf := s.rowGroup(b, i)
	x := make([]nb.XFloat, len(sc.Labels))
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
func (s *Scorer) rowScores(b *nb.Batch, i int, dst []nb.XFloat) {
	for c := range dst {
		v := nb.X(s.LogPrior[c])
		for _, comp := range s.Components {
			v = v.Add(comp.Row(b, i, c))
		}
		dst[c] = v
	}
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
