package triage

import "time"

// Counts are occurrences counted in time buckets (GET /v1/counts and
// /v1/errors/{error_id}/counts): one series per record, agent or code.
type Counts struct {
	// By is what a series counts: "record", "agent" or "code".
	By string `json:"by"`
	// Bucket is "hour" or "day" (UTC days).
	Bucket string `json:"bucket"`
	// Since is the start of the first bucket, Until the end of the last:
	// the range asked for, widened to whole buckets.
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// Series are the keys with most occurrences in the range first (then
	// by key).
	Series []CountSeries `json:"series"`
}

// CountSeries is one key's occurrences in each bucket of a Counts.
type CountSeries struct {
	// Key is the error_id, agent_id or code.
	Key string `json:"key"`
	// Total is the sum of Counts.
	Total int64 `json:"total"`
	// Counts has one element per bucket from Since, zero where the key had
	// no occurrence (zero-filled, never sparse).
	Counts []int64 `json:"counts"`
}
