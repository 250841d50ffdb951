//go:build !linux

package sqlite

import "time"

// processCPU is 0 where the CPU time is not read.
func processCPU() time.Duration { return 0 }
