package udf

import (
	"fmt"
	"math"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// reader converts one argument (or struct field) into a feature column of a nb.Batch, as the feature's
// Input declares (a number, a category code, or the terms of a document).
type reader struct {
	in    *nb.Input
	arg   int // input column
	child int // struct field index, -1 for a positional argument
	typ   mapping.Type
	null  bool // the argument is the NULL literal: always missing

	// copy: a DOUBLE argument is copied into the batch's buffer rather than read in place
	// (Scorer.OwnBuffer).
	copy bool

	decimal    bool
	decScale   int
	decDivisor float64
	enumMap    []int32 // ENUM dictionary code → category code

	isMap  bool         // terms given as MAP(VARCHAR, number) of term counts
	mapVal mapping.Type // the MAP's value type

	intIdx map[int64]int32
	bigIdx map[string]int32 // integer training values beyond int64, by their (scaled) decimal text
	fltIdx map[float64]int32
	f32    bool // compare as float32: a FLOAT-trained input, or a FLOAT argument of an integer- or DECIMAL-trained one
	// intDense replaces intIdx when the training values span few integers: code of v = intDense[v-intMin].
	intDense []int32
	intMin   int64
	boolIdx  [2]int32
}

// newReader prepares the conversion of an argument of type t to feature j, by what its Input reads.
func (b *bound) newReader(j, arg, child int, t mapping.LogicalType) (reader, error) {
	in := b.scorer.Inputs[j]
	return b.inputReader(in, fmt.Sprintf("feature %q is %s", in.Name, b.scorer.Model.Features[j].Kind), arg, child, t)
}

// inputReader prepares the conversion of an argument of type t to input in (what names it in messages).
func (b *bound) inputReader(in *nb.Input, what string, arg, child int, t mapping.LogicalType) (reader, error) {
	m := b.scorer.Model
	r := reader{in: in, arg: arg, child: child, typ: mapping.GetTypeId(t)}
	if r.typ == mapping.TypeSQLNull {
		r.null = true
		return r, nil
	}
	argType := typeName(r.typ)
	if r.typ == mapping.TypeDecimal { // named as declared, not by its storage type
		argType = fmt.Sprintf("DECIMAL(%d,%d)", mapping.DecimalWidth(t), mapping.DecimalScale(t))
	}
	wrong := func(want string) error {
		return fmt.Errorf("model %q: %s (trained on %s) but the argument has type %s: %s",
			m.Name, what, in.Type, argType, want)
	}
	if r.typ == mapping.TypeDecimal {
		r.decimal = true
		r.decScale = int(mapping.DecimalScale(t))
		r.decDivisor = math.Pow10(r.decScale)
		r.typ = mapping.DecimalInternalType(t)
	}
	switch {
	case in.Kind == nb.NumberInput:
		if !isNumberType(r.typ) {
			// A CSV column empty in every row reads as VARCHAR: say how to cast where the rows are read.
			return r, wrong(fmt.Sprintf("cast it to DOUBLE (SELECT CAST(%s AS DOUBLE) AS %s, ... in the query that reads the rows; "+
				"sqlnb predict and eval take such a query as --from)", queries.Ident(in.Name), queries.Ident(in.Name)))
		}
		r.copy = b.scorer.OwnBuffer(in.Feature)
		return r, nil
	case in.Kind == nb.TermsInput:
		if r.typ == mapping.TypeVarchar {
			return r, nil
		}
		if r.typ == mapping.TypeMap {
			k, v := mapping.MapTypeKeyType(t), mapping.MapTypeValueType(t)
			defer mapping.DestroyLogicalType(&k)
			defer mapping.DestroyLogicalType(&v)
			r.isMap, r.mapVal = true, mapping.GetTypeId(v)
			if r.mapVal == mapping.TypeDecimal { // counts like 2.0 (a literal, a parquet DECIMAL): read by storage type, scaled
				r.decimal, r.decScale = true, int(mapping.DecimalScale(v))
				r.decDivisor, r.mapVal = math.Pow10(r.decScale), mapping.DecimalInternalType(v)
			}
			if mapping.GetTypeId(k) == mapping.TypeVarchar && isNumberType(r.mapVal) {
				return r, nil
			}
		}
		return r, wrong("give the text (VARCHAR) or a MAP(VARCHAR, number) of term counts")
	case in.Binary:
		if r.typ != mapping.TypeBoolean && !isNumberType(r.typ) {
			return r, wrong("give a BOOLEAN or a number (present when > the binarize threshold)")
		}
		return r, nil
	}
	class := nb.ValuesText
	switch {
	case r.typ == mapping.TypeBoolean:
		class = nb.ValuesBoolean
	case isNumberType(r.typ) || r.decimal:
		class = nb.ValuesNumber
	}
	if want := in.ValueClass(); class != want || (r.typ != mapping.TypeVarchar && r.typ != mapping.TypeEnum && class == nb.ValuesText) {
		col := queries.Ident(in.Name)
		what := map[string]string{nb.ValuesText: fmt.Sprintf("cast it to VARCHAR (SELECT CAST(%s AS VARCHAR) AS %s, ... in the query that reads the rows, "+
			"which sqlnb predict and eval take as --from; a hive partition column reads as a number unless read with "+
			"read_parquet(..., hive_types_autocast = false))", col, col), nb.ValuesBoolean: fmt.Sprintf("give a BOOLEAN (true or false), "+
			"e.g. %s = 'yes' or %s::BOOLEAN (which reads true/false, t/f, 1/0)", col, col),
			nb.ValuesNumber: "give a number (cast it)"}[want]
		return r, wrong(what)
	}
	switch {
	case r.typ == mapping.TypeVarchar:
	case r.typ == mapping.TypeBoolean:
		r.boolIdx = [2]int32{in.Lookup("false"), in.Lookup("true")}
	case r.typ == mapping.TypeEnum:
		r.typ = mapping.EnumInternalType(t)
		size := int(mapping.EnumDictionarySize(t))
		r.enumMap = make([]int32, size)
		for i := range size {
			r.enumMap[i] = in.Lookup(mapping.EnumDictionaryValue(t, mapping.IdxT(i)))
		}
	case isNumberType(r.typ) && (in.FloatTrained() || r.typ == mapping.TypeFloat || r.typ == mapping.TypeDouble):
		// By value, as SQL's = compares (nb.NumberKeys): as the training column's float type, or for an
		// integer- or DECIMAL-trained input as the argument's (a FLOAT as float32, a DOUBLE as DOUBLE).
		r.f32 = in.Float32() || (r.typ == mapping.TypeFloat && !in.FloatTrained()) // DOUBLE-trained: FLOAT widens
		r.fltIdx = in.NumberKeys().F64
		if r.f32 {
			r.fltIdx = in.NumberKeys().F32
		}
	case isNumberType(r.typ):
		// Integers and DECIMALs (their scaled integers) match training values exactly by value, not by text:
		// a BIGINT 1 is the training value "1.0" of a DECIMAL column, as 1 = 1.0 in SQL.
		if r.decScale == 0 {
			r.intIdx, r.bigIdx = in.NumberKeys().Exact, in.NumberKeys().Big
		} else {
			r.intIdx, r.bigIdx = in.ScaledKeys(r.decScale)
		}
		lo, hi := int64(math.MaxInt64), int64(math.MinInt64)
		for x := range r.intIdx {
			lo, hi = min(lo, x), max(hi, x)
		}
		if len(r.intIdx) > 0 && hi-lo >= 0 && hi-lo < 1<<16 {
			r.intMin, r.intDense = lo, make([]int32, hi-lo+1)
			for i := range r.intDense {
				r.intDense[i] = in.Unseen()
			}
			for x, c := range r.intIdx {
				r.intDense[x-lo] = c
			}
		}
	default:
		return r, wrong("cast it to VARCHAR")
	}
	return r, nil
}

// read converts vec (n rows) into feature r.in.Feature of batch; num is the feature's own buffer for
// numbers that are not DOUBLE.
func (r *reader) read(vec mapping.Vector, n int, batch *nb.Batch, num []float64) {
	j := r.in.Feature
	switch r.in.Kind {
	case nb.TermsInput:
		r.readTerms(vec, n, batch.Sparse[j])
		return
	case nb.NumberInput:
		if r.null {
			batch.Num[j] = num[:n]
			batch.Valid[j] = make([]uint64, (n+63)/64) // all NULL
			return
		}
		data := mapping.VectorGetData(vec)
		batch.Valid[j] = validity(vec, n)
		if r.typ == mapping.TypeDouble && !r.decimal {
			batch.Num[j] = unsafe.Slice((*float64)(data), n)
			if r.copy {
				batch.Num[j] = num[:n]
				copy(batch.Num[j], unsafe.Slice((*float64)(data), n))
			}
			return
		}
		dst := num[:n]
		numbersAt(r.typ, data, dst)
		if r.decimal {
			for i := range dst {
				dst[i] /= r.decDivisor
			}
		}
		batch.Num[j] = dst
		return
	}
	cat := batch.Cat[j][:n]
	if r.null {
		for i := range cat {
			cat[i] = r.in.Missing()
		}
		return
	}
	data, mask := mapping.VectorGetData(vec), validity(vec, n)
	if r.in.Binary {
		r.readBinary(data, mask, cat)
		return
	}
	if r.readDenseInts(data, cat) {
		for i := range cat {
			if !valid(mask, i) {
				cat[i] = r.in.Missing()
			}
		}
		return
	}
	for i := range cat {
		if !valid(mask, i) {
			cat[i] = r.in.Missing()
			continue
		}
		cat[i] = r.category(data, i)
	}
}

// readDenseInts reads the codes of an INTEGER or BIGINT category input through intDense in one loop (what
// category does row by row; NULL rows get some code, which the caller replaces), or returns false.
func (r *reader) readDenseInts(data unsafe.Pointer, cat []int32) bool {
	if r.intDense == nil || r.enumMap != nil {
		return false
	}
	unseen, lo, dense := r.in.Unseen(), r.intMin, r.intDense
	switch r.typ {
	case mapping.TypeInteger:
		for i, v := range unsafe.Slice((*int32)(data), len(cat)) {
			c := unseen
			if d := uint64(int64(v) - lo); d < uint64(len(dense)) {
				c = dense[d]
			}
			cat[i] = c
		}
	case mapping.TypeBigInt:
		for i, v := range unsafe.Slice((*int64)(data), len(cat)) {
			c := unseen
			if d := uint64(v - lo); d < uint64(len(dense)) {
				c = dense[d]
			}
			cat[i] = c
		}
	default:
		return false
	}
	return true
}

// readTerms fills the terms of a document: tokenized text, or the entries of a MAP of term counts; NULL
// (or the NULL literal) adds nothing.
func (r *reader) readTerms(vec mapping.Vector, n int, sp *nb.Sparse) {
	sp.Reset()
	if r.null {
		for range n {
			sp.EndNullRow()
		}
		return
	}
	data, mask := mapping.VectorGetData(vec), validity(vec, n)
	if !r.isMap {
		for i := range n {
			if !valid(mask, i) {
				sp.EndNullRow()
				continue
			}
			r.in.AddText(sp, stringAt(data, i))
		}
		return
	}
	entries := unsafe.Slice((*listEntry)(data), n)
	child := mapping.ListVectorGetChild(vec)
	size := int(mapping.ListVectorGetSize(vec))
	keysVec, valsVec := mapping.StructVectorGetChild(child, 0), mapping.StructVectorGetChild(child, 1)
	keys := mapping.VectorGetData(keysVec)
	vals := make([]float64, size)
	if size > 0 {
		numbersAt(r.mapVal, mapping.VectorGetData(valsVec), vals)
		if r.decimal {
			for i := range vals {
				vals[i] /= r.decDivisor
			}
		}
	}
	valMask := validity(valsVec, size)
	for i := range n {
		if !valid(mask, i) {
			sp.EndNullRow()
			continue
		}
		e := entries[i]
		for k := int(e.offset); k < int(e.offset+e.length); k++ {
			if valid(valMask, k) && !math.IsNaN(vals[k]) && !math.IsInf(vals[k], 0) {
				r.in.AddTerm(sp, stringAt(keys, k), vals[k])
			}
		}
		r.in.EndRow(sp)
	}
}

func (r *reader) category(data unsafe.Pointer, i int) int32 {
	switch {
	case r.typ == mapping.TypeVarchar:
		return r.in.Lookup(stringAt(data, i))
	case r.typ == mapping.TypeBoolean:
		if *(*bool)(unsafe.Add(data, i)) {
			return r.boolIdx[1]
		}
		return r.boolIdx[0]
	case r.enumMap != nil:
		code, _ := integerAt(r.typ, data, i)
		if code >= 0 && int(code) < len(r.enumMap) {
			return r.enumMap[code]
		}
	case r.fltIdx != nil:
		if x, ok := r.floatArg(data, i); ok {
			if c, ok := r.fltIdx[x]; ok {
				return c
			}
		}
	default:
		if v, ok := integerAt(r.typ, data, i); ok {
			if r.intDense != nil {
				if d := uint64(v - r.intMin); d < uint64(len(r.intDense)) {
					return r.intDense[d]
				}
				return r.in.Unseen()
			}
			if c, ok := r.intIdx[v]; ok {
				return c
			}
		} else if text, ok := bigIntegerText(r.typ, data, i); ok && r.bigIdx != nil {
			if c, ok := r.bigIdx[text]; ok {
				return c
			}
		}
	}
	return r.in.Unseen()
}

// floatArg reads element i of a number argument as the float DuckDB compares it as (a FLOAT when r.f32, else
// a DOUBLE, widened to float64), with the host DuckDB's own casts: a DECIMAL as its line casts one (1.5:
// TryCastDecimalToFloatingPoint; 2.0: the nearest value), a
// HUGEINT by its halves, an integer rounded once to the target type.
func (r *reader) floatArg(data unsafe.Pointer, i int) (float64, bool) {
	switch {
	case r.typ == mapping.TypeFloat:
		return float64(*(*float32)(unsafe.Add(data, 4*i))), true
	case r.typ == mapping.TypeDouble:
		x := *(*float64)(unsafe.Add(data, 8*i))
		if r.f32 {
			x = float64(float32(x))
		}
		return x, true
	case r.decimal && (r.typ == mapping.TypeHugeInt):
		h := *(*hugeint)(unsafe.Add(data, 16*i))
		if hostLine().DecimalCastNearest() {
			return hugeDecimalNearest(h, r.decScale, r.f32), true
		}
		return hugeDecimalToDouble(h, r.decScale, r.f32), true
	case r.decimal:
		v, ok := integerAt(r.typ, data, i)
		nearest := hostLine().DecimalCastNearest()
		switch {
		case r.f32 && nearest:
			return float64(decimalNearest[float32](v, r.decScale)), ok
		case r.f32:
			return float64(decimalToFloat[float32](v, r.decScale)), ok
		case nearest:
			return decimalNearest[float64](v, r.decScale), ok
		}
		return decimalToFloat[float64](v, r.decScale), ok
	case r.typ == mapping.TypeHugeInt || r.typ == mapping.TypeUHugeInt:
		var x [1]float64
		numbersAt(r.typ, unsafe.Add(data, 16*i), x[:])
		if r.f32 {
			x[0] = float64(float32(x[0]))
		}
		return x[0], true
	case r.typ == mapping.TypeUBigInt:
		u := *(*uint64)(unsafe.Add(data, 8*i))
		if r.f32 {
			return float64(float32(u)), true
		}
		return float64(u), true
	}
	v, ok := integerAt(r.typ, data, i)
	if r.f32 {
		return float64(float32(v)), ok
	}
	return float64(v), ok
}

// readBinary reads a binary category input: true, or a number Present over the threshold, is code 1;
// NaN and NULL are missing (Input.Code).
func (r *reader) readBinary(data unsafe.Pointer, mask []uint64, cat []int32) {
	n := len(cat)
	if r.typ == mapping.TypeBoolean {
		src := unsafe.Slice((*bool)(data), n)
		for i, v := range src {
			cat[i] = 0
			if v {
				cat[i] = 1
			}
			if !valid(mask, i) {
				cat[i] = r.in.Missing()
			}
		}
		return
	}
	var buf [2048]float64
	vals := buf[:0]
	if n <= len(buf) {
		vals = buf[:n]
	} else {
		vals = make([]float64, n)
	}
	numbersAt(r.typ, data, vals)
	for i, x := range vals {
		if !valid(mask, i) {
			cat[i] = r.in.Missing()
			continue
		}
		cat[i] = r.in.Code(x)
	}
}
