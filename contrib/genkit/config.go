package triagegenkit

import (
	"context"
	"log/slog"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/contrib/internal/reporter"
)

// Config configures a Reporter. Every zero field but AgentID and Client
// means the documented default.
type Config struct {
	// AgentID is the agent_id of every report: 1 to 128 letters, digits,
	// '_', '-', '.' or ':'. Required.
	AgentID string
	// Client posts the reports (client.New). Required.
	Client *client.Client
	// Environment and Release are the reports' environment and release.
	// Default to none.
	Environment, Release string
	// Tags are added to every report's tags, beside "framework": "genkit".
	// Default to none.
	Tags map[string]string
	// QueueSize bounds the reports waiting to be posted; one that finds
	// the queue full is dropped and logged. Defaults to 64.
	QueueSize int
	// Timeout bounds each report, the client's retries included. Defaults
	// to 10s.
	Timeout time.Duration
	// Synchronous posts each report before the middleware returns, within
	// Timeout, instead of in the background. Defaults to false.
	Synchronous bool
	// ReportErrors, with Synchronous, joins a failed report's error to the
	// failure the middleware returns (errors.Join: the failure first).
	// Defaults to false: a failed report is logged, never the flow's
	// error.
	ReportErrors bool
	// Logger logs the reports that fail or are dropped. Defaults to
	// slog.Default().
	Logger *slog.Logger
	// OnReport, when set, is called after each report with the report and
	// the service's feedback, or the error. It runs on the reporting
	// goroutine. Defaults to none.
	OnReport func(*triage.Report, *triage.Feedback, error)
}

func (c Config) reporter() (*reporter.Reporter, error) {
	return reporter.New(reporter.Config{AgentID: c.AgentID, Client: c.Client, Framework: "genkit",
		Environment: c.Environment, Release: c.Release, Tags: c.Tags, QueueSize: c.QueueSize, Timeout: c.Timeout,
		Synchronous: c.Synchronous, Logger: c.Logger, OnReport: c.OnReport})
}

// WithQuery returns ctx naming the user's query the flow serves: the
// data.query_id of its reports (1 to 128 letters, digits, '_', '-', '.'
// or ':'; another is ignored). Without it, a report's query is "genkit:" and the name the
// outermost middleware was given (the flow's), or "genkit:run".
func WithQuery(ctx context.Context, queryID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Query: queryID})
}

// WithSession returns ctx naming the session the flow serves: the
// session_id of its reports' data.context.
func WithSession(ctx context.Context, sessionID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Session: sessionID})
}

// WithRun returns ctx naming the run: the run_id of its reports'
// data.context.
func WithRun(ctx context.Context, runID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Run: runID})
}
