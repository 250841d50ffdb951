package triage

import (
	"context"
	"time"

	"github.com/triage-go/triage/fault"
)

// The Error Handler keeps its state behind these small interfaces. Package
// memory keeps it in the process; package store keeps it durably and
// shared between instances.

// Attempts counts the reports of one failure (by query and error code)
// across reports.
type Attempts interface {
	// Next records one more attempt under key and returns how many there
	// have been, this one included.
	Next(ctx context.Context, key string) (int, error)
}

// History remembers recent failures, to tell a persistent failure from a
// transient one.
type History interface {
	// Record notes a failure of agent with code at the given time and
	// returns how many such failures there have been since at-window, this
	// one included. An implementation may keep only the latest MaxKept
	// failures of an agent and code: a count beyond that is MaxKept.
	Record(ctx context.Context, agent, code string, at time.Time, window time.Duration) (int, error)
}

// Deliveries remembers the feedback given for each delivery of a report, so
// that a duplicate gets the same feedback and runs no action again.
type Deliveries interface {
	// Claim records that key is being handled. It reports false, with the
	// feedback given before (nil while the first delivery is still being
	// handled), when key was claimed already.
	Claim(ctx context.Context, key string) (prior *Feedback, first bool, err error)
	// Complete stores the feedback for a claimed key.
	Complete(ctx context.Context, key string, fb *Feedback) error
	// Release forgets a claim whose handling failed, so a retry is not
	// taken for a duplicate.
	Release(ctx context.Context, key string) error
}

// MaxKept is the fewest failures per agent and code a History must keep,
// and so the largest count Record must return exactly.
const MaxKept = 256

// State is the per-report state of the Error Handler: its Deliveries,
// Attempts and History, which Start claims, counts and records in one
// write: a database's, to which each write is a round trip and, for
// SQLite, a commit. The handler starts every report with Start, completes
// it with Complete and, when its handling fails, releases it with Release.
type State interface {
	Deliveries
	Attempts
	History
	// Start claims the delivery req.Key as Claim does. When it is the
	// first delivery, it also counts the attempt under req.AttemptKey as
	// Attempts.Next does and records the failure as History.Record does,
	// all in one write: either all of them happen or none does.
	Start(ctx context.Context, req StartRequest) (StartResult, error)
}

// StartRequest is what State.Start claims, counts and records.
type StartRequest struct {
	Key        string // the delivery key, as for Claim
	AttemptKey string // as for Attempts.Next
	// Agent, Code, At and Window are History.Record's arguments.
	Agent, Code string
	At          time.Time
	Window      time.Duration
	// NoRecent tells that the caller's decision does not read the
	// window's count (the handler settles the report's cause without
	// it: handler.Handler.Classify): a store may then skip counting and
	// answer Recent 1. The failure is recorded all the same.
	NoRecent bool
	// QueryID is the report's query: a store that reads ahead of the
	// decision what the decision would read (store.PeekedReads) reads
	// whether its Cache holds a result for it. Start ignores it.
	QueryID string
}

// StartResult is what State.Start found and counted.
type StartResult struct {
	// Prior and First are Claim's results.
	Prior *Feedback
	First bool
	// Attempt and Recent are the results of Attempts.Next and
	// History.Record; zero when First is false (nothing was counted).
	Attempt, Recent int
}

// Synonyms is the schema inventory: the fields of each data source and the
// synonyms a missing field may have been renamed to.
type Synonyms interface {
	// Lookup returns the field of source that field is a known synonym of
	// ("product_id" → "sku_id"), if there is one.
	Lookup(ctx context.Context, source, field string) (string, bool, error)
	// Fields lists the fields of source.
	Fields(ctx context.Context, source string) ([]string, error)
}

// SchemaInfo is one data source's schema inventory.
type SchemaInfo struct {
	Fields   []string          `json:"fields"`
	Synonyms map[string]string `json:"synonyms"` // missing name → field
}

// Cache holds the last good result of each query, for use_cache.
type Cache interface {
	Get(ctx context.Context, queryID string) (CachedResult, bool, error)
}

// CachedResult is a query's last good result, as the cache keeps it.
type CachedResult struct {
	StoredAt time.Time      `json:"stored_at"`
	Summary  string         `json:"summary,omitempty"`
	Data     map[string]any `json:"data,omitempty"`
}

// RetryJob is a retry the retry action plans for a callback to perform.
type RetryJob struct {
	ErrorID string    `json:"error_id"`
	QueryID string    `json:"query_id"`
	AgentID string    `json:"agent_id"`
	Attempt int       `json:"attempt"` // the attempt the retry will be
	At      time.Time `json:"at"`
}

// Callbacks tells whether an agent registered a callback URL, to which a
// service posts the retries planned for its queries (the service's store
// of agents). A retry planned for an agent without one is the caller's.
type Callbacks interface {
	HasCallback(ctx context.Context, agentID string) (bool, error)
}

// Job is work an action asks for, done once the report's handling is
// committed: a retry posted to the agent's callback URL when it is due, or
// an escalation told to the operators. One of Retry and Escalation is set.
type Job struct {
	Retry      *RetryJob
	Escalation *Escalation
}

// RetryBy says who performs a retry the retry action planned.
type RetryBy string

// The performers of a retry.
const (
	// RetryByCallback: the service posts the retry (a RetryJob) to the
	// agent's callback URL when it is due; the pipeline waits for it and
	// does not retry on its own as well.
	RetryByCallback RetryBy = "callback"
	// RetryByCaller: nothing calls the pipeline back; it retries itself,
	// no sooner than the plan's delay.
	RetryByCaller RetryBy = "caller"
)

// RetryPlan is the retry the retry action planned: the attempt it will be,
// how long after the report was received it is due, and who performs it.
type RetryPlan struct {
	Attempt      int     `json:"attempt"`
	DelaySeconds int64   `json:"delay_seconds"`
	By           RetryBy `json:"by"`
}

// Escalation is what the escalate action tells the operators.
type Escalation struct {
	ErrorID    string     `json:"error_id"`
	QueryID    string     `json:"query_id"`
	AgentID    string     `json:"agent_id"`
	ErrorType  ErrorType  `json:"error_type"`
	ErrorCode  string     `json:"error_code,omitempty"`
	Severity   Severity   `json:"severity"`
	Cause      RootCause  `json:"root_cause"`
	Attempt    int        `json:"attempt"`
	Fault      fault.Code `json:"fault_code"`
	Rule       string     `json:"rule"`
	ReportedAt time.Time  `json:"reported_at"`
	// Tenant is the tenant whose report raised it (set by the service's
	// job; empty from triage handle).
	Tenant string `json:"tenant,omitempty"`
	// Held counts the escalations of the same record held back since
	// HeldSince by the service's throttle, which this one stands for too.
	Held      int       `json:"held,omitempty"`
	HeldSince time.Time `json:"held_since,omitzero"`
}

// Notifier tells the operators about an escalation.
type Notifier interface {
	Notify(ctx context.Context, e Escalation) error
}
