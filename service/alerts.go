package service

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// A tenant's alert rules fire on its records' occurrences and runs; each
// rule is throttled per subject (a record, or an agent for a failure
// rate), as triage.Throttle says. Like the workflow's rules these are
// values in, values out.

// alertEvent is what an occurrence (or a run) tells the rules.
type alertEvent struct {
	// New: the occurrence created its record. Regressed: it regressed a
	// resolved one. Escalated: the handler's policy escalated it.
	New, Regressed, Escalated bool
	// Status is the record's after the occurrence: an ignored record
	// fires nothing.
	Status      triage.Status
	ErrorID     string
	AgentID     string
	Environment string
	// InWindow counts the record's occurrences within a window, this one
	// included.
	InWindow func(window time.Duration) int
	// Runs counts an agent's runs within a window, and how many failed;
	// nil when the event is not a run's.
	Runs func(agent string, window time.Duration) (failed, total int)
}

// firing is one rule firing for one subject.
type firing struct {
	Rule    triage.AlertRule
	Subject string // the record's ID, or "agent:" and the agent's ID
	// Rate and RunCount, for a failure rate.
	Rate     float64
	RunCount int
}

// firings returns the rules ev fires, in the rules' order.
func firings(rules []triage.AlertRule, ev alertEvent) []firing {
	if ev.Status == triage.StatusIgnored {
		return nil
	}
	var out []firing
	for _, r := range rules {
		if r.Agent != "" && r.Agent != ev.AgentID || r.Environment != "" && r.Environment != ev.Environment {
			continue
		}
		window := time.Duration(r.WindowSeconds) * time.Second
		switch r.When {
		case triage.TriggerNew:
			if ev.New {
				out = append(out, firing{Rule: r, Subject: ev.ErrorID})
			}
		case triage.TriggerRegressed:
			if ev.Regressed {
				out = append(out, firing{Rule: r, Subject: ev.ErrorID})
			}
		case triage.TriggerEscalation:
			if ev.Escalated {
				out = append(out, firing{Rule: r, Subject: ev.ErrorID})
			}
		case triage.TriggerFrequency:
			if ev.ErrorID != "" && ev.InWindow != nil && ev.InWindow(window) >= r.Count {
				out = append(out, firing{Rule: r, Subject: ev.ErrorID})
			}
		case triage.TriggerFailureRate:
			if ev.Runs == nil || ev.AgentID == "" {
				continue
			}
			failed, total := ev.Runs(ev.AgentID, window)
			if total >= max(r.MinRuns, 1) && float64(failed) >= r.Rate*float64(total) {
				out = append(out, firing{Rule: r, Subject: "agent:" + ev.AgentID, Rate: float64(failed) / float64(total), RunCount: total})
			}
		}
	}
	return out
}

// The bounds of a tenant's alert configuration.
const (
	maxAlertRules   = 100
	maxAlertCount   = 1_000_000
	maxAlertTargets = 20
	maxThrottle     = int(triage.MaxThrottle / time.Second)
	minAlertWindow  = 60
	maxAlertWindow  = 30 * 24 * 3600 // the counts' retention
)

var alertName = regexp.MustCompile(`^[a-z0-9_-]{1,64}$`)

// AlertConfig is a tenant's alert rules and the targets they notify.
type AlertConfig struct {
	Rules   []triage.AlertRule   `json:"rules" yaml:"rules"`
	Targets []triage.AlertTarget `json:"targets" yaml:"targets"`
}

// Check reports every member of c at fault at once, as a
// fault.InvalidRequest (422) whose field errors name them by path
// ("rules[2].count", "targets[0].url").
func (c AlertConfig) Check() error {
	var fields []fault.FieldError
	add := func(field, format string, args ...any) {
		fields = append(fields, fault.FieldError{Field: field, Message: fmt.Sprintf(format, args...)})
	}
	if len(c.Rules) > maxAlertRules {
		add("rules", "at most %d rules", maxAlertRules)
	}
	if len(c.Targets) > maxAlertTargets {
		add("targets", "at most %d targets", maxAlertTargets)
	}
	targets := map[string]bool{}
	for i, t := range c.Targets {
		at := fmt.Sprintf("targets[%d]", i)
		switch {
		case !alertName.MatchString(t.Name):
			add(at+".name", "1 to 64 of a-z, 0-9, '-' and '_'")
		case targets[t.Name]:
			add(at+".name", "%q names two targets", t.Name)
		}
		targets[t.Name] = true
		switch t.Kind {
		case triage.TargetWebhook, triage.TargetSlack:
			if t.URL == "" {
				add(at+".url", "a %s target needs its URL", t.Kind)
			}
		case triage.TargetPagerDuty:
			if t.RoutingKey == "" {
				add(at+".routing_key", "a pagerduty target needs its integration (routing) key")
			}
		default:
			add(at+".kind", "must be webhook, slack or pagerduty, not %q", t.Kind)
		}
		if t.URL != "" {
			if u, err := url.Parse(t.URL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
				add(at+".url", "must be an http or https URL")
			}
		}
		if t.Secret != "" && t.Kind != triage.TargetWebhook {
			add(at+".secret", "only a webhook target signs its posts")
		}
	}
	ids := map[string]bool{}
	for i, r := range c.Rules {
		at := fmt.Sprintf("rules[%d]", i)
		switch {
		case !alertName.MatchString(r.ID):
			add(at+".id", "1 to 64 of a-z, 0-9, '-' and '_'")
		case ids[r.ID]:
			add(at+".id", "%q names two rules", r.ID)
		}
		ids[r.ID] = true
		windowed := false
		switch r.When {
		case triage.TriggerNew, triage.TriggerRegressed, triage.TriggerEscalation:
		case triage.TriggerFrequency:
			windowed = true
			if r.Count < 1 || r.Count > maxAlertCount {
				add(at+".count", "from 1 to %d", maxAlertCount)
			}
		case triage.TriggerFailureRate:
			windowed = true
			if !(r.Rate > 0 && r.Rate <= 1) {
				add(at+".rate", "a share of runs, above 0 and at most 1")
			}
			if r.MinRuns < 0 || r.MinRuns > maxAlertCount {
				add(at+".min_runs", "from 0 to %d", maxAlertCount)
			}
		default:
			add(at+".when", "must be new, regressed, frequency, failure_rate or escalation, not %q", r.When)
		}
		if windowed && (r.WindowSeconds < minAlertWindow || r.WindowSeconds > maxAlertWindow) {
			add(at+".window_seconds", "from %d to %d (30 days)", minAlertWindow, maxAlertWindow)
		}
		if !windowed && (r.WindowSeconds != 0 || r.Count != 0 || r.Rate != 0 || r.MinRuns != 0) {
			add(at, "window_seconds, count, rate and min_runs belong to frequency and failure_rate rules")
		}
		if r.ThrottleSeconds < 0 || r.ThrottleSeconds > maxThrottle {
			add(at+".throttle_seconds", "from 0 (the default, %v) to %d (a week)", triage.DefaultThrottle, maxThrottle)
		}
		if len(r.Targets) == 0 {
			add(at+".targets", "a rule notifies at least one target")
		}
		for j, name := range r.Targets {
			if !targets[name] {
				add(fmt.Sprintf("%s.targets[%d]", at, j), "no target is named %q", name)
			}
		}
	}
	if len(fields) == 0 {
		return nil
	}
	f := fault.Invalid("The alert configuration is invalid.", fields...)
	f.Status = http.StatusUnprocessableEntity
	return f
}
