package udf

import "C"

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

	"github.com/sqlnb/sqlnb/internal/kernel"
	"github.com/sqlnb/sqlnb/queries"
	"github.com/sqlnb/sqlnb/sqlnb"
	"github.com/sqlnb/sqlnb/sqlnb/nb"
)

// output is what a scoring function returns.
type output int

const (
	outLabel      output = iota // VARCHAR: the most probable class
	outProba                    // MAP(VARCHAR, DOUBLE): posteriors
	outLogProba                 // MAP(VARCHAR, DOUBLE): log posteriors
	outJLL                      // MAP(VARCHAR, DOUBLE): joint log-likelihoods b_c
	outClassProba               // DOUBLE: the posterior of one class (last argument)
	outExplain                  // LIST(STRUCT(class, versus, feature, value, contribution)): per-feature log-likelihood ratios
	outEvidence                 // DOUBLE: log p(x)
)

// scalarSpec describes one registered scoring function.
type scalarSpec struct {
	name string
	out  output
	reg  *registry
}

var scalarSpecs = []struct {
	name string
	out  output
}{
	{"nb_predict", outLabel},
	{"nb_predict_proba", outProba},
	{"nb_predict_log_proba", outLogProba},
	{"nb_joint_log_likelihood", outJLL},
	{"nb_proba", outClassProba},
	{"nb_explain", outExplain},
	{"nb_log_evidence", outEvidence},
}

func registerScalar(conn mapping.Connection, spec *scalarSpec) error {
	return registerVarargs(conn, spec.name, returnType(spec.out), scalarBindPtr, scalarExecPtr, newHandle(spec))
}

// registerVarargs registers name(VARCHAR, ANY...) → ret with special NULL handling, the given bind and
// execute callbacks and extra info (a handle); it takes ownership of ret.
func registerVarargs(conn mapping.Connection, name string, ret mapping.LogicalType, bind, exec, extra unsafe.Pointer) error {
	defer mapping.DestroyLogicalType(&ret)
	f := mapping.CreateScalarFunction()
	defer mapping.DestroyScalarFunction(&f)
	mapping.ScalarFunctionSetName(f, name)
	varchar := mapping.CreateLogicalType(mapping.TypeVarchar)
	defer mapping.DestroyLogicalType(&varchar)
	anyType := mapping.CreateLogicalType(mapping.TypeAny)
	defer mapping.DestroyLogicalType(&anyType)
	mapping.ScalarFunctionAddParameter(f, varchar)
	mapping.ScalarFunctionSetVarargs(f, anyType)
	mapping.ScalarFunctionSetReturnType(f, ret)
	mapping.ScalarFunctionSetSpecialHandling(f)
	mapping.ScalarFunctionSetBind(f, bind)
	mapping.ScalarFunctionSetFunction(f, exec)
	mapping.ScalarFunctionSetExtraInfo(f, extra, deleteHandlePt)
	if mapping.RegisterScalarFunction(conn, f) == mapping.StateError {
		return fmt.Errorf("register %s failed", name)
	}
	return nil
}

func returnType(o output) mapping.LogicalType {
	switch o {
	case outLabel:
		return mapping.CreateLogicalType(mapping.TypeVarchar)
	case outClassProba, outEvidence:
		return mapping.CreateLogicalType(mapping.TypeDouble)
	case outExplain:
		v := mapping.CreateLogicalType(mapping.TypeVarchar)
		d := mapping.CreateLogicalType(mapping.TypeDouble)
		defer mapping.DestroyLogicalType(&v)
		defer mapping.DestroyLogicalType(&d)
		st := mapping.CreateStructType([]mapping.LogicalType{v, v, v, v, d}, explainFields)
		defer mapping.DestroyLogicalType(&st)
		return mapping.CreateListType(st)
	}
	k := mapping.CreateLogicalType(mapping.TypeVarchar)
	v := mapping.CreateLogicalType(mapping.TypeDouble)
	defer mapping.DestroyLogicalType(&k)
	defer mapping.DestroyLogicalType(&v)
	return mapping.CreateMapType(k, v)
}

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

// bound is a scoring function bound to one model and one argument layout; immutable after bind.
type bound struct {
	spec      *scalarSpec
	scorer    *sqlnb.Scorer
	readers   []reader
	struc     bool // features come as one STRUCT argument (input column structArg)
	structArg int
	labels    []label
	short     bool // every label is inlined in its string_t (≤ 12 bytes): nb_predict copies 16 bytes a row
	// nb_proba, and nb_explain with versus: the class, a constant index or (classArg ≥ 0) a VARCHAR
	// argument read per row and looked up in classes.
	versus   bool
	classIdx int
	classArg int
	classes  map[string]int
	pool     sync.Pool
	// unknownArg is the 1-based position of an argument whose type DuckDB did not know at bind (0: none).
	unknownArg int
}

type scratch struct {
	batch *nb.Batch
	sub   *nb.Batch // nb_cv_proba: the rows of one fold
	num   [][]float64
	jll   []float64
	ws    sqlnb.Workspace
	best  []int32
	top   []float64
	post  []float64 // K posteriors of one row
	wide  []float64 // nb_proba and nb_log_evidence: n·K values (Posteriors, LogEvidences)
	first []int
	rowOK []bool
}

// wideN returns s.wide with m values, grown if needed.
func (s *scratch) wideN(m int) []float64 {
	if cap(s.wide) < m {
		s.wide = make([]float64, m)
	}
	return s.wide[:m]
}

func (b *bound) scratch(n int) *scratch {
	if s, ok := b.pool.Get().(*scratch); ok && len(s.jll) >= n*len(b.scorer.Labels) {
		return s
	}
	K := len(b.scorer.Labels)
	s := &scratch{batch: b.scorer.NewBatch(n), num: make([][]float64, len(b.scorer.Inputs)+len(b.scorer.GroupInputs)),
		jll: make([]float64, n*K), best: make([]int32, n), top: make([]float64, n), post: make([]float64, K),
		first: make([]int, K), rowOK: make([]bool, n)}
	for j := range s.num {
		s.num[j] = s.batch.Num[j]
	}
	return s
}

//export nbScalarBind
func nbScalarBind(infoPtr unsafe.Pointer) {
	info := mapping.BindInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionBindSetError(info, msg) })
	spec := handleValue[*scalarSpec](mapping.ScalarFunctionBindGetExtraInfo(info))
	name = spec.name
	fault(name, "bind")
	b, err := bindScalar(info, spec)
	if err != nil {
		mapping.ScalarFunctionBindSetError(info, spec.name+": "+err.Error())
		return
	}
	mapping.ScalarFunctionSetBindData(info, newHandle(b), deleteHandlePt)
	mapping.ScalarFunctionSetBindDataCopy(info, copyHandlePtr)
}

// argument is one bound argument: its type and, if constant, its folded value.
type argument struct {
	typ      mapping.LogicalType
	id       mapping.Type
	foldable bool
}

// bindArguments returns the bound arguments' types and foldability and the client context; release frees
// them.
func bindArguments(info mapping.BindInfo) (args []argument, cctx mapping.ClientContext, release func()) {
	mapping.ScalarFunctionGetClientContext(info, &cctx)
	args = make([]argument, int(mapping.ScalarFunctionBindGetArgumentCount(info)))
	for i := range args {
		expr := mapping.ScalarFunctionBindGetArgument(info, mapping.IdxT(i))
		args[i].typ = mapping.ExpressionReturnType(expr)
		args[i].id = mapping.GetTypeId(args[i].typ)
		args[i].foldable = mapping.ExpressionIsFoldable(expr)
		mapping.DestroyExpression(&expr)
	}
	return args, cctx, func() {
		for i := range args {
			mapping.DestroyLogicalType(&args[i].typ)
		}
		mapping.DestroyClientContext(&cctx)
	}
}

func bindScalar(info mapping.BindInfo, spec *scalarSpec) (*bound, error) {
	args, cctx, release := bindArguments(info)
	defer release()
	argc := len(args)
	usage := usageOf(spec)
	for i, a := range args {
		if unknownType(a.typ) {
			// DuckDB binds a macro's body, and a prepared statement, before it knows the types of their
			// parameters. Bind nothing yet: DuckDB binds again with the types; if it ever executes this
			// binding, the parameter's type stayed unknown and the error says what to do.
			return &bound{spec: spec, unknownArg: i + 1}, nil
		}
	}
	name, err := foldString(cctx, info, 0, args[0])
	if errors.Is(err, errNUL) {
		return nil, fmt.Errorf("the model name: %w", err)
	}
	// NULL and '' are constants too: "must be a constant" sent the user looking for a column.
	if args[0].id == mapping.TypeSQLNull || errors.Is(err, errNULLArg) {
		return nil, fmt.Errorf("the model name is NULL: name a stored model, as in %s", usage)
	}
	if err == nil && name == "" {
		return nil, fmt.Errorf("the model name is empty: name a stored model, as in %s", usage)
	}
	if err != nil {
		return nil, fmt.Errorf("the first argument must be a constant model name, as in %s (not a column or a prepared "+
			"statement's parameter: the model is resolved once, when the query is bound)", usage)
	}
	scorer, err := spec.reg.scorerFor(context.Background(), name, cctx)
	if err != nil {
		return nil, err
	}
	b := newBound(spec, scorer)
	feats := args[1:]
	if spec.out == outClassProba {
		if len(feats) < 2 {
			return nil, fmt.Errorf("model %q: give the features and a class, as in %s", name, usage)
		}
		if err := b.bindClass(cctx, info, argc-1, args[argc-1]); err != nil {
			return nil, err
		}
		feats = feats[:len(feats)-1]
	}
	if spec.out == outExplain && explainsVersus(feats, len(scorer.Model.Features)) {
		if err := b.bindClass(cctx, info, argc-1, args[argc-1]); err != nil {
			return nil, err
		}
		b.versus = true
		feats = feats[:len(feats)-1]
	}
	return b, b.bindFeatures(feats, 1, usage)
}

// unknownType reports whether t is a type DuckDB does not know yet (a prepared statement's parameter) or a
// STRUCT with such a field ({'x': $1}): binding waits for the types.
func unknownType(t mapping.LogicalType) bool {
	switch mapping.GetTypeId(t) {
	case mapping.TypeInvalid:
		return true
	case mapping.TypeStruct:
		for i := range mapping.IdxT(mapping.StructTypeChildCount(t)) {
			ct := mapping.StructTypeChildType(t, i)
			unknown := unknownType(ct)
			mapping.DestroyLogicalType(&ct)
			if unknown {
				return true
			}
		}
	}
	return false
}

func newBound(spec *scalarSpec, scorer *sqlnb.Scorer) *bound {
	b := &bound{spec: spec, scorer: scorer, classArg: -1}
	b.short = true
	for _, l := range scorer.Labels {
		b.labels = append(b.labels, newLabel(l))
		b.short = b.short && b.labels[len(b.labels)-1].short
	}
	return b
}

// bindFeatures binds the feature arguments, which start at input column first: one STRUCT matched by
// name, or every feature positionally.
func (b *bound) bindFeatures(feats []argument, first int, usage string) error {
	m := b.scorer.Model
	if len(feats) == 1 && feats[0].id == mapping.TypeStruct {
		b.struc, b.structArg = true, first
		return b.bindStruct(feats[0].typ)
	}
	if len(b.scorer.GroupInputs) > 0 {
		return fmt.Errorf("model %q has one model per group of %s: pass the row as a struct with the features and the group columns, as in %s",
			m.Name, quoteAll(groupNames(b.scorer)), usage)
	}
	if len(feats) == 1 && feats[0].id == mapping.TypeSQLNull && len(m.Features) > 1 {
		return fmt.Errorf("model %q: argument %d is a NULL without a type: pass the row as a struct, as in %s (a NULL of the "+
			"struct's type gives NULL)", m.Name, first+1, usage)
	}
	if len(feats) != len(m.Features) {
		return fmt.Errorf("model %q has %d features (%s) but %d were given: pass the row as a struct, as in %s, "+
			"or every feature in training order", m.Name, len(m.Features), featureList(m), len(feats), usage)
	}
	for j := range m.Features {
		r, err := b.newReader(j, first+j, -1, feats[j].typ)
		if err != nil {
			return err
		}
		b.readers = append(b.readers, r)
	}
	return nil
}

func usageOf(spec *scalarSpec) string {
	switch spec.out {
	case outClassProba:
		return spec.name + "('model', t, 'class') ... FROM tbl t"
	case outExplain:
		return spec.name + "('model', t [, 'class to explain against']) ... FROM tbl t"
	}
	return spec.name + "('model', t) ... FROM tbl t"
}

func featureList(m *sqlnb.Model) string {
	names := make([]string, len(m.Features))
	for i, f := range m.Features {
		names[i] = strconv.Quote(f.Name)
	}
	return strings.Join(names, ", ")
}

// errNULLArg is foldString's error for a constant NULL.
var errNULLArg = errors.New("is NULL")

func foldString(cctx mapping.ClientContext, info mapping.BindInfo, i int, a argument) (string, error) {
	if !a.foldable || (a.id != mapping.TypeVarchar && a.id != mapping.TypeStringLiteral) {
		return "", fmt.Errorf("argument %d is not a constant string", i+1)
	}
	expr := mapping.ScalarFunctionBindGetArgument(info, mapping.IdxT(i))
	defer mapping.DestroyExpression(&expr)
	var v mapping.Value
	ed := mapping.ExpressionFold(cctx, expr, &v)
	defer mapping.DestroyErrorData(&ed)
	defer mapping.DestroyValue(&v)
	if mapping.ErrorDataHasError(ed) {
		return "", fmt.Errorf("%s", mapping.ErrorDataMessage(ed))
	}
	if mapping.IsNullValue(v) {
		return "", fmt.Errorf("argument %d %w", i+1, errNULLArg)
	}
	s, err := varchar(v)
	if err != nil {
		return "", fmt.Errorf("argument %d %w", i+1, err)
	}
	return s, nil
}

func (b *bound) bindClass(cctx mapping.ClientContext, info mapping.BindInfo, i int, a argument) error {
	m := b.scorer.Model
	isNULL := func() error {
		return fmt.Errorf("model %q: argument %d, the class, is NULL: name a class (classes: %s)", m.Name, i+1, strings.Join(b.scorer.Labels, ", "))
	}
	if a.id == mapping.TypeSQLNull {
		return isNULL()
	}
	if a.foldable {
		c, err := foldString(cctx, info, i, a)
		if errors.Is(err, errNUL) {
			return fmt.Errorf("model %q: the class: %w", m.Name, err)
		}
		if errors.Is(err, errNULLArg) { // NULL::VARCHAR: it said "must be text (argument 3 is NULL)"
			return isNULL()
		}
		if err != nil {
			// A constant that is not text: a class written as a number ('1' is meant), or the class left out
			// so that the last feature took its place.
			why := ""
			if a.id == mapping.TypeVarchar || a.id == mapping.TypeStringLiteral {
				why = " (" + err.Error() + ")"
			}
			return fmt.Errorf("model %q: argument %d, the class, must be text%s: write the class as a string, e.g. '%s' "+
				"(classes: %s), after the STRUCT of features or after all %d features", m.Name, i+1, why, b.scorer.Labels[0],
				strings.Join(b.scorer.Labels, ", "), len(m.Features))
		}
		idx, ok := m.ClassIndex()[c]
		if !ok {
			return fmt.Errorf("model %q has no class %q (classes: %s)", m.Name, c, strings.Join(b.scorer.Labels, ", "))
		}
		b.classIdx = idx
		return nil
	}
	if a.id != mapping.TypeVarchar {
		return fmt.Errorf("model %q: the class argument must be VARCHAR, cast it", m.Name)
	}
	b.classArg, b.classes = i, m.ClassIndex()
	return nil
}

// groupNames lists the group columns of a per-group model's scorer.
func groupNames(s *sqlnb.Scorer) []string {
	var out []string
	for _, in := range s.GroupInputs {
		out = append(out, in.Name)
	}
	return out
}

// structChild returns the index of the struct field named name: exact first, else the only field equal to it
// ignoring ASCII case (nb.EqualFoldIdent: DuckDB's rule, under which "É" and "é" differ); -1 if none.
func structChild(names []string, name string) int {
	for i, nm := range names {
		if nm == name {
			return i
		}
	}
	found := -1
	for i, nm := range names {
		if nb.EqualFoldIdent(nm, name) {
			if found >= 0 {
				return -1
			}
			found = i
		}
	}
	return found
}

// bindStruct matches struct fields to features by name (structChild: exact first, then ignoring ASCII case,
// as DuckDB's identifiers); extra fields are ignored; a missing feature is an error. A per-group
// model's group columns are bound the same way.
func (b *bound) bindStruct(t mapping.LogicalType) error {
	m := b.scorer.Model
	n := int(mapping.StructTypeChildCount(t))
	names := make([]string, n)
	for i := range names {
		names[i] = mapping.StructTypeChildName(t, mapping.IdxT(i))
	}
	for _, in := range b.scorer.GroupInputs {
		child := structChild(names, in.Name)
		if child < 0 {
			return fmt.Errorf("model %q has one model per group of %s: the struct argument lacks the group column %q (it has %s): "+
				"add the column, or struct_pack(%s := ...)", m.Name, quoteAll(groupNames(b.scorer)), in.Name, quoteAll(names), queries.Ident(in.Name))
		}
		ct := mapping.StructTypeChildType(t, mapping.IdxT(child))
		r, err := b.inputReader(in, fmt.Sprintf("group column %q", in.Name), b.structArg, child, ct)
		mapping.DestroyLogicalType(&ct)
		if err != nil {
			return err
		}
		b.readers = append(b.readers, r)
	}
	for j, f := range m.Features {
		child := structChild(names, f.Name)
		if child < 0 {
			return fmt.Errorf("model %q needs feature %q, which the struct argument lacks (it has %s): "+
				"add the column, or struct_pack(%s := ...)", m.Name, f.Name, quoteAll(names), queries.Ident(f.Name))
		}
		ct := mapping.StructTypeChildType(t, mapping.IdxT(child))
		r, err := b.newReader(j, b.structArg, child, ct)
		mapping.DestroyLogicalType(&ct)
		if err != nil {
			return err
		}
		b.readers = append(b.readers, r)
	}
	return nil
}

func quoteAll(names []string) string {
	if len(names) == 0 {
		return "no fields"
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}

func isNumberType(t mapping.Type) bool {
	switch t {
	case mapping.TypeTinyInt, mapping.TypeSmallInt, mapping.TypeInteger, mapping.TypeBigInt, mapping.TypeUTinyInt,
		mapping.TypeUSmallInt, mapping.TypeUInteger, mapping.TypeUBigInt, mapping.TypeHugeInt, mapping.TypeUHugeInt,
		mapping.TypeFloat, mapping.TypeDouble, mapping.TypeDecimal:
		return true
	}
	return false
}

var typeNames = map[mapping.Type]string{
	mapping.TypeBoolean: "BOOLEAN", mapping.TypeVarchar: "VARCHAR", mapping.TypeBlob: "BLOB", mapping.TypeDate: "DATE",
	mapping.TypeTimestamp: "TIMESTAMP", mapping.TypeList: "LIST", mapping.TypeStruct: "STRUCT", mapping.TypeMap: "MAP",
	mapping.TypeEnum: "ENUM", mapping.TypeDecimal: "DECIMAL", mapping.TypeDouble: "DOUBLE", mapping.TypeInteger: "INTEGER",
	mapping.TypeTinyInt: "TINYINT", mapping.TypeSmallInt: "SMALLINT", mapping.TypeBigInt: "BIGINT", mapping.TypeUTinyInt: "UTINYINT",
	mapping.TypeUSmallInt: "USMALLINT", mapping.TypeUInteger: "UINTEGER", mapping.TypeUBigInt: "UBIGINT", mapping.TypeFloat: "FLOAT",
	mapping.TypeHugeInt: "HUGEINT", mapping.TypeUHugeInt: "UHUGEINT", mapping.TypeTime: "TIME", mapping.TypeInterval: "INTERVAL",
	mapping.TypeTimestampS: "TIMESTAMP_S", mapping.TypeTimestampMS: "TIMESTAMP_MS", mapping.TypeTimestampNS: "TIMESTAMP_NS",
	mapping.TypeTimestampTZ: "TIMESTAMP WITH TIME ZONE", mapping.TypeTimeTZ: "TIME WITH TIME ZONE", mapping.TypeArray: "ARRAY",
	mapping.TypeUUID: "UUID", mapping.TypeUnion: "UNION", mapping.TypeBit: "BIT", mapping.TypeBigNum: "BIGNUM", mapping.TypeSQLNull: "NULL",
	mapping.TypeTimeNS: "TIME_NS",
}

func typeName(t mapping.Type) string {
	if n, ok := typeNames[t]; ok {
		return n
	}
	if t == mapping.TypeInvalid {
		return "a type not known yet (a parameter)"
	}
	return fmt.Sprintf("type #%d", t)
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

//export nbScalarExec
func nbScalarExec(infoPtr, inputPtr, outputPtr unsafe.Pointer) {
	info := mapping.FunctionInfo{Ptr: infoPtr}
	name := "sqlnb"
	defer recovered(&name, func(msg string) { mapping.ScalarFunctionSetError(info, msg) })
	b := handleValue[*bound](mapping.ScalarFunctionGetBindData(info))
	name = b.spec.name
	fault(name, "exec")
	if b.unknownArg == 1 {
		mapping.ScalarFunctionSetError(info, fmt.Sprintf("%s: the model name must be a constant string, not a prepared-statement "+
			"parameter: the model is resolved once, when the query is bound; write its name into the statement (%s)", b.spec.name, usageOf(b.spec)))
		return
	}
	if b.unknownArg > 0 {
		mapping.ScalarFunctionSetError(info, fmt.Sprintf("%s: the type of argument %d was not known when the query was bound "+
			"(a prepared-statement parameter, or a macro parameter): cast it, as in $%d::DOUBLE, or pass the row as a struct (%s)",
			b.spec.name, b.unknownArg, b.unknownArg, usageOf(b.spec)))
		return
	}
	input := mapping.DataChunk{Ptr: inputPtr}
	out := mapping.Vector{Ptr: outputPtr}
	n := int(mapping.DataChunkGetSize(input))
	if n == 0 {
		return
	}
	s := b.scratch(n)
	defer b.pool.Put(s)
	b.execute(input, out, n, s)
}

func (b *bound) execute(input mapping.DataChunk, out mapping.Vector, n int, s *scratch) {
	batch := s.batch
	batch.N = n
	// Rows whose struct argument is NULL give NULL.
	rowOK := s.rowOK[:n]
	anyNull := false
	var structVec mapping.Vector
	var mask []uint64
	if b.struc {
		structVec = mapping.DataChunkGetVector(input, mapping.IdxT(b.structArg))
		mask = validity(structVec, n)
	}
	if mask == nil {
		for i := range rowOK {
			rowOK[i] = true
		}
	} else {
		for i := range rowOK {
			rowOK[i] = valid(mask, i)
			anyNull = anyNull || !rowOK[i]
		}
	}
	b.readAll(input, structVec, n, s)
	sc := b.scorer
	K := len(sc.Labels)
	jll := s.jll[:K*n]
	sc.JointLogLikelihood(batch, jll, &s.ws)
	// Rows that miss a value the model requires (lda, qda, logistic) give NULL.
	if null := s.ws.Null; null != nil {
		for i, isNull := range null {
			if isNull {
				rowOK[i], anyNull = false, true
			}
		}
	}
	switch b.spec.out {
	case outLabel:
		kernel.Argmax(jll, n, K, s.best, s.top)
		if b.short && !anyNull { // the common case in a tight loop: one 16-byte copy a row
			slots := unsafe.Slice((*[16]byte)(mapping.VectorGetData(out)), n)
			for i, c := range s.best[:n] {
				slots[i] = b.labels[c].inline
			}
			break
		}
		var w stringWriter
		w.reset(out, s.first)
		for i := range n {
			if rowOK[i] {
				c := s.best[i]
				w.write(i, c, &b.labels[c])
			}
		}
	case outClassProba:
		data := unsafe.Slice((*float64)(mapping.VectorGetData(out)), n)
		// Every posterior of the chunk by the vector kernels, then the asked class's: ClassPosterior's value
		// bit for bit (Posteriors gives Posterior's, as ClassPosterior does), K exponentials a row either way.
		post := s.wideN(n * K)
		kernel.Posteriors(jll, n, K, post, s.top)
		var classes unsafe.Pointer
		var classMask []uint64
		if b.classArg >= 0 {
			cv := mapping.DataChunkGetVector(input, mapping.IdxT(b.classArg))
			classes, classMask = mapping.VectorGetData(cv), validity(cv, n)
		}
		for i := range n {
			c := b.classIdx
			if classes != nil {
				ci, ok := -1, valid(classMask, i)
				if ok {
					ci, ok = b.classes[stringAt(classes, i)]
				}
				if !ok {
					rowOK[i], anyNull = false, true
					continue
				}
				c = ci
			}
			data[i] = post[i*K+c]
		}
	case outEvidence:
		data := unsafe.Slice((*float64)(mapping.VectorGetData(out)), n)
		kernel.LogEvidences(jll, n, K, data, s.wideN(n*K), s.top) // LogEvidence's values, by the vector kernels
		for i := range n {
			data[i] += s.ws.ShiftOf(i)
		}
	case outExplain:
		anyNull = b.writeExplain(input, out, s, n, rowOK) || anyNull
	default:
		b.writeMaps(out, jll, n, K, s)
	}
	if anyNull {
		for i, ok := range rowOK {
			if !ok {
				setNull(out, i)
			}
		}
	}
}

type listEntry struct{ offset, length uint64 }

// writeMaps writes one MAP(VARCHAR, DOUBLE) per row: class → posterior, log posterior or joint
// log-likelihood. Rows that end up NULL get an empty entry and are marked NULL by the caller.
func (b *bound) writeMaps(out mapping.Vector, jll []float64, n, K int, s *scratch) {
	base := int(mapping.ListVectorGetSize(out))
	listReserve(out, base+n*K)
	entries := unsafe.Slice((*listEntry)(mapping.VectorGetData(out)), n)
	child := mapping.ListVectorGetChild(out)
	keys := mapping.StructVectorGetChild(child, 0)
	vals := unsafe.Slice((*float64)(mapping.VectorGetData(mapping.StructVectorGetChild(child, 1))), base+n*K)
	var w stringWriter
	w.reset(keys, s.first)
	switch b.spec.out {
	case outProba:
		kernel.Posteriors(jll, n, K, vals[base:base+n*K], s.top)
	case outLogProba:
		kernel.LogPosteriors(jll, n, K, vals[base:base+n*K], s.top)
	}
	for i := range n {
		off := base + i*K
		entries[i] = listEntry{offset: uint64(off), length: uint64(K)}
		if b.spec.out == outJLL {
			shift := s.ws.ShiftOf(i)
			if math.IsInf(shift, 0) {
				// The top score is beyond float64's range: each class's own score, by the row
				// reference (difference + shift would give NaN where both are infinite).
				b.scorer.RowScores(s.batch, i, vals[off:off+K])
				continue
			}
			for c := range K {
				vals[off+c] = jll[c*n+i] + shift
			}
		}
	}
	for c := range K {
		w.write(base+c, int32(c), &b.labels[c])
	}
	w.repeat(base, K, n)
	mapping.ListVectorSetSize(out, mapping.IdxT(base+n*K))
}

// readAll converts every feature argument of the chunk into s.batch.
func (b *bound) readAll(input mapping.DataChunk, structVec mapping.Vector, n int, s *scratch) {
	for i := range b.readers {
		r := &b.readers[i]
		var vec mapping.Vector
		if r.child >= 0 {
			vec = mapping.StructVectorGetChild(structVec, mapping.IdxT(r.child))
		} else {
			vec = mapping.DataChunkGetVector(input, mapping.IdxT(r.arg))
		}
		r.read(vec, n, s.batch, s.num[r.in.Feature])
	}
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

func registerAll(conn mapping.Connection, reg *registry) error {
	for _, s := range scalarSpecs {
		if err := registerScalar(conn, &scalarSpec{name: s.name, out: s.out, reg: reg}); err != nil {
			return err
		}
	}
	if err := registerCV(conn, reg); err != nil {
		return err
	}
	if err := registerLogisticPass(conn); err != nil {
		return err
	}
	return registerTables(conn, reg)
}
