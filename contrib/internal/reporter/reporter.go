package reporter

import (
	"context"
	"errors"
	"log/slog"
	"maps"
	"strings"
	"sync"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
)

// Defaults of Config.
const (
	DefaultQueueSize = 64
	DefaultTimeout   = 10 * time.Second
)

// Config configures a Reporter. Every zero field but AgentID, Client and
// Framework means the documented default.
type Config struct {
	// AgentID is the agent_id of every report: 1 to 128 letters, digits,
	// '_', '-', '.' or ':' (triage.IsIdentifier). Required.
	AgentID string
	// Client posts the reports. Required.
	Client *client.Client
	// Framework names the adapter ("eino", "langchaingo", "genkit"): the
	// framework member of data.context, the tag "framework", and the
	// prefix of the default query id. Required.
	Framework string
	// Environment and Release are the reports' environment and release.
	// Default to none.
	Environment, Release string
	// Tags are added to every report's tags (the tag "framework" is set by
	// the reporter). Default to none.
	Tags map[string]string
	// QueueSize bounds the reports waiting to be posted; a report that
	// finds the queue full is dropped and logged. Defaults to
	// DefaultQueueSize.
	QueueSize int
	// Timeout bounds each report, the client's retries included. Defaults
	// to DefaultTimeout.
	Timeout time.Duration
	// Synchronous posts each report before Report returns, and returns the
	// client's error; the queue is not used. Defaults to false: reports go
	// in the background.
	Synchronous bool
	// Logger logs the reports that fail or are dropped. Defaults to
	// slog.Default().
	Logger *slog.Logger
	// OnReport, when set, is called after each report is posted (or has
	// failed), with the report and the service's feedback or the error.
	// It runs on the reporting goroutine: it must not block for long.
	OnReport func(*triage.Report, *triage.Feedback, error)
	// Now is the clock of the reports' timestamps. Defaults to time.Now.
	Now func() time.Time
}

// Reporter reports agents' failures to the Error Handler service. It is
// safe for concurrent use.
type Reporter struct {
	cfg   Config
	log   *slog.Logger
	queue chan *triage.Report
	done  chan struct{}

	mu     sync.RWMutex // guards closed against a send on a closed queue
	closed bool

	seenMu sync.Mutex
	seen   []seenError
}

// New returns a Reporter, and starts its goroutine unless
// cfg.Synchronous. It fails with a CONFIG_ERROR *fault.Error when a
// required field is missing or the agent id is not an identifier.
func New(cfg Config) (*Reporter, error) {
	switch {
	case cfg.Client == nil:
		return nil, configError("A Triage client is required.")
	case !triage.IsIdentifier(cfg.AgentID):
		return nil, configError("The agent id must be 1 to 128 letters, digits, '_', '-', '.' or ':', starting with a letter or digit.")
	case !triage.IsIdentifier(cfg.Framework):
		return nil, configError("The framework must be named.")
	}
	if cfg.QueueSize <= 0 {
		cfg.QueueSize = DefaultQueueSize
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = DefaultTimeout
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	cfg.Tags = maps.Clone(cfg.Tags)
	r := &Reporter{cfg: cfg, log: cfg.Logger, done: make(chan struct{})}
	if r.log == nil {
		r.log = slog.Default()
	}
	if cfg.Synchronous {
		close(r.done)
		return r, nil
	}
	r.queue = make(chan *triage.Report, cfg.QueueSize)
	go r.run()
	return r, nil
}

func configError(msg string) *fault.Error {
	return fault.New(fault.ConfigError, msg, fault.WithSource("triage"))
}

// Failure is one failure of a component, as an adapter saw it.
type Failure struct {
	// Err is the component's error.
	Err error
	// Component is the kind of component that failed ("ChatModel",
	// "Tool", "Chain", "Model", "Flow").
	Component string
	// Name is the component's or node's name, "" when it has none.
	Name string
	// Outer is the name of the outermost component of the run (the
	// graph, the flow), which names the default query; "" for Name.
	Outer string
}

// Report reports f, with the query, session, run and trace of ctx. It
// returns at once and never fails unless Config.Synchronous; then it
// returns the client's error. A nil f.Err reports nothing.
func (r *Reporter) Report(ctx context.Context, f Failure) error {
	if f.Err == nil {
		return nil
	}
	rep := r.build(ctx, f)
	if r.cfg.Synchronous {
		return r.post(context.WithoutCancel(ctx), rep)
	}
	r.mu.RLock()
	defer r.mu.RUnlock()
	if r.closed {
		r.log.WarnContext(ctx, "triage: report after Close, dropped", slog.String("agent_id", rep.AgentID),
			slog.String("query_id", rep.Data.QueryID), slog.String("code", rep.Data.ErrorCode))
		return nil
	}
	select {
	case r.queue <- rep:
	default:
		r.log.WarnContext(ctx, "triage: report queue full, report dropped", slog.String("agent_id", rep.AgentID),
			slog.String("query_id", rep.Data.QueryID), slog.String("code", rep.Data.ErrorCode), slog.Int("queue", cap(r.queue)))
	}
	return nil
}

func (r *Reporter) run() {
	defer close(r.done)
	for rep := range r.queue {
		_ = r.post(context.Background(), rep) // logged by post
	}
}

// post sends one report, bounded by the timeout, logs a failure and calls
// OnReport.
func (r *Reporter) post(ctx context.Context, rep *triage.Report) error {
	ctx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	fb, err := r.cfg.Client.Report(ctx, rep, nil)
	if err != nil {
		r.log.WarnContext(ctx, "triage: report failed", slog.String("agent_id", rep.AgentID),
			slog.String("query_id", rep.Data.QueryID), slog.String("code", rep.Data.ErrorCode), slog.Any("error", err))
	}
	if r.cfg.OnReport != nil {
		r.cfg.OnReport(rep, fb, err)
	}
	return err
}

// Close stops taking reports and waits until those queued are posted, or
// until ctx is done (then it returns ctx's error; the rest are posted in
// the background, each within the timeout). Reports after Close are
// dropped and logged. Close is safe to call more than once.
func (r *Reporter) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed && r.queue != nil {
		close(r.queue)
	}
	r.closed = true
	r.mu.Unlock()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// SeenWindow is how long Seen remembers a reported error.
const SeenWindow = 10 * time.Second

// maxSeen bounds the errors Seen remembers.
const maxSeen = 64

type seenError struct {
	err   error
	query string
	at    time.Time
}

// Seen reports whether err is, or wraps (errors.Is), an error Seen was
// given under the same query of ctx less than SeenWindow ago; if not, it
// remembers err. An adapter whose framework announces one failure at each
// level (the model, then each chain around it) reports only what Seen has
// not seen.
func (r *Reporter) Seen(ctx context.Context, err error) bool {
	now := r.cfg.Now()
	query := IDsOf(ctx).Query
	r.seenMu.Lock()
	defer r.seenMu.Unlock()
	kept := r.seen[:0]
	for _, s := range r.seen {
		if now.Sub(s.at) < SeenWindow {
			kept = append(kept, s)
		}
	}
	r.seen = kept
	for _, s := range r.seen {
		if s.query == query && errors.Is(err, s.err) {
			return true
		}
	}
	if len(r.seen) == maxSeen {
		r.seen = append(r.seen[:0], r.seen[1:]...)
	}
	r.seen = append(r.seen, seenError{err: err, query: query, at: now})
	return false
}

// oneLine is s with its runs of white space as one space.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
