package queries

// The data of the templates (*.tmpl.sql): one type per shape, each naming the templates that take it, whose
// header comments name the type and say what each field holds. Render takes any value, so a template reads
// whatever it is given; these types make a field renamed on one side only an error at the first render
// (TestEveryTemplateRenders renders every template with them), not SQL text missing a part.
//
// Strings named From, Fold, Group, Proba, Score, Terms, Tokens, Present, Expr, Raw, ID and Limit are SQL
// that sqlnb built from Ident, Literal and parameter placeholders; other strings are identifiers, which
// the templates quote with ident. Numbers are parameter numbers or integers sqlnb computed.

// Source is the data of the templates over a source alone (source_explain, train_describe). From is the
// source's FROM item, binding its own parameters.
type Source struct {
	From string
}

// Labelled is the data of the templates over a source's label (eval_labelled, source_labels).
type Labelled struct {
	From  string
	Label string // the label column
}

// Train is the data every training scan takes (train_classes), and the part of the other training templates'
// data that names the source (nb.Scan fills it): the source, the label, the weight column ("": none) and the
// fold expression over the source row Row ("": no folds).
type Train struct {
	From   string
	Label  string
	Weight string
	Fold   string
}

// Feature is a feature column as train_nonfinite, train_poisson and train_sums read it.
type Feature struct {
	Name string
}

// Features is the data of train_poisson and train_sums: a training scan over feature columns.
type Features struct {
	Train
	Features []Feature
}

// MomentFeature is a feature of train_moments: Cast converts it to DOUBLE, NaNToNull reads NaN as NULL.
type MomentFeature struct {
	Name      string
	Cast      bool
	NaNToNull bool
}

// Moments is the data of train_moments. Shift asks for the two-scan (shifted) variance.
type Moments struct {
	Train
	Shift    bool
	Features []MomentFeature
}

// Nonfinite is the data of train_nonfinite (its source never has folds or weights).
type Nonfinite struct {
	From     string
	Label    string
	Features []Feature
}

// Pair is a pair of indexes J ≤ K (features of train_comoments, design columns of train_logistic_step).
type Pair struct {
	J, K int
}

// Comoments is the data of train_comoments: Features are the column names, Pairs the index pairs J ≤ K
// over them; Missing groups the incomplete rows apart, Shift asks for the two-scan form.
type Comoments struct {
	Train
	Missing  bool
	Shift    bool
	Features []string
	Pairs    []Pair
}

// CountFeature is a feature of train_counts: Expr is its value (the quoted column, or SQL over it).
type CountFeature struct {
	Name string
	Expr string
}

// Counts is the data of train_counts.
type Counts struct {
	Train
	Features []CountFeature
}

// MissingFeature is a feature of train_missing: with Float, NaN counts as missing.
type MissingFeature struct {
	Name  string
	Float bool
}

// Missing is the data of train_missing.
type Missing struct {
	From     string
	Label    string
	Features []MissingFeature
}

// Profile is the data of train_profile: Columns are checked for identifier-like values, Limit is the
// placeholder of the parameter holding the number of rows to read.
type Profile struct {
	From    string
	Label   string
	Columns []string
	Limit   string
}

// Groups is the data of train_groups: By are the group column names, ID the group id expression.
type Groups struct {
	From string
	By   []string
	ID   string
}

// Terms is the data of train_terms: Tokens is the tokenizer over the text column, Present the present
// rule over e.value, Docs the quoted text column ("": no document rows).
type Terms struct {
	Train
	Tokens  string
	Present string
	Docs    string
}

// LongTerms is the data of train_long_terms: TermsFrom is the term table's FROM item, Doc, Term and Count
// its columns (Doc in both), Present the present rule over n.
type LongTerms struct {
	Train
	TermsFrom string
	Doc       string
	Term      string
	Count     string
	Present   string
}

// LogisticFeature is a feature of the logistic regression templates: Numeric features are numbers
// (standardised; NaN is missing), the others categories.
type LogisticFeature struct {
	Name    string
	Numeric bool
}

// LogisticDescribe is the data of train_logistic_describe.
type LogisticDescribe struct {
	Train
	Features []LogisticFeature
}

// DesignCol is a design column of a logistic regression fit over the source row: Expr standardised, Raw
// unstandardised.
type DesignCol struct {
	Expr string
	Raw  string
}

// Logistic is the data the logistic regression fit's templates share: the features, the design columns
// and the placeholder of each class label (class 0 first).
type Logistic struct {
	Train
	Features []LogisticFeature
	Cols     []DesignCol
	Classes  []string
}

// LogisticPass is the data of train_logistic_pass: Token is the fit's token as a string literal.
type LogisticPass struct {
	Logistic
	Token string
}

// LogisticSample is the data of train_logistic_sample: with Sample, the rows whose hash modulo Mod is below
// Keep (both placeholders); Token ("": none) sends them to nb_logistic_pass.
type LogisticSample struct {
	Logistic
	Sample bool
	Mod    string
	Keep   string
	Token  string
}

// LogisticZ is a free class's linear predictor in train_logistic_step: the placeholders of its intercept
// (B) and of each design column's coefficient (W).
type LogisticZ struct {
	B string
	W []string
}

// ClassPair is a pair of free classes C ≤ D (train_logistic_step's Hessian blocks).
type ClassPair struct {
	C, D int
}

// LogisticStep is the data of train_logistic_step: Free are the free class numbers 1..K-1, Pairs their
// pairs (none: no Hessian), Prods the design column pairs 1 ≤ J ≤ K, Cols1 the column numbers 1..d-1.
type LogisticStep struct {
	Logistic
	Z     []LogisticZ
	Free  []int
	Pairs []ClassPair
	Prods []Pair
	Cols1 []int
}

// TableName is the data of the templates over one table named by sqlnb (compare_drop, em_drop).
type TableName struct {
	Table string
}

// CompareSplit is the data of compare_split: Seed and Fraction are parameter numbers.
type CompareSplit struct {
	Table    string
	From     string
	Seed     int
	Fraction int
}

// CompareSubset is the data of compare_subset: the first Size rows of the training pool.
type CompareSubset struct {
	Table string
	Size  int
}

// CompareTestRows is the data of compare_test_rows: each test row once per model, Models of them.
type CompareTestRows struct {
	Table  string
	Models int
}

// CVMetrics is the data of cv_metrics: Group is the fold expression, Terms the nb_cv_terms call.
type CVMetrics struct {
	From  string
	Label string
	Group string
	Terms string
}

// OtherFolds is the data of source_other_folds: Param is the number of the parameter binding the fold left
// out.
type OtherFolds struct {
	From  string
	Fold  string
	Param int
}

// EMRows is the data of em_rows and em_source: the unlabelled rows' and the M-step's columns.
type EMRows struct {
	From     string
	Label    string
	Weight   string
	Features []string
}

// EMClasses is the data of em_classes: Param is the number of the class-list parameter.
type EMClasses struct {
	From  string
	Label string
	Param int
}

// EMEStep is the data of em_estep: Score is the nb_cv_em call over the row.
type EMEStep struct {
	Score string
}

// EMLabelled is the data of em_labelled_ll: Score is the nb_cv_em call over the row, given its label.
type EMLabelled struct {
	From   string
	Label  string
	Weight string
	Score  string
}

// EvalClasses is the data of eval_classes: Proba is the posteriors' MAP over the row.
type EvalClasses struct {
	From  string
	Label string
	Proba string
}

// EvalScored is the data of eval_scored and eval_score_table: with Grouped, Group is the group expression;
// Proba is the posteriors' MAP over the row, whose keys are the classes in order when Ordered; Positions
// are 1 … K.
type EvalScored struct {
	From      string
	Label     string
	Grouped   bool
	Group     string
	Proba     string
	Ordered   bool
	Positions []int
}

// EvalCells is the data of eval_cells: with Table it reads nb_eval_scored, else it scores inline with the
// embedded EvalScored; Pos is the positive class's position when K = 2, else 0.
type EvalCells struct {
	EvalScored
	Table bool
	Pos   int
}

// EvalCounts is the data of eval_counts.
type EvalCounts struct {
	Grouped   bool
	Positions []int
}

// EvalSorted is the data of eval_sorted: Col is the class's position.
type EvalSorted struct {
	Col     int
	Grouped bool
}

// ExportDrop is the data of export_drop: Kind is "table" or "macro".
type ExportDrop struct {
	Kind string
	Name string
}

// TypeName is the data of order_labels and type_name: a DuckDB type text the caller checked.
type TypeName struct {
	Type string
}

// Column is a column of a statistics table: its name and DuckDB type (VARCHAR, BIGINT or DOUBLE).
type Column struct {
	Name string
	Type string
}

// StatsTable is the data of the store_*_stats templates and store_upgrade_group_id: the table nb.<Name>
// and its columns (those after model and group_id).
type StatsTable struct {
	Name    string
	Columns []Column
}

// Marker is the data of store_create_marker and store_drop_marker: IfMissing creates it only if missing.
type Marker struct {
	Name      string
	IfMissing bool
}

// ModelsTable is the data of store_create_models: the Table's name in schema nb ("models"; the format-5
// upgrade builds "models_v5").
type ModelsTable struct {
	Table string
}

// Predict is the data of predict_select: the kept source Columns (none: every column), the model name as a
// string literal (Model), the label column's type to cast the prediction to (LabelCast, "": none), and the
// output column names: Prediction, ProbaMap ("": no MAP column), Posteriors (the inner list column; "":
// no per-class columns) and Proba (one per class, in the model's class order).
type Predict struct {
	From       string
	Columns    []string
	Model      string
	LabelCast  string
	Prediction string
	ProbaMap   string
	Posteriors string
	Proba      []string
}

// PredictCopy is the data of predict_copy: Select is predict_select's statement, Path the number of the
// output path's parameter, Format and Options COPY's (from sqlnb's fixed table by file extension).
type PredictCopy struct {
	Select  string
	Path    int
	Format  string
	Options string
}

// KDEGridEntry is one (class, feature) curve of train_kde_bins: the placeholders ($n) of its bound class,
// feature position, grid start, bin spacing and weight 1/n.
type KDEGridEntry struct {
	Class, J, Lo, Delta, W string
}

// KDEBins is the data of train_kde_bins: the scan's features and one Grid entry per curve.
type KDEBins struct {
	Train
	Features []Feature
	Grid     []KDEGridEntry
}
