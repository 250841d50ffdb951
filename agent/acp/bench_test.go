package acp_test

import (
	"context"
	"testing"
)

// BenchmarkPrompt is one prompt's round trip through one worker process
// that streams without pausing: session/prompt, four chunks, the answer.
func BenchmarkPrompt(b *testing.B) {
	p := start(b, config("TRIAGE_WORKER_DELAY=0"))
	id := newSession(b, p)
	ctx := context.Background()
	chunks := 0
	b.ReportAllocs()
	for b.Loop() {
		if _, err := p.Prompt(ctx, id, "hello there", func(string) { chunks++ }); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(chunks)/float64(b.N), "chunks/op")
}
