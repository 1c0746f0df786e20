package sqlnb

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"fmt"

	"github.com/sqlnb/sqlnb/queries"
)

// saveStats inserts the statistics rows of model name: stats[g] are those of its group g (0: the model
// itself), table by table: through the row appender when conn is set and one is installed (millions of rows
// per second), else one INSERT from bound lists per table.
func (st Store) saveStats(ctx context.Context, q Querier, conn *sql.Conn, name string, stats []Stats) error {
	for _, t := range st.Families.Tables() {
		var groups []int64
		var parts []any
		total := 0
		for g, st := range stats {
			if rows, ok := st[t.tableName()]; ok && t.size(rows) > 0 {
				groups, parts = append(groups, int64(g)), append(parts, rows)
				total += t.size(rows)
			}
		}
		if total == 0 {
			continue
		}
		if conn != nil && rowAppender != nil {
			cols := []string{"model", "group_id"}
			for _, c := range t.columns() {
				cols = append(cols, c.Name)
			}
			p := 0
			next := t.source(parts[0])
			err := rowAppender(ctx, conn, "nb", t.tableName(), cols, func(dst []driver.Value) bool {
				for !next(dst[2:]) {
					if p++; p == len(parts) {
						return false
					}
					next = t.source(parts[p])
				}
				dst[0], dst[1] = name, groups[p]
				return true
			})
			if err != nil {
				return fmt.Errorf("store %s statistics: %w", t.tableName(), err)
			}
			continue
		}
		stmt, err := queries.Render("store_insert_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		ids := make([]int64, 0, total)
		for i, g := range groups {
			for range t.size(parts[i]) {
				ids = append(ids, g)
			}
		}
		if _, err := q.ExecContext(ctx, stmt, append([]any{name, ids}, t.insertArgs(t.concat(parts))...)...); err != nil {
			return fmt.Errorf("store %s statistics: %w", t.tableName(), err)
		}
	}
	return nil
}

// loadStats reads the statistics rows of model name from the tables of its features' families (a table
// query each: reading all seven took most of the 20 ms a model took to load), by group id (0: the model
// itself).
func (st Store) loadStats(ctx context.Context, q Querier, name string, feats []Feature) (map[int64]Stats, error) {
	used := map[string]bool{}
	for _, f := range feats {
		if fam := st.Families.FamilyOf(f.Kind); fam != nil {
			for _, t := range fam.Tables() {
				used[t.tableName()] = true
			}
		}
	}
	out := map[int64]Stats{}
	for _, t := range st.Families.Tables() {
		if !used[t.tableName()] {
			continue
		}
		stmt, err := queries.Render("store_load_stats.tmpl.sql", tableData(t))
		if err != nil {
			return nil, err
		}
		rows, err := queryRows(ctx, q, stmt, name)
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		got, err := t.loadGroups(rows, name)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		for g, r := range got {
			if out[g] == nil {
				out[g] = Stats{}
			}
			out[g][t.tableName()] = r
		}
	}
	return out, nil
}

func tableData(t table) map[string]any {
	return map[string]any{"Name": t.tableName(), "Columns": t.columns()}
}
