package store

import (
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"fmt"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// saveStats inserts the statistics rows of model name: stats[g] are those of its group g (0: the model
// itself), table by table: through the row appender when conn is set and one is installed (millions of rows
// per second), else one INSERT from bound lists per table.
func (st Store) saveStats(ctx context.Context, q nb.Querier, conn *sql.Conn, name string, stats []nb.Stats) error {
	for _, t := range st.Families.Tables() {
		var groups []int64
		var parts []any
		total := 0
		for g, st := range stats {
			if rows, ok := st[t.TableName()]; ok && t.Size(rows) > 0 {
				groups, parts = append(groups, int64(g)), append(parts, rows)
				total += t.Size(rows)
			}
		}
		if total == 0 {
			continue
		}
		if conn != nil {
			cols := []string{"model", "group_id"}
			for _, c := range t.Columns() {
				cols = append(cols, c.Name)
			}
			p := 0
			next := t.Source(parts[0])
			err := nb.AppendRows(ctx, conn, "nb", t.TableName(), cols, func(dst []driver.Value) bool {
				for !next(dst[2:]) {
					if p++; p == len(parts) {
						return false
					}
					next = t.Source(parts[p])
				}
				dst[0], dst[1] = name, groups[p]
				return true
			})
			if err == nil {
				continue
			}
			if !errors.Is(err, nb.ErrFallback) {
				return fmt.Errorf("store %s statistics: %w", t.TableName(), err)
			}
		}
		stmt, err := queries.Render("store_insert_stats.tmpl.sql", tableData(t))
		if err != nil {
			return err
		}
		ids := make([]int64, 0, total)
		for i, g := range groups {
			for range t.Size(parts[i]) {
				ids = append(ids, g)
			}
		}
		if _, err := q.ExecContext(ctx, stmt, append([]any{name, ids}, t.InsertArgs(t.Concat(parts))...)...); err != nil {
			return fmt.Errorf("store %s statistics: %w", t.TableName(), err)
		}
	}
	return nil
}

// loadStats reads the statistics rows of model name from the tables of its features' families (a table
// query each: reading all seven took most of the 20 ms a model took to load), by group id (0: the model
// itself).
func (st Store) loadStats(ctx context.Context, q nb.Querier, name string, feats []nb.Feature) (map[int64]nb.Stats, error) {
	used := map[string]bool{}
	for _, f := range feats {
		if fam := st.Families.FamilyOf(f.Kind); fam != nil {
			for _, t := range fam.Tables() {
				used[t.TableName()] = true
			}
		}
	}
	out := map[int64]nb.Stats{}
	for _, t := range st.Families.Tables() {
		if !used[t.TableName()] {
			continue
		}
		stmt, err := queries.Render("store_load_stats.tmpl.sql", tableData(t))
		if err != nil {
			return nil, err
		}
		rows, err := nb.QueryRows(ctx, q, stmt, name)
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		got, err := t.LoadGroups(rows, name)
		rows.Close()
		if err != nil {
			return nil, fmt.Errorf("load model %q: %w", name, err)
		}
		for g, r := range got {
			if out[g] == nil {
				out[g] = nb.Stats{}
			}
			out[g][t.TableName()] = r
		}
	}
	return out, nil
}

// tableData is the data of the templates over the statistics table t (store_*_stats, store_upgrade_group_id).
func tableData(t nb.StatsTable) queries.StatsTable {
	d := queries.StatsTable{Name: t.TableName()}
	for _, c := range t.Columns() {
		d.Columns = append(d.Columns, queries.Column{Name: c.Name, Type: c.Type})
	}
	return d
}
