package service

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/propagation"
	semconv "go.opentelemetry.io/otel/semconv/v1.43.0"
	"go.opentelemetry.io/otel/trace"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/webhook"
)

// Jobs configures the worker that runs the tenants' durable jobs (Work):
// the retries posted to the agents' callbacks, the escalations posted to
// the operators' webhook. Every zero field means the documented default.
type Jobs struct {
	// Webhook receives the escalations (package webhook: the escalation's
	// JSON, with an Idempotency-Key naming it). Defaults to "": each is
	// logged instead.
	Webhook string
	// HTTPClient makes the posts. Defaults to a client with a 10-second
	// timeout. The callbacks go through a copy that refuses private
	// addresses (see PrivateCallbacks); the webhook, the operator's, is
	// called as it is.
	HTTPClient *http.Client
	// EscalationThrottle is the least time between two escalations of one
	// record posted to Webhook (or logged): the others in between are
	// held back and counted, and the next escalation posted says how many
	// it stands for (Escalation.Held), so that one failure repeated 153
	// times is one escalation and a count. Every instance sharing the
	// store keeps to it (store.Throttles). Default triage.DefaultThrottle
	// (an hour); negative: every escalation is posted.
	EscalationThrottle time.Duration
	// PrivateCallbacks lets the agents' callbacks reach loopback, private
	// and link-local addresses (RefusesCallback). Without it a callback's
	// connection to such an address is refused as it connects (so that a
	// name resolving to one, or rebinding to one, does not get past) and
	// the job fails for good. The check dials through a clone of
	// HTTPClient's *http.Transport, without its proxy; a Transport of
	// another type is used unchecked, with a warning.
	PrivateCallbacks bool
	// Options tune the worker (River: store.Jobs.Work), its Poll
	// included. Options.Logger defaults to Config.Logger with
	// component=river.
	Options store.WorkOptions
	// TenantWorkers bounds the jobs of one tenant running at once, within
	// Options.Workers: a job fetched while its tenant has them all running
	// is put off (store.Defer), not attempted. Defaults to all the
	// workers.
	TenantWorkers int
	// TracerProvider makes a span per attempt, a child of the span that
	// enqueued the job, and its trace context goes with the post.
	// Defaults to nil: no job spans.
	TracerProvider trace.TracerProvider
	// Propagator writes the attempt's trace context on its post. Defaults
	// to W3C trace context and baggage.
	Propagator propagation.TextMapPropagator
}

// worker is what Work runs with: the Jobs configuration made ready.
type worker struct {
	cfg Jobs
	// callbacks makes the retry jobs' posts: HTTPClient, through
	// guardedClient unless PrivateCallbacks.
	callbacks *http.Client
	shares    *Shares
	tracer    trace.Tracer // nil: no job spans
	attempts  *prometheus.CounterVec
	// held counts the escalations the throttle held back, alertsHeld the
	// alert rules' firings.
	held, alertsHeld prometheus.Counter
	// failures counts the recordings of the doors' own failures.
	failures *prometheus.CounterVec
}

// escalationThrottle is EscalationThrottle in effect: its default for 0,
// and 0 when escalations are not throttled (negative).
func (c Jobs) escalationThrottle() time.Duration {
	switch every := c.EscalationThrottle; {
	case every == 0:
		return triage.DefaultThrottle
	case every < 0:
		return 0
	default:
		return every
	}
}

func newWorker(cfg Jobs, log *slog.Logger) *worker {
	if cfg.HTTPClient == nil {
		cfg.HTTPClient = &http.Client{Timeout: webhook.DefaultTimeout}
	}
	if cfg.Options.Workers <= 0 {
		cfg.Options.Workers = store.DefaultJobWorkers
	}
	if cfg.TenantWorkers <= 0 {
		cfg.TenantWorkers = cfg.Options.Workers
	}
	cfg.TenantWorkers = min(cfg.TenantWorkers, cfg.Options.Workers)
	if cfg.Propagator == nil {
		cfg.Propagator = propagation.NewCompositeTextMapPropagator(propagation.TraceContext{}, propagation.Baggage{})
	}
	w := &worker{cfg: cfg, callbacks: cfg.HTTPClient, shares: NewShares(cfg.TenantWorkers),
		attempts: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_jobs_total",
			Help: "Job attempts, by kind and outcome (succeeded, retrying, failed; deferred: put off, its tenant's share of the workers taken).",
		}, []string{"kind", "outcome"}),
		held: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "triage_escalations_held_total",
			Help: "Escalations held back by the throttle (Jobs.EscalationThrottle): the next one posted of the same record counts them.",
		}),
		alertsHeld: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "triage_alerts_held_total",
			Help: "Alert rules' firings held back by their throttle: the next notification (or the digest) of the rule, target and subject counts them.",
		}),
		failures: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "triage_door_failures_total",
			Help: "The recordings of the doors' own failures (failed AG-UI runs, failed MCP tool calls) as occurrences, by door and outcome: queued (its job enqueued), recorded (its report saved), retrying (an attempt failed; it runs again), failed (not enqueued, or given up).",
		}, []string{"door", "outcome"})}
	if !cfg.PrivateCallbacks {
		w.callbacks = guardedClient(cfg.HTTPClient, log)
	}
	if cfg.TracerProvider != nil {
		w.tracer = cfg.TracerProvider.Tracer("github.com/triage-go/triage/service")
	}
	return w
}

// Work runs the tenants' durable jobs (River, through the store) until ctx
// ends: each retry is posted to its agent's callback URL, each escalation
// to Jobs.Webhook (or logged), through package webhook. An attempt's
// outcome is counted in triage_jobs_total and a failure logged; the error
// River records with it names the target by scheme and host only. Work
// returns the store's error if the worker could not run or stopped.
func (s *Service) Work(ctx context.Context) error {
	o := s.worker.cfg.Options
	if o.Logger == nil && s.cfg.Logger != nil {
		o.Logger = s.cfg.Logger.With(slog.String("component", "river"))
	}
	return s.cfg.Store.Jobs().Work(ctx, s.runJob, o)
}

// RefusesCallback reports whether the jobs would refuse to call
// callbackURL, by its host alone: "localhost" (or a name under it) or a
// literal loopback, private, link-local or other special-use IP address,
// unless Jobs.PrivateCallbacks. (A name that resolves to such an address
// is refused when the callback connects.) A URL that does not parse is
// not refused here: the door checks its form.
func (s *Service) RefusesCallback(callbackURL string) bool {
	if s.worker.cfg.PrivateCallbacks {
		return false
	}
	u, err := url.Parse(callbackURL)
	return err == nil && privateHost(u.Hostname())
}

// runJob makes one attempt at a job, counts and logs its outcome. The
// error it returns, which River records with the attempt, carries the
// failure's fault (its Retry-After steers the next attempt) and a
// message with secrets redacted. A job whose tenant has its share of the
// workers running is put off instead (see deferral).
func (s *Service) runJob(ctx context.Context, j store.Job) error {
	w := s.worker
	if !w.shares.Acquire(j.Tenant) {
		w.attempts.WithLabelValues(j.Kind, "deferred").Inc()
		d := deferral(j.Deferred)
		s.log(ctx, slog.LevelDebug, "job put off: its tenant's share of the workers is taken", slog.Int64("job_id", j.ID),
			slog.String("kind", j.Kind), slog.Int("tenant_job_workers", w.cfg.TenantWorkers), slog.Duration("for", d))
		return store.Defer(d)
	}
	defer w.shares.Release(j.Tenant)
	ctx, span := w.startSpan(ctx, j)
	err := s.attempt(ctx, j)
	endJobSpan(span, err)
	attrs := []any{slog.Int64("job_id", j.ID), slog.String("kind", j.Kind), slog.String("error_id", j.ErrorID),
		slog.Int("attempt", j.Attempt)}
	if err == nil {
		w.attempts.WithLabelValues(j.Kind, "succeeded").Inc()
		return nil
	}
	msg := strings.TrimPrefix(fault.Redact(err.Error()), store.ErrPermanent.Error()+": ")
	outcome := "retrying"
	if errors.Is(err, store.ErrPermanent) || j.Attempt >= j.MaxAttempts {
		outcome = "failed"
	}
	w.attempts.WithLabelValues(j.Kind, outcome).Inc()
	s.log(ctx, slog.LevelWarn, "job attempt failed", append(attrs, slog.String("outcome", outcome), slog.String("reason", msg))...)
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
func (s *Service) attempt(ctx context.Context, j store.Job) error {
	w := s.worker
	switch j.Kind {
	case store.JobRetry:
		rj, err := decodePayload[triage.RetryJob]("a retry", j.Payload)
		if err != nil {
			return err
		}
		agent, ok, err := s.cfg.Store.Tenant(j.Tenant).Agent(ctx, rj.AgentID)
		if err != nil {
			return err
		}
		if !ok || agent.CallbackURL == "" {
			return fmt.Errorf("%w: agent %q has no callback URL (PUT /v1/callbacks/%s)", store.ErrPermanent, rj.AgentID, rj.AgentID)
		}
		return w.send(ctx, w.callbacks, webhook.Post{What: "callback", URL: agent.CallbackURL, Body: j.Payload})
	case store.JobEscalation:
		f := store.Firing{Send: true}
		if every := w.cfg.escalationThrottle(); every > 0 {
			// The first escalation held leaves the digest that posts the
			// held ones if none posted carries them: an alert job to the
			// operators' webhook (Target "").
			digest, err := json.Marshal(alertJob{Rule: triage.EscalationRule, When: triage.TriggerEscalation, Subject: j.ErrorID,
				Throttle: int(every / time.Second), Digest: true, Escalation: j.Payload})
			if err != nil {
				return err
			}
			f, err = s.cfg.Store.Tenant(j.Tenant).FireAlert(ctx, triage.EscalationRule, j.ErrorID, every, j.ID,
				&store.NewJob{Kind: store.JobAlert, ErrorID: j.ErrorID, Payload: digest, Trace: j.Trace})
			if err != nil {
				return err
			}
			if !f.Send {
				w.held.Inc()
				return nil // held back: the next escalation posted, or the digest, counts it
			}
		}
		return s.postEscalation(ctx, j.Tenant, j.ErrorID, j.Payload, f)
	case store.JobAlert:
		return s.attemptAlert(ctx, j)
	case store.JobRecordFailure:
		return s.recordFailure(ctx, j)
	}
	return fmt.Errorf("%w: unknown job kind %q", store.ErrPermanent, j.Kind)
}

// postEscalation posts an escalation (its payload as the job holds it) to
// the operators' webhook, or logs it, standing for the escalations f
// says were held.
func (s *Service) postEscalation(ctx context.Context, tenant, errorID string, payload []byte, f store.Firing) error {
	w := s.worker
	e, err := decodePayload[triage.Escalation]("an escalation", payload)
	if err != nil {
		return err
	}
	e.Tenant = tenant
	e.Held, e.HeldSince = f.Held, f.HeldSince
	if w.cfg.Webhook == "" {
		doc, err := json.Marshal(e)
		if err != nil {
			return err
		}
		s.log(ctx, slog.LevelWarn, "escalation", slog.String("tenant", tenant), slog.String("error_id", errorID),
			slog.String("escalation", string(doc)))
		return nil
	}
	p, err := webhook.Escalation(w.cfg.Webhook, e)
	if err != nil {
		return fmt.Errorf("%w: %v", store.ErrPermanent, err)
	}
	return w.send(ctx, w.cfg.HTTPClient, p)
}

// decodePayload reads a job's payload, as the service stored it, into a
// T; a payload that is not one fails the job for good (store.ErrPermanent:
// no attempt would read it better).
func decodePayload[T any](what string, payload []byte) (T, error) {
	var v T
	if err := json.Unmarshal(payload, &v); err != nil {
		return v, fmt.Errorf("%w: the job's payload is not %s: %v", store.ErrPermanent, what, err)
	}
	return v, nil
}

// send posts p with client (webhook.Send), the attempt's trace context on
// it; a failure that posting again would meet (webhook.Permanent), or a
// callback at an address refused, fails the job for good.
func (w *worker) send(ctx context.Context, client *http.Client, p webhook.Post) error {
	if w.tracer != nil {
		p.Header = http.Header{}
		w.cfg.Propagator.Inject(ctx, propagation.HeaderCarrier(p.Header))
	}
	err := webhook.Send(ctx, client, p)
	switch {
	case errors.Is(err, errPrivateAddress):
		origin := "URL"
		if u, perr := url.Parse(p.URL); perr == nil {
			origin = webhook.Origin(u)
		}
		return fmt.Errorf("%w: the %s %s is at a loopback, private or link-local address, which this service does not call (unless started with --private-callbacks)",
			store.ErrPermanent, p.What, origin)
	case webhook.Permanent(err):
		return fmt.Errorf("%w: %w", store.ErrPermanent, err)
	}
	return err
}

// startSpan starts the span of one attempt at job j: a child of the span
// that enqueued it (j.Trace), so that the request's trace shows the work
// it caused, on whichever instance the job runs, and later. Its
// attributes are the job's ID, kind and attempt, the tenant and the
// error's ID; never the payload.
func (w *worker) startSpan(ctx context.Context, j store.Job) (context.Context, trace.Span) {
	if w.tracer == nil {
		return ctx, nil
	}
	if len(j.Trace) > 0 {
		ctx = propagation.TraceContext{}.Extract(ctx, propagation.MapCarrier(j.Trace))
	}
	return w.tracer.Start(ctx, "job "+j.Kind, trace.WithSpanKind(trace.SpanKindConsumer), trace.WithAttributes(
		attribute.Int64("triage.job.id", j.ID), attribute.String("triage.job.kind", j.Kind),
		attribute.Int("triage.job.attempt", j.Attempt), attribute.String("triage.tenant", j.Tenant),
		attribute.String("triage.error_id", j.ErrorID)))
}

// endJobSpan ends an attempt's span: a failed attempt is an error, its
// message redacted (the job's error is recorded so too).
func endJobSpan(span trace.Span, err error) {
	if span == nil {
		return
	}
	if err != nil {
		span.SetStatus(codes.Error, fault.Redact(err.Error()))
		span.SetAttributes(semconv.ErrorTypeKey.String(string(fault.From(err).Code)))
	}
	span.End()
}
