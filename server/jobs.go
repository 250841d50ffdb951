package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The job worker's settings.
const (
	// jobLease is how long a claimed job is the worker's; a job not done
	// by then (the instance died) is claimed again: at least once.
	jobLease = 2 * time.Minute
	// jobBatch is how many jobs one poll claims. They run one after the
	// other, each bounded by the HTTP client's timeout (10 s by default),
	// so that a batch ends well within its lease.
	jobBatch = 8
	// jobBackoffBase and jobBackoffMax shape the backoff between attempts.
	jobBackoffBase = 5 * time.Second
	jobBackoffMax  = 10 * time.Minute
)

// errPermanent marks a job failure that no retry can fix.
var errPermanent = errors.New("permanent")

// work runs due jobs until ctx ends.
func (s *Server) work(ctx context.Context) {
	tick := time.NewTicker(s.cfg.JobPoll)
	defer tick.Stop()
	for {
		s.runDue(ctx)
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
		}
	}
}

// runDue claims the due jobs and runs them, one after the other.
func (s *Server) runDue(ctx context.Context) {
	jobs, err := s.cfg.Store.Jobs().Claim(ctx, jobBatch, jobLease)
	if err != nil {
		if ctx.Err() == nil {
			s.log.Warn("claiming jobs failed", slog.Any("error", fault.From(err)))
		}
		return
	}
	for _, j := range jobs {
		s.runJob(context.WithoutCancel(ctx), j)
	}
}

// runJob makes one attempt at a job and records it.
func (s *Server) runJob(ctx context.Context, j store.Job) {
	start := s.cfg.Now()
	err := s.attempt(ctx, j)
	a := store.JobAttempt{Attempt: j.Attempt, At: start.UTC(), Duration: s.cfg.Now().Sub(start)}
	jobs := s.cfg.Store.Jobs()
	attrs := []any{slog.Int64("job_id", j.ID), slog.String("kind", j.Kind), slog.String("error_id", j.ErrorID),
		slog.Int("attempt", j.Attempt)}
	if err == nil {
		s.metrics.jobs.WithLabelValues(j.Kind, "succeeded").Inc()
		if cerr := jobs.Complete(ctx, j.ID, a); cerr != nil {
			s.log.Error("recording a job failed", append(attrs, slog.Any("error", fault.From(cerr)))...)
		}
		return
	}
	f := fault.From(err)
	a.Error = strings.TrimPrefix(fault.Redact(err.Error()), errPermanent.Error()+": ")
	var retryAt time.Time
	if !errors.Is(err, errPermanent) && j.Attempt < j.MaxAttempts {
		retryAt = s.cfg.Now().Add(jobBackoff(j.Attempt, f.RetryAfter))
	}
	outcome := "retrying"
	if retryAt.IsZero() {
		outcome = "failed"
	}
	s.metrics.jobs.WithLabelValues(j.Kind, outcome).Inc()
	s.log.Warn("job attempt failed", append(attrs, slog.String("outcome", outcome), slog.String("reason", a.Error))...)
	if ferr := jobs.Fail(ctx, j.ID, a, retryAt); ferr != nil {
		s.log.Error("recording a job failed", append(attrs, slog.Any("error", fault.From(ferr)))...)
	}
}

// jobBackoff is the wait before the attempt after attempt: exponential,
// never shorter than the peer's Retry-After.
func jobBackoff(attempt int, retryAfter time.Duration) time.Duration {
	d := jobBackoffBase
	for i := 1; i < attempt && d < jobBackoffMax; i++ {
		d *= 2
	}
	d = min(d, jobBackoffMax)
	return max(d, retryAfter)
}

// attempt runs a job once.
func (s *Server) attempt(ctx context.Context, j store.Job) error {
	switch j.Kind {
	case store.JobRetry:
		var rj triage.RetryJob
		if err := json.Unmarshal(j.Payload, &rj); err != nil {
			return fmt.Errorf("%w: the job's payload is not a retry: %v", errPermanent, err)
		}
		agent, ok, err := s.cfg.Store.Tenant(j.Tenant).Agent(ctx, rj.AgentID)
		if err != nil {
			return err
		}
		if !ok || agent.CallbackURL == "" {
			return fmt.Errorf("%w: agent %q has no callback URL (PUT /v1/agents/%s)", errPermanent, rj.AgentID, rj.AgentID)
		}
		return s.post(ctx, agent.CallbackURL, j.Payload)
	case store.JobEscalation:
		if s.cfg.Webhook == "" {
			s.log.Warn("escalation", slog.String("tenant", j.Tenant), slog.String("error_id", j.ErrorID),
				slog.String("escalation", string(j.Payload)))
			return nil
		}
		return s.post(ctx, s.cfg.Webhook, j.Payload)
	}
	return fmt.Errorf("%w: unknown job kind %q", errPermanent, j.Kind)
}

// post delivers a job's JSON; a 2xx answer is success, and 4xx answers
// other than 408, 409 and 429 are permanent failures.
func (s *Server) post(ctx context.Context, url string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(payload))
	if err != nil {
		return fmt.Errorf("%w: %v", errPermanent, err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "triage-serve")
	resp, err := s.cfg.HTTPClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	f := fault.FromStatus(resp.StatusCode, resp.Header, s.cfg.Now())
	f.Message = fmt.Sprintf("%s answered %d", fault.Redact(req.URL.Redacted()), resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return f
	}
	if resp.StatusCode/100 == 4 {
		return fmt.Errorf("%w: %w", errPermanent, f)
	}
	return f
}
