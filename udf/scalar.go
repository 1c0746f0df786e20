package udf

import "C"

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unsafe"

	"github.com/duckdb/duckdb-go/v2/mapping"

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
