package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/sqlnb/sqlnb/sqlnb/nb"

	"github.com/sqlnb/sqlnb/queries"
)

// saveGroups stores the groups of a per-group model in nb.groups and nb.group_classes under group id k+1 (its
// position in m.Groups, 1-based; saveStats stores their statistics under the same ids).
func (st Store) saveGroups(ctx context.Context, q nb.Querier, conn *sql.Conn, m *nb.Model) error {
	if len(m.Groups) == 0 {
		return nil
	}
	n := len(m.Groups)
	ids, keys, rows, skipped, incomplete := make([]int64, n), make([]string, n), make([]int64, n), make([]int64, n), make([]int64, n)
	var cIDs, cCounts []int64
	var cPos []int32
	var cLabels []string
	var cWeights []float64
	for k := range m.Groups {
		g := &m.Groups[k]
		key, err := json.Marshal(g.Key)
		if err != nil {
			return err
		}
		ids[k], keys[k], rows[k], skipped[k], incomplete[k] = int64(k+1), string(key), g.Rows, g.SkippedRows, g.IncompleteRows
		for i, c := range g.Classes {
			cIDs, cPos, cLabels, cCounts, cWeights = append(cIDs, int64(k+1)), append(cPos, int32(i)), append(cLabels, c.Label),
				append(cCounts, c.Count), append(cWeights, c.Weight)
		}
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_insert_groups.sql"), m.Name, ids, keys, rows, skipped, incomplete); err != nil {
		return fmt.Errorf("store groups: %w", err)
	}
	if _, err := q.ExecContext(ctx, queries.SQL("store_insert_group_classes.sql"), m.Name, cIDs, cPos, cLabels, cCounts, cWeights); err != nil {
		return fmt.Errorf("store group classes: %w", err)
	}
	return nil
}

// loadGroups reads the statistics of model m (group 0) and, for a per-group model, its groups.
func (st Store) loadGroups(ctx context.Context, q nb.Querier, m *nb.Model) error {
	stats, err := st.loadStats(ctx, q, m.Name, m.Features)
	if err != nil {
		return err
	}
	m.Stats = stats[0]
	if m.Stats == nil {
		m.Stats = nb.Stats{}
	}
	if len(m.By) == 0 {
		return nil
	}
	index := map[int64]int{}
	if err := loadRows(ctx, q, "store_load_groups.sql", m.Name, func(r *sql.Rows) error {
		var id int64
		var key string
		var g nb.Group
		if err := r.Scan(&id, &key, &g.Rows, &g.SkippedRows, &g.IncompleteRows); err != nil {
			return err
		}
		if err := json.Unmarshal([]byte(key), &g.Key); err != nil {
			return fmt.Errorf("%w: nb.groups key %q: %v", nb.ErrInvalidModel, key, err)
		}
		g.Stats = stats[id]
		if g.Stats == nil {
			g.Stats = nb.Stats{}
		}
		index[id] = len(m.Groups)
		m.Groups = append(m.Groups, g)
		return nil
	}); err != nil {
		return err
	}
	return loadRows(ctx, q, "store_load_group_classes.sql", m.Name, func(r *sql.Rows) error {
		var id int64
		var c nb.Class
		if err := r.Scan(&id, &c.Label, &c.Count, &c.Weight); err != nil {
			return err
		}
		k, ok := index[id]
		if !ok {
			return fmt.Errorf("%w: nb.group_classes: group %d is not in nb.groups", nb.ErrInvalidModel, id)
		}
		m.Groups[k].Classes = append(m.Groups[k].Classes, c)
		return nil
	})
}
