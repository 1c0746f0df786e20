package sqlnb

import "math"

// Parameter is one smoothed model parameter, as nb_show and `sqlnb models show` list them.
type Parameter struct {
	// Feature is empty for priors.
	Feature string
	Kind    Kind
	Class   string
	// Value is the category of a probability ("" otherwise).
	Value string
	// Parameter is prior, mean, variance, probability or unseen (the mass of an unseen category).
	Parameter string
	Estimate  float64
	// Count is the (weighted) number of training rows behind the estimate, NaN where none applies.
	Count float64
}

// Parameters lists the compiled parameters of s: priors, then each feature in model order.
func Parameters(s *Scorer) []Parameter {
	m := s.Model
	var out []Parameter
	for c, cl := range m.Classes {
		out = append(out, Parameter{Class: cl.Label, Parameter: "prior", Estimate: math.Exp(s.LogPrior[c]), Count: cl.Weight})
	}
	gw := map[[2]string]float64{}
	for _, g := range m.Gaussian {
		gw[[2]string{g.Feature, g.Class}] = g.Weight
	}
	totals := map[[2]string]float64{}
	for _, t := range m.Totals {
		totals[[2]string{t.Feature, t.Class}] = t.Total
	}
	termW := map[[3]string]float64{}
	for _, t := range m.Terms {
		termW[[3]string{t.Feature, t.Class, t.Term}] += t.Weight
	}
	cw := map[[3]string]float64{}
	for _, n := range m.Counts {
		cw[[3]string{n.Feature, n.Class, n.Value}] += n.Weight
	}
	for _, f := range s.Features {
		for c, label := range s.Labels {
			if f.Kind.IsText() {
				for v, term := range f.Values {
					p := Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Value: term, Parameter: "log_prob",
						Estimate: f.TermLogProb[v*len(s.Labels)+c], Count: termW[[3]string{f.Name, label, term}]}
					if f.Kind == TextBernoulli { // stored as log p - log(1 - p)
						p.Parameter, p.Estimate = "probability", 1/(1+math.Exp(-p.Estimate))
					}
					out = append(out, p)
				}
				continue
			}
			if f.Kind.Counted() {
				name := "log_prob"
				if f.Kind == Complement {
					name = "weight"
				}
				out = append(out, Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Parameter: name, Estimate: f.Weight[c],
					Count: totals[[2]string{f.Name, label}]})
				continue
			}
			if f.Kind == Gaussian {
				w := gw[[2]string{f.Name, label}]
				out = append(out,
					Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Parameter: "mean", Estimate: f.Mean[c], Count: w},
					Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Parameter: "variance", Estimate: f.Var[c], Count: w})
				continue
			}
			for v, value := range f.Values {
				out = append(out, Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Value: value, Parameter: "probability",
					Estimate: math.Exp(f.LogProb[c][v]), Count: cw[[3]string{f.Name, label, value}]})
			}
			if f.Kind == Categorical && m.Params.Alpha > 0 {
				out = append(out, Parameter{Feature: f.Name, Kind: f.Kind, Class: label, Parameter: "unseen",
					Estimate: math.Exp(f.LogProb[c][f.Unseen()]), Count: math.NaN()})
			}
		}
	}
	return out
}
