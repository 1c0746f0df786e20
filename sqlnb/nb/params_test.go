package nb

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// TestParamSet: declarations merge (kinds united, a disagreeing twin refused); Complete fills defaults and
// gives JSON numbers their declared types; Value parses a flag's text and checks it; Same and Equal compare
// floats bit for bit and an integral float with the int64.
func TestParamSet(t *testing.T) {
	a := ParamSpec{Name: "a", Type: ParamFloat, Default: 1.0, Check: finiteNonNegative, Kinds: []Kind{"x"}}
	n := ParamSpec{Name: "n", Type: ParamInt, Default: int64(3)}
	e := ParamSpec{Name: "e", Type: ParamEnum, Default: "p", Values: []string{"p", "q"}}
	a2 := a
	a2.Kinds = []Kind{"y"}
	ps, err := NewParamSet([]ParamSpec{a, n, e, a2})
	if err != nil {
		t.Fatal(err)
	}
	if s, _ := ps.Spec("a"); len(ps.Specs()) != 3 || len(s.Kinds) != 2 {
		t.Errorf("merged declarations: %d specs, a's kinds %v; want 3 and [x y]", len(ps.Specs()), s.Kinds)
	}
	bad := a
	bad.Default = 2.0
	if _, err := NewParamSet([]ParamSpec{a, bad}); err == nil {
		t.Error("a twin with another default was accepted")
	}
	var p Params
	if err := json.Unmarshal([]byte(`{"a": 0.5, "n": 7}`), &p); err != nil {
		t.Fatal(err)
	}
	p, err = ps.Complete(p)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := p.Value("n"); v != int64(7) || p.Float("a") != 0.5 || p.Text("e") != "p" {
		t.Errorf("completed: %v", p)
	}
	if err := ps.Validate(p); err != nil {
		t.Error(err)
	}
	if _, err := ps.Complete(Params{}.With("zz", 1.0)); !errors.Is(err, ErrBadOption) || !strings.Contains(err.Error(), `"zz"`) {
		t.Errorf("unknown name: %v", err)
	}
	for _, c := range []struct {
		name, text string
		want       any
		bad        bool
	}{{"a", "2.5", 2.5, false}, {"a", "-1", nil, true}, {"a", "x", nil, true}, {"n", "4", int64(4), false}, {"n", "4.5", nil, true},
		{"e", " Q ", "q", false}, {"e", "r", nil, true}} {
		v, err := ps.Value(c.name, c.text)
		if (err != nil) != c.bad || !c.bad && v != c.want {
			t.Errorf("Value(%s, %q) = %v, %v", c.name, c.text, v, err)
		}
	}
	q := p.With("a", int64(0)).With("n", 7.0)
	if !q.Same(p.With("a", 0.0), "a") || !q.Same(p, "n") || q.Same(p, "a") || !p.Equal(p.With("n", 7.0)) || p.Equal(q) {
		t.Error("Same/Equal: an integral float is the int64, other values differ")
	}
	if p.Same(Params{}, "a") || !(Params{}).Same(Params{}, "a") {
		t.Error("Same: set against unset")
	}
}
