package nb

// Contribution is one feature's share of an explanation.
type Contribution struct {
	// Feature is empty for the prior term.
	Feature string
	// Value is the feature's value as text ("" when missing; "(unseen)" for an unseen category).
	Value string
	// LLR is log p(x_j | a) - log p(x_j | b), or log p(a) - log p(b) for the prior term.
	LLR float64

	Input *Input
}

// Informative is one of a class's most informative feature values.
type Informative struct {
	Class, Feature, Value string
	// LLR is log p(value | class) minus the largest log p(value | other class); for a Gaussian feature
	// the value is the class mean.
	LLR float64
}

// Parameter is one smoothed model parameter, as nb_show and `sqlnb models show` list them.
type Parameter struct {
	// Feature is empty for priors.
	Feature string
	Kind    Kind
	// Class is the class the estimate belongs to (a class may be named ""), unless NoClass.
	Class string
	// NoClass marks an estimate shared by every class (lda's covariance); Class is then "".
	NoClass bool
	// Value, when HasValue, is the category of a probability (a category may be "") or what Parameter says
	// below; "" otherwise.
	Value    string
	HasValue bool
	// Parameter names the estimate: prior, mean, variance, probability, unseen (the mass of an unseen
	// category), log_prob, weight, lambda; covariance (lda, qda: Value names the second feature);
	// intercept and coefficient (logistic: Value names a category's level).
	Parameter string
	// Estimate is NaN where there is none: the prior of a model whose scores ignore priors.
	Estimate float64
	// Count is the (weighted) number of training rows behind the estimate, NaN where none applies.
	Count float64
}
