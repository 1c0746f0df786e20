package sqlnb

import (
	"context"
	"encoding/json"
	"strconv"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// EstimateRows returns DuckDB's estimate of the number of rows of src, from planning alone (no data is
// read): exact for a table and for parquet files (their metadata), an estimate from the file size for CSV
// and JSON, the planner's estimate for a query. ok is false when DuckDB gives none. For progress reports.
func EstimateRows(ctx context.Context, q nb.Querier, src nb.Source) (n int64, ok bool) {
	stmt, err := queries.Render("source_explain.tmpl.sql", queries.Source{From: src.From})
	if err != nil {
		return 0, false
	}
	var key, plan string
	if err := q.QueryRowContext(ctx, stmt, src.Args...).Scan(&key, &plan); err != nil {
		return 0, false
	}
	var nodes []planNode
	if err := json.Unmarshal([]byte(plan), &nodes); err != nil || len(nodes) == 0 {
		return 0, false
	}
	return nodes[0].cardinality()
}

// planNode is one operator of DuckDB's EXPLAIN (FORMAT json).
type planNode struct {
	ExtraInfo map[string]any `json:"extra_info"`
	Children  []planNode     `json:"children"`
}

// cardinality is the estimated cardinality of the first operator, from the top, that states one.
func (p planNode) cardinality() (int64, bool) {
	if s, ok := p.ExtraInfo["Estimated Cardinality"].(string); ok {
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return n, true
		}
	}
	for _, c := range p.Children {
		if n, ok := c.cardinality(); ok {
			return n, true
		}
	}
	return 0, false
}
