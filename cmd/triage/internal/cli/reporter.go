package cli

import (
	"context"
	"encoding/json"
	"log/slog"
	"sync"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/server"
)

// reporterQueue bounds the failures a reporter holds while it sends them.
const reporterQueue = 256

// reporter posts triage bridge's failed tool calls to a Triage service
// (--service): each failure (server.MCPFailure, unless its agent opted
// out) as a report, through the Go client (its retries, the failure's
// idempotency key), one at a time, aside from the calls. Its record is
// the bridge's OnFailure func. Unlike the service's own recordings, which
// are durable jobs, its queue is in memory: a failure still queued when
// close's deadline passes, or past reporterQueue held, is not sent, and
// is logged and counted (dropped).
type reporter struct {
	c      *client.Client
	agents *agent.Manager
	log    *slog.Logger
	queue  chan queued
	done   chan struct{}

	mu      sync.Mutex
	closed  bool
	dropped int
}

// queued is a report waiting to be sent, with its idempotency key.
type queued struct {
	report triage.Report
	key    string
}

func newReporter(c *client.Client, m *agent.Manager, log *slog.Logger) *reporter {
	r := &reporter{c: c, agents: m, log: log, queue: make(chan queued, reporterQueue), done: make(chan struct{})}
	go r.send()
	return r
}

// record queues c's report, without waiting for it to be sent.
func (r *reporter) record(ctx context.Context, c bridge.CallFailure) {
	f, ok := server.MCPFailure(ctx, r.agents, c)
	if !ok {
		return
	}
	body, err := f.Report()
	var rep triage.Report
	if err == nil {
		err = json.Unmarshal(body, &rep)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	switch {
	case err != nil:
		r.dropped++
		r.log.Warn("a failed tool call was not reported: its report could not be made", "tool", c.Tool, "error", fault.From(err))
	case r.closed:
		r.dropped++
		r.log.Warn("a failed tool call was not reported: the bridge is stopping", "tool", c.Tool)
	default:
		select {
		case r.queue <- queued{report: rep, key: f.Key()}:
		default:
			r.dropped++
			r.log.Warn("a failed tool call was not reported: too many are waiting", "tool", c.Tool, "queue", reporterQueue)
		}
	}
}

// send posts the queued reports until close.
func (r *reporter) send() {
	defer close(r.done)
	for q := range r.queue {
		rep := q.report
		if _, err := r.c.Report(context.Background(), &rep, &client.ReportOptions{IdempotencyKey: q.key}); err != nil {
			r.mu.Lock()
			r.dropped++
			r.mu.Unlock()
			r.log.Warn("a failed tool call could not be reported", "code", rep.Data.ErrorCode, "error", fault.From(err))
		}
	}
}

// close stops taking failures and waits for the queued ones to be sent,
// until ctx ends; it returns how many were not sent (dropped, refused,
// or still queued).
func (r *reporter) close(ctx context.Context) int {
	r.mu.Lock()
	if !r.closed {
		r.closed = true
		close(r.queue)
	}
	r.mu.Unlock()
	unsent := 0
	select {
	case <-r.done:
	case <-ctx.Done():
		unsent = len(r.queue)
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.dropped + unsent
}
