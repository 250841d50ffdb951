package server

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// work runs the jobs of the store's queue (River) until ctx ends.
func (s *Server) work(ctx context.Context) {
	o := s.cfg.JobOptions
	o.Poll = s.cfg.JobPoll
	if o.Logger == nil {
		o.Logger = s.log.With(slog.String("component", "river"))
	}
	if err := s.cfg.Store.Jobs().Work(ctx, s.runJob, o); err != nil {
		s.log.Error("the job worker stopped", slog.Any("error", fault.From(err)))
	}
}

// runJob makes one attempt at a job, counts and logs its outcome. The
// error it returns, which River records with the attempt, carries the
// failure's fault (its Retry-After steers the next attempt) and a
// message with secrets redacted. A job whose tenant has its share of the
// workers running is put off instead (see deferral).
func (s *Server) runJob(ctx context.Context, j store.Job) error {
	if !s.jobShares.acquire(j.Tenant) {
		s.metrics.jobs.WithLabelValues(j.Kind, "deferred").Inc()
		d := deferral(j.Deferred)
		s.log.Debug("job put off: its tenant's share of the workers is taken", slog.Int64("job_id", j.ID),
			slog.String("kind", j.Kind), slog.Int("tenant_job_workers", s.cfg.TenantJobWorkers), slog.Duration("for", d))
		return store.Defer(d)
	}
	defer s.jobShares.release(j.Tenant)
	ctx, span := s.jobTracer.startJob(ctx, j)
	err := s.attempt(ctx, j)
	endJobSpan(span, err)
	attrs := []any{slog.Int64("job_id", j.ID), slog.String("kind", j.Kind), slog.String("error_id", j.ErrorID),
		slog.Int("attempt", j.Attempt)}
	if err == nil {
		s.metrics.jobs.WithLabelValues(j.Kind, "succeeded").Inc()
		return nil
	}
	msg := strings.TrimPrefix(fault.Redact(err.Error()), store.ErrPermanent.Error()+": ")
	outcome := "retrying"
	if errors.Is(err, store.ErrPermanent) || j.Attempt >= j.MaxAttempts {
		outcome = "failed"
	}
	s.metrics.jobs.WithLabelValues(j.Kind, outcome).Inc()
	s.log.Warn("job attempt failed", append(attrs, slog.String("outcome", outcome), slog.String("reason", msg))...)
	return &jobError{msg: msg, err: err}
}

// deferral is how long a job put off n times before is put off now: 1 s
// doubled n times, at most 30 s, less up to a fifth at random (so that a
// tenant's jobs put off together come back apart). A job put off for less
// than River's scheduler interval (5 s) is due again at once after it;
// a longer one waits for the scheduler, which also spares the queue the
// writes of a tarpit's jobs coming back every second.
func deferral(n int) time.Duration {
	d := min(time.Second<<min(max(n, 0), 5), 30*time.Second)
	return d - time.Duration(rand.Int64N(int64(d/5)+1))
}

// jobError is a failed attempt's error as recorded: its message redacted.
type jobError struct {
	msg string
	err error
}

func (e *jobError) Error() string { return e.msg }
func (e *jobError) Unwrap() error { return e.err }

// attempt runs a job once.
func (s *Server) attempt(ctx context.Context, j store.Job) error {
	switch j.Kind {
	case store.JobRetry:
		var rj triage.RetryJob
		if err := json.Unmarshal(j.Payload, &rj); err != nil {
			return fmt.Errorf("%w: the job's payload is not a retry: %v", store.ErrPermanent, err)
		}
		agent, ok, err := s.cfg.Store.Tenant(j.Tenant).Agent(ctx, rj.AgentID)
		if err != nil {
			return err
		}
		if !ok || agent.CallbackURL == "" {
			return fmt.Errorf("%w: agent %q has no callback URL (PUT /v1/callbacks/%s)", store.ErrPermanent, rj.AgentID, rj.AgentID)
		}
		return s.post(ctx, s.callbacks, "callback", agent.CallbackURL, j.Payload)
	case store.JobEscalation:
		if s.cfg.Webhook == "" {
			s.log.Warn("escalation", slog.String("tenant", j.Tenant), slog.String("error_id", j.ErrorID),
				slog.String("escalation", string(j.Payload)))
			return nil
		}
		return s.post(ctx, s.cfg.HTTPClient, "webhook", s.cfg.Webhook, j.Payload)
	}
	return fmt.Errorf("%w: unknown job kind %q", store.ErrPermanent, j.Kind)
}

// post delivers a job's JSON with client; a 2xx answer is success, and
// 4xx answers other than 408, 409 and 429 are permanent failures. Its
// errors name the target, what ("callback" or "webhook"), by scheme and
// host only: a URL's path and query may hold a credential (Slack's
// /services/T/B/secret, Discord's /api/webhooks/id/token), and the
// attempt's error is shown to the tenant and logged.
func (s *Server) post(ctx context.Context, client *http.Client, what, target string, payload []byte) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, target, bytes.NewReader(payload))
	if err != nil {
		// url.Parse's error quotes the URL, and its reason may quote a part.
		return fmt.Errorf("%w: the %s URL does not parse", store.ErrPermanent, what)
	}
	origin := urlOrigin(req.URL)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "triage-serve")
	s.jobTracer.inject(ctx, req.Header)
	resp, err := client.Do(req)
	if errors.Is(err, errPrivateAddress) {
		return fmt.Errorf("%w: the %s %s is at a loopback, private or link-local address, which this service does not call (unless started with --private-callbacks)",
			store.ErrPermanent, what, origin)
	}
	if err != nil {
		return originOnly(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	f := fault.FromStatus(resp.StatusCode, resp.Header, s.cfg.Now())
	f.Message = fmt.Sprintf("the %s %s answered %d", what, origin, resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return f
	}
	if resp.StatusCode/100 == 4 {
		return fmt.Errorf("%w: %w", store.ErrPermanent, f)
	}
	return f
}

// urlOrigin is u's scheme://host[:port]: none of its userinfo, path,
// query or fragment.
func urlOrigin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// originOnly cuts the URL of err, an http.Client's *url.Error ("Post
// \"https://hooks.example/services/T/B/secret\": dial tcp …"), to its
// scheme and host. It stays a *url.Error, a copy (Client.Do returns it
// bare, at the top), so Timeout(), errors.Is and errors.As see through it
// as before. (A redirect's error names the URL redirected to: its origin,
// then.)
func originOnly(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	cut := *ue
	cut.URL = "(URL withheld)"
	if u, perr := url.Parse(ue.URL); perr == nil {
		cut.URL = urlOrigin(u)
	}
	return &cut
}
