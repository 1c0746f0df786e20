package nb

// LinearTerm is one weight of a linear form: it multiplies the feature's value (Value empty: a number
// feature), the indicator of a Bernoulli feature's presence (Value "true": x > binarize, or true), or the
// indicator of one category level (Value the level).
type LinearTerm struct {
	Feature string
	// Value, when HasValue, is the level whose indicator the weight multiplies (a category may be "",
	// Bernoulli presence is "true"); a number feature has none and its weight multiplies the value.
	Value    string
	HasValue bool
	Weight   float64
}
