package service

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/webhook"
)

// A tenant's alert rules, served: read from the alerts file
// (Config.Alerts) or the store (the API's writes), evaluated as each
// occurrence is saved (alertOnSave), each firing a job per target (kind
// store.JobAlert) whose worker takes the throttle's decision
// (store.Throttles) and posts with webhook.AlertPost through the guarded
// client, as the callbacks go.

// alertJob is an alert job's payload: one firing of a rule for a subject,
// to one target, or the digest of what the throttle held back.
type alertJob struct {
	Rule    string         `json:"rule"`
	When    triage.Trigger `json:"when"`
	Target  string         `json:"target"`
	Subject string         `json:"subject"`
	// Throttle is the rule's when it fired, in seconds.
	Throttle int  `json:"throttle_seconds"`
	Digest   bool `json:"digest,omitempty"`
	// Occurrence is the ID of the occurrence that fired the rule, or Run
	// the failed run's: it tells the firings of one rule and subject
	// apart, which the queue would otherwise take for one job enqueued
	// twice.
	Occurrence int64  `json:"occurrence_id,omitempty"`
	Run        string `json:"run_id,omitempty"`
	// Escalation, for the digest of the escalations held back on their
	// way to the operators' webhook (Target ""), is the first one held.
	Escalation json.RawMessage `json:"escalation,omitempty"`
	// Resolved, when set, is when the record was resolved: the job tells
	// the target so (PagerDuty resolves the record's incident), not
	// throttled.
	Resolved time.Time `json:"resolved_at,omitzero"`
	// Alert holds the facts known when it fired (the record's ID, agent,
	// environment and release, a failure rate's share and runs); the
	// worker adds the record's as it posts.
	Alert triage.Alert `json:"alert"`
}

// throttleKey names a rule's throttle for one target: each target is
// told on its own, so that a failed post to one retries that one alone.
// ('/' is in no rule's or target's name.) The operators' webhook (Target
// "") has the rule's own: the escalations' throttle.
func (a alertJob) throttleKey() string {
	if a.Target == "" {
		return a.Rule
	}
	return a.Rule + "/" + a.Target
}

// alertOnSave evaluates the tenant's alert rules on an occurrence just
// saved (saved.ID != 0) and enqueues the firings' jobs. A failure is
// logged, not returned: the report is saved and answered whatever the
// alerts do.
//
// The record's workflow feeds the event here: New from saved.NewRecord;
// Regressed and Status are unresolved until the store's save tells the
// record's status and transition.
func (s *Service) alertOnSave(ctx context.Context, tenant string, rep *triage.Report, o store.Occurrence, saved store.Saved, read store.PeekedReads) {
	if saved.ID == 0 || s.noAlertRulesAt(tenant, read) {
		return
	}
	ctx = context.WithoutCancel(ctx) // the report is saved: its alerts go whatever the client does
	rules, err := s.alertRulesAt(ctx, tenant, read)
	if err != nil || len(rules) == 0 {
		if err != nil {
			s.log(ctx, slog.LevelError, "reading the alert rules failed", slog.String("tenant", tenant), slog.Any("error", fault.From(err)))
		}
		return
	}
	t := s.cfg.Store.Tenant(tenant)
	ev := alertEvent{
		New:         saved.NewRecord,
		Escalated:   slices.ContainsFunc(o.Jobs, func(j store.NewJob) bool { return j.Kind == store.JobEscalation }),
		Regressed:   saved.Regressed(),
		Status:      saved.Workflow.StatusAt(s.cfg.Now()),
		ErrorID:     o.ErrorID,
		AgentID:     o.AgentID,
		Environment: rep.Environment,
	}
	// A frequency counts up to the greatest Count a rule asks (the count
	// stops there), once per window.
	atMost := 0
	for _, r := range rules {
		if r.When == triage.TriggerFrequency {
			atMost = max(atMost, r.Count)
		}
	}
	counts := map[time.Duration]int{}
	now := s.cfg.Now()
	ev.InWindow = func(window time.Duration) int {
		n, ok := counts[window]
		if !ok {
			var cerr error
			if n, cerr = t.CountOccurrences(ctx, o.ErrorID, now.Add(-window), atMost); cerr != nil {
				s.log(ctx, slog.LevelError, "counting occurrences for an alert rule failed", slog.String("tenant", tenant),
					slog.Any("error", fault.From(cerr)))
			}
			counts[window] = n
		}
		return n
	}
	facts := triage.Alert{ErrorID: o.ErrorID, AgentID: o.AgentID, QueryID: o.QueryID, Release: rep.Release, Environment: rep.Environment,
		Code: rep.Data.ErrorCode, Title: alertTitle(rep.Data.ErrorCode, rep.Data.Message), Severity: triage.Severity(o.Severity),
		Status: ev.Status}
	s.enqueueFirings(ctx, tenant, firings(rules, ev), facts, alertCause{occurrence: saved.ID})
}

// AlertResolved tells the tenant's PagerDuty targets (those its rules
// name) that the records errorIDs were resolved: a resolve event with each
// record's dedup key closes the incident its triggers opened. It is not
// throttled. ChangeRecord and ChangeRecords call it when records are
// resolved.
func (s *Service) AlertResolved(ctx context.Context, tenant string, errorIDs ...string) error {
	c, file := s.cfg.Alerts[tenant]
	if !file {
		var err error
		if c.Rules, c.Targets, err = s.cfg.Store.Tenant(tenant).AlertRules(ctx); err != nil {
			return store.Unavailable(err)
		}
	}
	named := map[string]bool{}
	for _, r := range c.Rules {
		for _, name := range r.Targets {
			named[name] = true
		}
	}
	now := s.cfg.Now().UTC()
	for _, target := range c.Targets {
		if target.Kind != triage.TargetPagerDuty || !named[target.Name] {
			continue
		}
		for _, errorID := range errorIDs {
			payload, err := json.Marshal(alertJob{Target: target.Name, Subject: errorID, Resolved: now, Alert: triage.Alert{ErrorID: errorID}})
			if err == nil {
				_, err = s.cfg.Store.Tenant(tenant).Enqueue(ctx, store.NewJob{Kind: store.JobAlert, ErrorID: errorID, Payload: payload, Trace: JobTrace(ctx)})
			}
			if err != nil {
				return store.Unavailable(err)
			}
		}
	}
	return nil
}

// maxRunsCounted bounds the runs a failure rate is taken over: the
// latest of the window (store.RunCounts).
const maxRunsCounted = 10_000

// alertOnRun evaluates the tenant's failure-rate rules on a run of agent
// that failed, and enqueues their firings' jobs (the rule's subject is
// the agent). A failure is logged, not returned: the run is over.
func (s *Service) alertOnRun(ctx context.Context, tenant, runID, agent string) {
	rules, err := s.alertRules(ctx, tenant)
	if err != nil {
		s.log(ctx, slog.LevelError, "reading the alert rules failed", slog.String("tenant", tenant), slog.Any("error", fault.From(err)))
		return
	}
	rules = slices.DeleteFunc(slices.Clone(rules), func(r triage.AlertRule) bool { return r.When != triage.TriggerFailureRate })
	if len(rules) == 0 {
		return
	}
	t := s.cfg.Store.Tenant(tenant)
	now := s.cfg.Now()
	ev := alertEvent{AgentID: agent, Runs: func(agent string, window time.Duration) (failed, total int) {
		failed, total, err := t.CountRuns(ctx, agent, now.Add(-window), maxRunsCounted)
		if err != nil {
			s.log(ctx, slog.LevelError, "counting runs for an alert rule failed", slog.String("tenant", tenant),
				slog.Any("error", fault.From(err)))
		}
		return failed, total
	}}
	s.enqueueFirings(ctx, tenant, firings(rules, ev), triage.Alert{AgentID: agent}, alertCause{run: runID})
}

// alertCause is what fired a rule: an occurrence, or a failed run.
type alertCause struct {
	occurrence int64
	run        string
}

// enqueueFirings enqueues a job per firing and target, each carrying the
// trace that fired it.
func (s *Service) enqueueFirings(ctx context.Context, tenant string, fs []firing, facts triage.Alert, cause alertCause) {
	t := s.cfg.Store.Tenant(tenant)
	for _, f := range fs {
		a := facts
		a.Rate, a.Runs = f.Rate, f.RunCount
		for _, target := range f.Rule.Targets {
			job := alertJob{Rule: f.Rule.ID, When: f.Rule.When, Target: target, Subject: f.Subject,
				Throttle: int(f.Rule.Throttle() / time.Second), Occurrence: cause.occurrence, Run: cause.run, Alert: a}
			payload, err := json.Marshal(job)
			if err == nil {
				_, err = t.Enqueue(ctx, store.NewJob{Kind: store.JobAlert, ErrorID: facts.ErrorID, Payload: payload, Trace: JobTrace(ctx)})
			}
			if err != nil {
				s.log(ctx, slog.LevelError, "enqueueing an alert failed", slog.String("tenant", tenant), slog.String("rule", f.Rule.ID),
					slog.String("target", target), slog.Any("error", fault.From(err)))
			}
		}
	}
}

// alertRules returns a tenant's rules: the alerts file's for a tenant it
// names, else the store's.
func (s *Service) alertRules(ctx context.Context, tenant string) ([]triage.AlertRule, error) {
	if c, ok := s.cfg.Alerts[tenant]; ok {
		return c.Rules, nil
	}
	rules, _, err := s.cfg.Store.Tenant(tenant).AlertRules(ctx)
	return rules, err
}

// alertRulesAt is alertRules for a report whose peek read the version of
// the tenant's rules (read): the rules kept for that version, else read
// and kept under it (rules read after the peek are its version's or
// newer; a newer version's peek reads them again).
func (s *Service) alertRulesAt(ctx context.Context, tenant string, read store.PeekedReads) ([]triage.AlertRule, error) {
	if _, ok := s.cfg.Alerts[tenant]; ok || !read.Valid {
		return s.alertRules(ctx, tenant)
	}
	if c, ok := s.rulesAt.Load(tenant); ok && c.(keptRules).version == read.AlertRules {
		return c.(keptRules).rules, nil
	}
	rules, err := s.alertRules(ctx, tenant)
	if err == nil {
		s.rulesAt.Store(tenant, keptRules{read.AlertRules, rules})
	}
	return rules, err
}

// noAlertRulesAt reports whether the tenant's rules kept at the version
// its peek read are none: alertRulesAt would answer them without a read.
func (s *Service) noAlertRulesAt(tenant string, read store.PeekedReads) bool {
	if _, ok := s.cfg.Alerts[tenant]; ok || !read.Valid {
		return false
	}
	c, ok := s.rulesAt.Load(tenant)
	return ok && c.(keptRules).version == read.AlertRules && len(c.(keptRules).rules) == 0
}

// keptRules are a tenant's alert rules as read after a peek that answered
// version (store.PeekedReads.AlertRules).
type keptRules struct {
	version int64
	rules   []triage.AlertRule
}

// alertTarget returns a tenant's target by name.
func (s *Service) alertTarget(ctx context.Context, tenant, name string) (triage.AlertTarget, bool, error) {
	targets := s.cfg.Alerts[tenant].Targets
	if _, ok := s.cfg.Alerts[tenant]; !ok {
		var err error
		if _, targets, err = s.cfg.Store.Tenant(tenant).AlertRules(ctx); err != nil {
			return triage.AlertTarget{}, false, err
		}
	}
	i := slices.IndexFunc(targets, func(t triage.AlertTarget) bool { return t.Name == name })
	if i < 0 {
		return triage.AlertTarget{}, false, nil
	}
	return targets[i], true, nil
}

// attemptAlert makes one attempt at an alert job: the throttle's decision
// (a firing's, or a digest's), then the post to the target.
func (s *Service) attemptAlert(ctx context.Context, j store.Job) error {
	w := s.worker
	aj, err := decodePayload[alertJob]("an alert", j.Payload)
	if err != nil {
		return err
	}
	t := s.cfg.Store.Tenant(j.Tenant)
	every := time.Duration(aj.Throttle) * time.Second
	var f store.Firing
	switch {
	case !aj.Resolved.IsZero():
		f.Send = true // a resolve is not a firing: nothing holds it
	case aj.Digest:
		if f, err = t.DigestAlert(ctx, aj.throttleKey(), aj.Subject, every, j.ID); err != nil {
			return err
		}
		if !f.Send && !f.DigestAt.IsZero() {
			// Early: this instance's clock is behind the one that held
			// the firings. It looks again soon, not at the throttle's end
			// by this clock.
			return store.Defer(min(f.DigestAt.Sub(s.cfg.Now()), time.Second))
		}
	default:
		digest := aj
		digest.Digest = true
		payload, err := json.Marshal(digest)
		if err != nil {
			return err
		}
		if f, err = t.FireAlert(ctx, aj.throttleKey(), aj.Subject, every, j.ID,
			&store.NewJob{Kind: store.JobAlert, ErrorID: j.ErrorID, Payload: payload, Trace: j.Trace}); err != nil {
			return err
		}
		if !f.Send {
			w.alertsHeld.Inc()
		}
	}
	if !f.Send {
		return nil // held back (a digest or the next notification counts it), or nothing left to digest
	}
	if aj.Target == "" {
		return s.postEscalation(ctx, j.Tenant, j.ErrorID, aj.Escalation, f)
	}
	target, ok, err := s.alertTarget(ctx, j.Tenant, aj.Target)
	if err != nil {
		return err
	}
	if !ok {
		return fmt.Errorf("%w: the tenant has no alert target %q any more", store.ErrPermanent, aj.Target)
	}
	a, err := s.alert(ctx, j, aj, f)
	if err != nil {
		return err
	}
	p, err := webhook.AlertPost(target, a, s.cfg.Now())
	if err != nil {
		return fmt.Errorf("%w: %v", store.ErrPermanent, err)
	}
	p.What = "alert target " + target.Name + " (" + p.What + ")"
	return w.send(ctx, w.callbacks, p)
}

// alert is what a job's notification says: the facts of its firing, and
// its record's as they are now.
func (s *Service) alert(ctx context.Context, j store.Job, aj alertJob, f store.Firing) (triage.Alert, error) {
	a := aj.Alert
	a.ID = "alert_" + strconv.FormatInt(j.ID, 10)
	a.Tenant, a.Rule, a.When = j.Tenant, aj.Rule, aj.When
	a.Held, a.HeldSince = f.Held, f.HeldSince
	a.At = s.cfg.Now().UTC()
	if !aj.Resolved.IsZero() {
		a.Resolved, a.Status = true, triage.StatusResolved
	}
	if a.ErrorID == "" {
		a.Title = fmt.Sprintf("%s: agent %s failed %.0f%% of %d runs", aj.Rule, a.AgentID, a.Rate*100, a.Runs)
		return a, nil
	}
	// The record's counts as they are now (an ErrorRecord read, once per
	// notification: the firings held back read nothing).
	rec, ok, err := s.cfg.Store.Tenant(j.Tenant).ErrorRecord(ctx, a.ErrorID)
	if err != nil {
		return a, err
	}
	if ok {
		a.Count, a.FirstSeen, a.LastSeen = rec.Count, rec.FirstSeen, rec.LastSeen
	}
	if a.Title == "" {
		a.Title = a.ErrorID
	}
	if s.cfg.PublicURL != "" {
		a.Link = strings.TrimRight(s.cfg.PublicURL, "/") + "/#/errors/" + a.ErrorID
	}
	return a, nil
}

// maxAlertTitle bounds an alert's title, in bytes.
const maxAlertTitle = 1024

// alertTitle is an alert's title: the error's code and message, cut to
// maxAlertTitle bytes at a character's start.
func alertTitle(code, message string) string {
	title := message
	if code != "" {
		title = code + ": " + message
	}
	if len(title) > maxAlertTitle {
		i := maxAlertTitle - len("…")
		for i > 0 && !utf8.RuneStart(title[i]) {
			i--
		}
		title = title[:i] + "…"
	}
	return strings.TrimSpace(title)
}
