package progress

import (
	"fmt"
	"testing"
	"time"
)

// TestBarDetail: the text after the progress bar: the step, the rows that the percentage of a known total
// stands for, and their rate.
func TestBarDetail(t *testing.T) {
	for _, c := range []struct {
		step    int
		pct     float64
		total   int64
		elapsed time.Duration
		want    string
	}{
		{1, 45, 4_600_000, 3 * time.Second, "scoring: 2.07M of ~4.60M rows, 690k rows/s"},
		{2, 10, 200_000_000, 4 * time.Second, "scoring (step 2): 20.0M of ~200M rows, 5.00M rows/s"},
		{1, 50, 0, time.Second, "scoring"},
		{1, 1, 900, 0, "scoring: 9 of ~900 rows"},
	} {
		if got := barDetail("scoring", c.step, c.pct, c.total, c.elapsed); got != c.want {
			t.Errorf("barDetail(%d, %v, %d, %v) = %q, want %q", c.step, c.pct, c.total, c.elapsed, got, c.want)
		}
	}
	if got := fmt.Sprint(humanCount(999), humanCount(1000), humanCount(123456789), humanCount(2e9)); got != "9991.00k123M2.00G" {
		t.Errorf("humanCount: %s", got)
	}
}
