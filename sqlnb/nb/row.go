package nb

import (
	"math"
	"reflect"
	"strconv"
)

// number converts a Go integer or float to float64.
func Number(v any) (float64, bool) {
	r := reflect.ValueOf(v)
	switch r.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return float64(r.Int()), true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return float64(r.Uint()), true
	case reflect.Float32, reflect.Float64:
		return r.Float(), true
	}
	return 0, false
}

// termCounts converts a map of term → count (any number type) to float64 counts.
func TermCounts(v any) (map[string]float64, bool) {
	r := reflect.ValueOf(v)
	if r.Kind() != reflect.Map || r.Type().Key().Kind() != reflect.String {
		return nil, false
	}
	out := make(map[string]float64, r.Len())
	it := r.MapRange()
	for it.Next() {
		x, ok := Number(it.Value().Interface())
		if !ok {
			return nil, false
		}
		out[it.Key().String()] = x
	}
	return out, true
}

// numberCode returns the code of Go number v (x as a float64) for a number category input, as the SQL
// functions match an argument of v's type (the rules above NumberKeys): float32 is FLOAT, the other floats
// DOUBLE, the integers exact.
func (in *Input) NumberCode(v any, x float64) int32 {
	k := in.NumberKeys()
	r := reflect.ValueOf(v)
	if in.FloatTrained() || r.CanFloat() {
		return k.FloatCode(in, x, r.Kind() == reflect.Float32)
	}
	code, ok := int32(0), false
	switch {
	case r.CanInt():
		code, ok = k.Exact[r.Int()]
	case r.Uint() <= math.MaxInt64:
		code, ok = k.Exact[int64(r.Uint())]
	default:
		code, ok = k.Big[strconv.FormatUint(r.Uint(), 10)]
	}
	if !ok {
		return in.Unseen()
	}
	return code
}
