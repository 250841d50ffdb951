package triage

import "time"

// Alerts: a tenant's rules say when a record is worth telling someone
// about, and its targets say where. Each rule is throttled per subject (a
// record, or an agent for a failure rate): at most one notification per
// Throttle, and the next one carries the count of what was held back, so
// one failure repeated 153 times is one notification and a count.

// Trigger is what makes a rule fire.
type Trigger string

// The triggers of an alert rule.
const (
	// TriggerNew fires on a record's first occurrence.
	TriggerNew Trigger = "new"
	// TriggerRegressed fires when a resolved record occurs again.
	TriggerRegressed Trigger = "regressed"
	// TriggerFrequency fires when a record has occurred Count times or
	// more within Window.
	TriggerFrequency Trigger = "frequency"
	// TriggerFailureRate fires when an agent's share of failed runs
	// within Window reaches Rate, over at least MinRuns runs.
	TriggerFailureRate Trigger = "failure_rate"
	// TriggerEscalation fires when the handler's policy escalates a
	// report (its escalate action): the rule every tenant has, named
	// EscalationRule, throttled like the others.
	TriggerEscalation Trigger = "escalation"
)

// EscalationRule is the ID of the rule the handler's escalations go
// through.
const EscalationRule = "escalation"

// AlertRule is one of a tenant's alert rules.
type AlertRule struct {
	// ID names the rule within its tenant: 1 to 64 of a–z, 0–9, '-'
	// and '_'.
	ID   string  `json:"id" yaml:"id"`
	When Trigger `json:"when" yaml:"when"`
	// Count and WindowSeconds, for TriggerFrequency: that many
	// occurrences within that window. WindowSeconds is also the window of
	// TriggerFailureRate.
	Count         int `json:"count,omitempty" yaml:"count,omitempty"`
	WindowSeconds int `json:"window_seconds,omitempty" yaml:"window_seconds,omitempty"`
	// Rate (0 to 1) and MinRuns, for TriggerFailureRate.
	Rate    float64 `json:"rate,omitempty" yaml:"rate,omitempty"`
	MinRuns int     `json:"min_runs,omitempty" yaml:"min_runs,omitempty"`
	// Agent, when set, limits the rule to that agent's records or runs.
	Agent string `json:"agent,omitempty" yaml:"agent,omitempty"`
	// Environment, when set, limits the rule to occurrences reported in
	// it.
	Environment string `json:"environment,omitempty" yaml:"environment,omitempty"`
	// ThrottleSeconds is the least time between two notifications of the
	// rule for one subject (default DefaultThrottle).
	ThrottleSeconds int `json:"throttle_seconds,omitempty" yaml:"throttle_seconds,omitempty"`
	// Targets name the tenant's targets the rule notifies.
	Targets []string `json:"targets" yaml:"targets"`
}

// DefaultThrottle is a rule's throttle when it names none, and
// MaxThrottle the longest a rule may name.
const (
	DefaultThrottle = time.Hour
	MaxThrottle     = 7 * 24 * time.Hour
)

// Throttle is the rule's throttle.
func (r AlertRule) Throttle() time.Duration {
	if r.ThrottleSeconds <= 0 {
		return DefaultThrottle
	}
	return time.Duration(r.ThrottleSeconds) * time.Second
}

// TargetKind is the format a target is posted in.
type TargetKind string

// The kinds of alert targets.
const (
	// TargetWebhook posts the Alert as JSON, signed as Standard Webhooks
	// sign (webhook-id, webhook-timestamp, webhook-signature: an
	// HMAC-SHA256 of the three with the target's Secret).
	TargetWebhook TargetKind = "webhook"
	// TargetSlack posts a Slack incoming-webhook message.
	TargetSlack TargetKind = "slack"
	// TargetPagerDuty posts PagerDuty Events API v2 events: a trigger
	// per notification, and a resolve when the record is resolved, with
	// one dedup key per record.
	TargetPagerDuty TargetKind = "pagerduty"
)

// AlertTarget is where a tenant's notifications go. Its Secret and
// RoutingKey are credentials: the API never returns them.
type AlertTarget struct {
	// Name is how rules refer to it: 1 to 64 of a–z, 0–9, '-' and '_'.
	Name string     `json:"name" yaml:"name"`
	Kind TargetKind `json:"kind" yaml:"kind"`
	// URL receives the posts: the webhook's, Slack's incoming-webhook
	// URL, or PagerDuty's events endpoint (default
	// PagerDutyEventsURL).
	URL string `json:"url,omitempty" yaml:"url,omitempty"`
	// Secret signs a webhook's posts ("whsec_" and base64, as Standard
	// Webhooks writes a key, or any other string, used as it is).
	Secret string `json:"secret,omitempty" yaml:"secret,omitempty"`
	// RoutingKey is a PagerDuty service's integration key.
	RoutingKey string `json:"routing_key,omitempty" yaml:"routing_key,omitempty"`
}

// View is t as the API shows it: without its credentials.
func (t AlertTarget) View() AlertTargetView {
	v := AlertTargetView{Name: t.Name, Kind: t.Kind, Signed: t.Secret != "", HasRoutingKey: t.RoutingKey != ""}
	if t.Kind != TargetSlack {
		v.URL = t.URL
	}
	return v
}

// AlertTargetView is a target as the API shows it: its credentials (a
// webhook's signing secret, a PagerDuty routing key, and a Slack
// incoming-webhook URL, which is one) are never shown, only whether it has
// them.
type AlertTargetView struct {
	Name string     `json:"name"`
	Kind TargetKind `json:"kind"`
	// URL is a webhook's or PagerDuty's endpoint; empty for Slack.
	URL string `json:"url,omitempty"`
	// Signed tells that a webhook target signs its posts (it has a
	// secret).
	Signed bool `json:"signed,omitempty"`
	// HasRoutingKey tells that a PagerDuty target has its routing key.
	HasRoutingKey bool `json:"has_routing_key,omitempty"`
}

// AlertRuleList is a tenant's alert rules as the API lists them: where
// they come from ("file": the service's alerts file, read-only through the
// API; "api": written through it), and them, in their order.
type AlertRuleList struct {
	Source string      `json:"source"`
	Rules  []AlertRule `json:"rules"`
}

// AlertTargetList is a tenant's alert targets as the API lists them, as
// AlertRuleList: without their credentials.
type AlertTargetList struct {
	Source  string            `json:"source"`
	Targets []AlertTargetView `json:"targets"`
}

// PagerDutyEventsURL is PagerDuty's Events API v2 endpoint.
const PagerDutyEventsURL = "https://events.pagerduty.com/v2/enqueue"

// Alert is one notification: what a target is told.
type Alert struct {
	// ID names the notification (the same on every attempt to post it).
	ID     string  `json:"id"`
	Tenant string  `json:"tenant"`
	Rule   string  `json:"rule"`
	When   Trigger `json:"when"`
	// Resolved says the record was resolved: a PagerDuty target resolves
	// its incident, the others are told.
	Resolved bool `json:"resolved,omitempty"`
	// The record's: its ID, a title (its code and message), status,
	// agent, severity, counts and times.
	ErrorID   string    `json:"error_id,omitempty"`
	Title     string    `json:"title"`
	Status    Status    `json:"status,omitempty"`
	AgentID   string    `json:"agent_id,omitempty"`
	QueryID   string    `json:"query_id,omitempty"`
	Code      string    `json:"code,omitempty"`
	Severity  Severity  `json:"severity,omitempty"`
	Count     int       `json:"occurrence_count,omitempty"`
	FirstSeen time.Time `json:"first_seen,omitzero"`
	LastSeen  time.Time `json:"last_seen,omitzero"`
	// Release and Environment are the occurrence's that fired the rule.
	Release     string `json:"release,omitempty"`
	Environment string `json:"environment,omitempty"`
	// Rate and Runs, for a failure rate: the share that failed, of how
	// many runs within the rule's window.
	Rate float64 `json:"rate,omitempty"`
	Runs int     `json:"runs,omitempty"`
	// Held counts the firings held back by the throttle since HeldSince,
	// which this notification stands for too.
	Held      int       `json:"held,omitempty"`
	HeldSince time.Time `json:"held_since,omitzero"`
	// Link is the record's page on the dashboard (empty when the service
	// was given no public URL).
	Link string    `json:"link,omitempty"`
	At   time.Time `json:"at"`
}

// Throttle is one alert rule's state for one subject: when it last
// notified, and what it held back since.
type Throttle struct {
	// Sent is when the last notification went out (zero: never).
	Sent time.Time
	// Held counts the firings held back since HeldSince.
	Held      int
	HeldSince time.Time
}

// Fire is one firing at now of a rule throttled to one notification per
// every: it returns the throttle after it and, when a notification is to
// go out, true with the firings held back before it (which the
// notification stands for too: its Held and HeldSince).
func (th Throttle) Fire(every time.Duration, now time.Time) (next Throttle, send bool, held int, since time.Time) {
	if th.Sent.IsZero() || !now.Before(th.Sent.Add(every)) {
		return Throttle{Sent: now}, true, th.Held, th.HeldSince
	}
	next = th
	if next.Held == 0 {
		next.HeldSince = now
	}
	next.Held++
	return next, false, 0, time.Time{}
}

// DigestDue reports whether, at now, the firings th holds back are due to
// go out on their own (a digest): some were held, and the throttle's
// interval since the last notification has passed with no firing to carry
// them.
func (th Throttle) DigestDue(every time.Duration, now time.Time) bool {
	return th.Held > 0 && !now.Before(th.Sent.Add(every))
}
