package triagelangchaingo

import (
	"context"
	"log/slog"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/contrib/internal/reporter"
)

// Config configures a Handler. Every zero field but AgentID and Client
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
	// Tags are added to every report's tags, beside "framework": "langchaingo".
	// Default to none.
	Tags map[string]string
	// QueueSize bounds the reports waiting to be posted; one that finds
	// the queue full is dropped and logged. Defaults to 64.
	QueueSize int
	// Timeout bounds each report, the client's retries included. Defaults
	// to 10s.
	Timeout time.Duration
	// Synchronous posts each report before the callback returns, within
	// Timeout, instead of in the background. A callback cannot change the
	// chain's error: a failed report is logged either way. Defaults to
	// false.
	Synchronous bool
	// Logger logs the reports that fail or are dropped. Defaults to
	// slog.Default().
	Logger *slog.Logger
	// OnReport, when set, is called after each report with the report and
	// the service's feedback, or the error. It runs on the reporting
	// goroutine. Defaults to none.
	OnReport func(*triage.Report, *triage.Feedback, error)
}

func (c Config) reporter() (*reporter.Reporter, error) {
	return reporter.New(reporter.Config{AgentID: c.AgentID, Client: c.Client, Framework: "langchaingo",
		Environment: c.Environment, Release: c.Release, Tags: c.Tags, QueueSize: c.QueueSize, Timeout: c.Timeout,
		Synchronous: c.Synchronous, Logger: c.Logger, OnReport: c.OnReport})
}

// WithQuery returns ctx naming the user's query the chain or agent serves: the
// data.query_id of its reports (1 to 128 letters, digits, '_', '-', '.'
// or ':'; another is ignored). Without it, a report's query is "langchaingo:run".
func WithQuery(ctx context.Context, queryID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Query: queryID})
}

// WithSession returns ctx naming the session the chain or agent serves: the
// session_id of its reports' data.context.
func WithSession(ctx context.Context, sessionID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Session: sessionID})
}

// WithRun returns ctx naming the run: the run_id of its reports'
// data.context.
func WithRun(ctx context.Context, runID string) context.Context {
	return reporter.WithIDs(ctx, reporter.IDs{Run: runID})
}
