//go:build !unix

package bench

import "time"

// cpuTime is 0 where getrusage is missing: the CPU columns then read 0.
func cpuTime() time.Duration { return 0 }
