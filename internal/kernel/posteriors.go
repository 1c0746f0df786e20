package kernel

import "math"

// Argmax writes, for every row, the index of the class with the largest joint log-likelihood in jll
// (class-major, as JointLogLikelihood writes it); ties go to the first class in model order, and a NaN score
// ends the search (the row keeps the best class before it). top is scratch of length ≥ n. Sixteen rows at a
// time with AVX2 where the CPU has it (argmax_amd64.s), the rest four rows at a time, their best class and
// score in locals while the classes are walked, without branches.
func Argmax(jll []float64, n, K int, dst []int32, top []float64) {
	dst, top = dst[:n], top[:n]
	i := 0
	if UseAVX2 && n >= 16 {
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
	if UseAVX2 && K >= 3 && K <= posteriorsWide && n >= 8 {
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
	if UseAVX2 {
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
		if e <= 0 && HasFMA {
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
		ExpShifted(d[c:], K, jll[c*n+i0:c*n+i1], mx)
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
	if UseAVX2 && K <= posteriorsWide && n >= 8 {
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
		ExpShifted(x[:m], 1, b[:m], sh[:m])
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
