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

// RunTotals are the AG-UI runs started in a range, counted by agent and
// outcome, and the failed ones by their fault's code (GET
// /v1/counts/runs): what an agent's failure rate is read from.
type RunTotals struct {
	// Since and Until are the range: the runs started at or after Since
	// and at or before Until.
	Since time.Time `json:"since"`
	Until time.Time `json:"until"`
	// Runs is how many runs were counted. Capped says that the range held
	// more than a count reads (store.MaxRunsTotalled): then the latest
	// started of them were counted, and Since is the first counted run's
	// start.
	Runs   int64 `json:"runs"`
	Capped bool  `json:"capped,omitempty"`
	// Agents are the agents with most failed runs first, then most runs,
	// then by id.
	Agents []AgentRuns `json:"agents"`
	// Codes are the failed runs' codes, the most frequent first, then by
	// code.
	Codes []CodeRuns `json:"codes"`
}

// AgentRuns are one agent's runs of a RunTotals, by outcome (their sum is
// Runs). Its failure rate is Failed over the ended runs (Runs - Running).
type AgentRuns struct {
	AgentID      string `json:"agent_id"`
	Runs         int64  `json:"runs"`
	Running      int64  `json:"running"`
	Finished     int64  `json:"finished"`
	Failed       int64  `json:"failed"`
	Disconnected int64  `json:"disconnected"`
	Shutdown     int64  `json:"shutdown"`
}

// CodeRuns are the failed runs of a RunTotals with one fault code.
type CodeRuns struct {
	Code   string `json:"code"`
	Failed int64  `json:"failed"`
}
