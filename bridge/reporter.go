package bridge

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
)

// DefaultReporterQueue bounds the failures a Reporter holds while it
// sends them.
const DefaultReporterQueue = 256

// Reporter records a bridge's failed tool calls at a Triage service, as
// triage bridge --service does: each failure (CallFailure.Failure, unless
// its agent opted out) is posted as a report (client.Client.Report, under
// the failure's idempotency key, with the client's retries), one at a
// time, aside from the calls. Its Record is a Bridge's OnFailure func.
//
// Unlike the service's own recordings, which are durable jobs, a
// Reporter's queue is in memory: a failure still queued when Close's
// deadline passes, or past DefaultReporterQueue held, is dropped, logged
// and counted (Dropped).
type Reporter struct {
	c      *client.Client
	agents *agent.Manager
	log    *slog.Logger

	queue chan queued
	done  chan struct{}

	mu      sync.Mutex
	closed  bool
	dropped int
}

// queued is a report waiting to be sent, with its idempotency key.
type queued struct {
	report triage.Report
	key    string
}

// NewReporter returns a Reporter posting with c, for the agents of m,
// logging to log (nil: no logs). Close it.
func NewReporter(c *client.Client, m *agent.Manager, log *slog.Logger) *Reporter {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	r := &Reporter{c: c, agents: m, log: log, queue: make(chan queued, DefaultReporterQueue), done: make(chan struct{})}
	go r.send()
	return r
}

// Record queues c's report, without waiting for it to be sent.
func (r *Reporter) Record(ctx context.Context, c CallFailure) {
	f, ok := c.Failure(ctx, r.agents)
	if !ok {
		return
	}
	body, err := f.Report()
	var rep triage.Report
	if err == nil {
		err = json.Unmarshal(body, &rep)
	}
	if err != nil {
		r.drop("the failure's report could not be made", c, err)
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		r.dropped++
		r.log.Warn("a failed tool call was not reported: the bridge is stopping", "tool", c.Tool, "code", string(c.Fault.Code))
		return
	}
	select {
	case r.queue <- queued{report: rep, key: f.Key()}:
	default:
		r.dropped++
		r.log.Warn("a failed tool call was not reported: too many are waiting", "tool", c.Tool, "code", string(c.Fault.Code),
			"queue", DefaultReporterQueue)
	}
}

// send posts the queued reports until Close.
func (r *Reporter) send() {
	defer close(r.done)
	for q := range r.queue {
		rep := q.report
		if _, err := r.c.Report(context.Background(), &rep, &client.ReportOptions{IdempotencyKey: q.key}); err != nil {
			r.mu.Lock()
			r.dropped++
			r.mu.Unlock()
			r.log.Warn("a failed tool call could not be reported", "tool", rep.Data.Context["tool"], "code", rep.Data.ErrorCode,
				"error", fault.From(err))
		}
	}
}

// drop logs and counts a failure not reported.
func (r *Reporter) drop(msg string, c CallFailure, err error) {
	r.mu.Lock()
	r.dropped++
	r.mu.Unlock()
	r.log.Warn(msg, "tool", c.Tool, "error", fault.From(err))
}

// Dropped is how many failures were not reported: dropped, or refused by
// the service once the client's retries were spent.
func (r *Reporter) Dropped() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped
}

// Close stops taking failures and waits for the queued ones to be sent,
// until ctx ends (then it returns ctx.Err(); the sending goes on until
// the process exits). Call it once the bridge has shut down (its
// Shutdown waits for the failures being told).
func (r *Reporter) Close(ctx context.Context) error {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	select {
	case <-r.done:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
