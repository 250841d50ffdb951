//go:build unix

package cputime_test

import (
	"testing"
	"time"

	"github.com/triage-go/triage/internal/testkit/cputime"
)

// TestProcessGrows: busy work shows in the process's CPU time.
func TestProcessGrows(t *testing.T) {
	before := cputime.Process()
	if before <= 0 {
		t.Fatalf("Process() = %v before any work, want > 0", before)
	}
	deadline := time.Now().Add(50 * time.Millisecond)
	n := 0
	for time.Now().Before(deadline) {
		n++
	}
	if after := cputime.Process(); after <= before {
		t.Fatalf("Process() went from %v to %v over %d busy iterations", before, after, n)
	}
}
