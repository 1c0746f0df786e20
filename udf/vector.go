package udf

import (
	"math"
	"math/big"
	"strconv"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"
	"github.com/sqlnb/sqlnb/internal/kernel"
)

// stringAt reads element i of a VARCHAR vector's data (DuckDB's 16-byte string_t: length, then 12
// inline bytes or a 4-byte prefix and a pointer). The string aliases DuckDB memory: do not keep it.
func stringAt(base unsafe.Pointer, i int) string {
	p := unsafe.Add(base, i*16)
	n := *(*uint32)(p)
	if n <= 12 {
		return unsafe.String((*byte)(unsafe.Add(p, 4)), int(n))
	}
	return unsafe.String(*(**byte)(unsafe.Add(p, 8)), int(n))
}

// validity returns a vector's validity mask as words (nil: no NULLs).
func validity(vec mapping.Vector, n int) []uint64 {
	p := mapping.VectorGetValidity(vec)
	if p == nil {
		return nil
	}
	return unsafe.Slice((*uint64)(p), (n+63)/64)
}

func valid(mask []uint64, i int) bool {
	return mask == nil || mask[i>>6]&(1<<(uint(i)&63)) != 0
}

// label is a class label prepared for writing into VARCHAR vectors.
type label struct {
	s      string
	inline [16]byte // the whole string_t when len(s) ≤ 12
	short  bool
}

func newLabel(s string) label {
	l := label{s: s, short: len(s) <= 12}
	if l.short {
		*(*uint32)(unsafe.Pointer(&l.inline[0])) = uint32(len(s))
		copy(l.inline[4:], s)
	}
	return l
}

// stringWriter writes labels into a VARCHAR vector: short labels are copied in place; a long label is
// assigned through the C API once per vector (copied into the vector's string heap) and its string_t
// is reused for later rows.
type stringWriter struct {
	vec   mapping.Vector
	base  unsafe.Pointer
	first []int
}

func (w *stringWriter) reset(vec mapping.Vector, first []int) {
	w.vec, w.base, w.first = vec, mapping.VectorGetData(vec), first
	for i := range w.first {
		w.first[i] = -1
	}
}

func (w *stringWriter) write(i int, c int32, l *label) {
	slot := (*[16]byte)(unsafe.Add(w.base, i*16))
	if l.short {
		*slot = l.inline
		return
	}
	if f := w.first[c]; f >= 0 {
		*slot = *(*[16]byte)(unsafe.Add(w.base, f*16))
		return
	}
	assignString(w.vec, i, l.s)
	w.first[c] = i
}

// repeat copies elements [from, from+k) to the n−1 runs of k elements that follow them, by doubling
// (log₂ n copies): the rows of a MAP of class → value share their keys, written once with write.
func (w *stringWriter) repeat(from, k, n int) {
	b := unsafe.Slice((*byte)(unsafe.Add(w.base, from*16)), n*k*16)
	done := k * 16
	for done < len(b) && done < repeatBlock {
		done += copy(b[done:], b[:done])
	}
	for block := done; done < len(b); {
		done += copy(b[done:], b[:block])
	}
}

// repeatBlock bounds the doubling of repeat: past it, the runs are copied from the first block, which stays
// in the L1 cache, rather than from ever larger spans that do not.
const repeatBlock = 4096

// setNull marks row i of vec NULL.
func setNull(vec mapping.Vector, i int) {
	ensureValidityWritable(vec)
	mapping.ValiditySetRowInvalid(mapping.VectorGetValidity(vec), mapping.IdxT(i))
}

// setStructNull marks row i of a STRUCT vector with the given number of children NULL, and the row of each
// child too: DuckDB reads a field of a NULL struct (r.pred) from the child, which must not hold garbage
// (an unwritten VARCHAR there crashed cv on rows with a missing value).
func setStructNull(vec mapping.Vector, i, children int) {
	setNull(vec, i)
	for c := range children {
		setNull(mapping.StructVectorGetChild(vec, mapping.IdxT(c)), i)
	}
}

type number interface {
	~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~float32 | ~float64
}

func toFloats[T number](data unsafe.Pointer, dst []float64) {
	src := unsafe.Slice((*T)(data), len(dst))
	for i, v := range src {
		dst[i] = float64(v)
	}
}

type hugeint struct {
	lower uint64
	upper int64
}

// hugeToFloat converts a HUGEINT as DuckDB casts one to DOUBLE (Hugeint::Cast, CastBigintToFloating): lower +
// upper·2⁶⁴ from the two's-complement halves, and an upper half of −1 as −(2⁶⁴ − 1 − lower) − 1.
func hugeToFloat(h hugeint) float64 {
	if h.upper == -1 {
		return -float64(^h.lower) - 1
	}
	return float64(h.lower) + float64(h.upper)*18446744073709551616.0
}

// pow10f64 are the powers of ten as DuckDB's NumericHelper::DOUBLE_POWERS_OF_TEN.
var pow10f64 = func() (p [39]float64) {
	for i := range p {
		p[i] = math.Pow10(i)
	}
	return p
}()

// decimalToFloat is DuckDB's cast of the DECIMAL with scaled value v (int64 storage) and scale to DOUBLE or
// FLOAT (TryCastDecimalToFloatingPoint), in F's arithmetic: v / 10^scale when v converts exactly (|v| ≤
// 2⁵³, 2²⁴ for FLOAT) or the scale is 0, else (v div 10^scale) + (v mod 10^scale) / 10^scale, each part
// converted on its own. Not always the nearest: a category compares with what SQL compares.
func decimalToFloat[F float32 | float64](v int64, scale int) F {
	exact := int64(1) << 53
	if unsafe.Sizeof(F(0)) == 4 { // FLOAT
		exact = 1 << 24
	}
	if scale == 0 || (v <= exact && v >= -exact) {
		return F(v) / F(pow10f64[scale])
	}
	p := int64(math.Pow10(scale))
	return F(v/p) + F(v%p)/F(pow10f64[scale])
}

// decimalNearest is DuckDB 2.0's cast of the DECIMAL with scaled value v (int64 storage) and scale to DOUBLE
// or FLOAT: the nearest value of F to v / 10^scale. When v and 10^scale are both exact in F (|v| ≤ 2⁵³ and
// scale ≤ 22 for DOUBLE, 2²⁴ and 10 for FLOAT) IEEE division rounds once to the nearest; otherwise the
// decimal text is parsed, which rounds correctly (strconv.ParseFloat).
func decimalNearest[F float32 | float64](v int64, scale int) F {
	f32 := unsafe.Sizeof(F(0)) == 4
	exact, maxScale := int64(1)<<53, 22
	if f32 {
		exact, maxScale = 1<<24, 10
	}
	if scale <= maxScale && v <= exact && v >= -exact {
		return F(v) / F(pow10f64[scale])
	}
	return F(parseScaled(strconv.FormatInt(v, 10), scale, f32))
}

// parseScaled returns the integer text digits divided by 10^scale, rounded correctly to a DOUBLE (or to a
// FLOAT when f32).
func parseScaled(digits string, scale int, f32 bool) float64 {
	bits := 64
	if f32 {
		bits = 32
	}
	x, _ := strconv.ParseFloat(digits+"e-"+strconv.Itoa(scale), bits) // a valid number: no error but range
	return x
}

// hugeDecimalNearest is decimalNearest for a DECIMAL of HUGEINT storage (width 19 to 38).
func hugeDecimalNearest(h hugeint, scale int, f32 bool) float64 {
	return parseScaled(hugeBig(h, false).String(), scale, f32)
}

// hugeBig is h as a big integer (unsigned: UHUGEINT's halves).
func hugeBig(h hugeint, unsigned bool) *big.Int {
	x := big.NewInt(h.upper)
	if unsigned {
		x.SetUint64(uint64(h.upper))
	}
	x.Lsh(x, 64)
	return x.Add(x, new(big.Int).SetUint64(h.lower))
}

// hugeDecimalToDouble is decimalToFloat for a DECIMAL of HUGEINT storage (width 19 to 38), the parts
// converted as DuckDB converts a HUGEINT (through DOUBLE); f32: to FLOAT.
func hugeDecimalToDouble(h hugeint, scale int, f32 bool) float64 {
	bits := uint(53)
	if f32 {
		bits = 24
	}
	small := h.upper == 0 && h.lower <= 1<<bits || h.upper == -1 && h.lower >= -(uint64(1)<<bits) // |v| ≤ 2^bits
	pow := pow10f64[scale]
	if scale == 0 || small {
		if f32 {
			return float64(float32(hugeToFloat(h)) / float32(pow))
		}
		return hugeToFloat(h) / pow
	}
	q, r := new(big.Int).QuoRem(hugeBig(h, false), new(big.Int).Exp(big.NewInt(10), big.NewInt(int64(scale)), nil), new(big.Int))
	toHuge := func(x *big.Int) hugeint { // |x| < 2^127: the low 64 bits and the rest
		lo := new(big.Int).And(x, new(big.Int).SetUint64(math.MaxUint64))
		return hugeint{lower: lo.Uint64(), upper: new(big.Int).Rsh(x, 64).Int64()}
	}
	if f32 {
		return float64(float32(hugeToFloat(toHuge(q))) + float32(hugeToFloat(toHuge(r)))/float32(pow))
	}
	return hugeToFloat(toHuge(q)) + hugeToFloat(toHuge(r))/pow
}

// numbersAt converts n numbers of DuckDB type t (integers, floats, HUGEINT, UHUGEINT) to float64 (INTEGER,
// the usual type of count columns, sixteen at a time: kernel.Int32sToFloats; BIGINT, which DuckDB's CSV reader
// gives integer columns, four at a time: kernel.Int64sToFloats).
func numbersAt(t mapping.Type, data unsafe.Pointer, dst []float64) bool {
	switch t {
	case mapping.TypeTinyInt:
		toFloats[int8](data, dst)
	case mapping.TypeSmallInt:
		toFloats[int16](data, dst)
	case mapping.TypeInteger:
		kernel.Int32sToFloats(dst, unsafe.Slice((*int32)(data), len(dst)))
	case mapping.TypeBigInt:
		kernel.Int64sToFloats(dst, unsafe.Slice((*int64)(data), len(dst)))
	case mapping.TypeUTinyInt:
		toFloats[uint8](data, dst)
	case mapping.TypeUSmallInt:
		toFloats[uint16](data, dst)
	case mapping.TypeUInteger:
		toFloats[uint32](data, dst)
	case mapping.TypeUBigInt:
		toFloats[uint64](data, dst)
	case mapping.TypeFloat:
		toFloats[float32](data, dst)
	case mapping.TypeDouble:
		toFloats[float64](data, dst)
	case mapping.TypeHugeInt, mapping.TypeUHugeInt:
		src := unsafe.Slice((*hugeint)(data), len(dst))
		for i, h := range src {
			if t == mapping.TypeUHugeInt {
				dst[i] = float64(uint64(h.upper))*18446744073709551616.0 + float64(h.lower)
			} else {
				dst[i] = hugeToFloat(h)
			}
		}
	default:
		return false
	}
	return true
}

// integerAt reads element i of an integer vector as int64 (ok=false for other types or overflow).
func integerAt(t mapping.Type, data unsafe.Pointer, i int) (int64, bool) {
	switch t {
	case mapping.TypeTinyInt:
		return int64(*(*int8)(unsafe.Add(data, i))), true
	case mapping.TypeSmallInt:
		return int64(*(*int16)(unsafe.Add(data, 2*i))), true
	case mapping.TypeInteger:
		return int64(*(*int32)(unsafe.Add(data, 4*i))), true
	case mapping.TypeBigInt:
		return *(*int64)(unsafe.Add(data, 8*i)), true
	case mapping.TypeUTinyInt:
		return int64(*(*uint8)(unsafe.Add(data, i))), true
	case mapping.TypeUSmallInt:
		return int64(*(*uint16)(unsafe.Add(data, 2*i))), true
	case mapping.TypeUInteger:
		return int64(*(*uint32)(unsafe.Add(data, 4*i))), true
	case mapping.TypeUBigInt:
		v := *(*uint64)(unsafe.Add(data, 8*i))
		return int64(v), v <= math.MaxInt64
	case mapping.TypeHugeInt:
		h := *(*hugeint)(unsafe.Add(data, 16*i))
		return int64(h.lower), (h.upper == 0 && h.lower <= math.MaxInt64) || (h.upper == -1 && h.lower > math.MaxInt64)
	case mapping.TypeUHugeInt:
		h := *(*hugeint)(unsafe.Add(data, 16*i))
		return int64(h.lower), h.upper == 0 && h.lower <= math.MaxInt64
	}
	return 0, false
}

// bigIntegerText reads element i of a UBIGINT, HUGEINT or UHUGEINT vector as its decimal text (the values
// integerAt cannot give; ok=false for other types).
func bigIntegerText(t mapping.Type, data unsafe.Pointer, i int) (string, bool) {
	switch t {
	case mapping.TypeUBigInt:
		return strconv.FormatUint(*(*uint64)(unsafe.Add(data, 8*i)), 10), true
	case mapping.TypeHugeInt, mapping.TypeUHugeInt:
		return hugeBig(*(*hugeint)(unsafe.Add(data, 16*i)), t == mapping.TypeUHugeInt).String(), true
	}
	return "", false
}
