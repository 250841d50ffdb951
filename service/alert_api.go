package service

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/store"
)

// The alert rules and targets of a tenant as the API reads and writes
// them. A tenant the alerts file names has the file's, read-only (409 to a
// change); the others keep theirs in the store, checked whole
// (AlertConfig.Check) at every change. The targets' credentials are
// write-only.

// Alerts returns a tenant's alert rules and targets, the targets without
// their credentials.
func (s *Service) Alerts(ctx context.Context, tenant string) (triage.AlertRuleList, triage.AlertTargetList, error) {
	c, file := s.cfg.Alerts[tenant]
	source := "file"
	if !file {
		source = "api"
		var err error
		if c.Rules, c.Targets, err = s.cfg.Store.Tenant(tenant).AlertRules(ctx); err != nil {
			return triage.AlertRuleList{}, triage.AlertTargetList{}, store.Unavailable(err)
		}
	}
	rules := triage.AlertRuleList{Source: source, Rules: slices.Clone(c.Rules)}
	if rules.Rules == nil {
		rules.Rules = []triage.AlertRule{}
	}
	targets := triage.AlertTargetList{Source: source, Targets: []triage.AlertTargetView{}}
	for _, t := range c.Targets {
		targets.Targets = append(targets.Targets, t.View())
	}
	return rules, targets, nil
}

// PutAlertRule adds a tenant's rule, or replaces the one with its ID.
func (s *Service) PutAlertRule(ctx context.Context, tenant string, r triage.AlertRule) error {
	return s.changeAlerts(ctx, tenant, func(c *AlertConfig) (string, bool) {
		i := slices.IndexFunc(c.Rules, func(x triage.AlertRule) bool { return x.ID == r.ID })
		if i >= 0 {
			c.Rules[i] = r
		} else {
			i = len(c.Rules)
			c.Rules = append(c.Rules, r)
		}
		return fmt.Sprintf("rules[%d]", i), true
	})
}

// DeleteAlertRule deletes a tenant's rule: false when it has none with
// that ID.
func (s *Service) DeleteAlertRule(ctx context.Context, tenant, id string) (bool, error) {
	found := false
	err := s.changeAlerts(ctx, tenant, func(c *AlertConfig) (string, bool) {
		n := len(c.Rules)
		c.Rules = slices.DeleteFunc(c.Rules, func(x triage.AlertRule) bool { return x.ID == id })
		found = len(c.Rules) < n
		return "", found
	})
	return found, err
}

// PutAlertTarget adds a tenant's target, or replaces the one with its
// name (credentials included: a target is written whole). A URL the jobs
// would refuse to call (RefusesCallback: a loopback, private or
// link-local address) is refused here too.
func (s *Service) PutAlertTarget(ctx context.Context, tenant string, t triage.AlertTarget) error {
	if t.URL != "" && s.RefusesCallback(t.URL) {
		f := fault.Invalid("The alert target is invalid.", fault.FieldError{Field: "url",
			Message: "must not be localhost or a loopback, private or link-local address"})
		f.Status = http.StatusUnprocessableEntity
		return f
	}
	return s.changeAlerts(ctx, tenant, func(c *AlertConfig) (string, bool) {
		i := slices.IndexFunc(c.Targets, func(x triage.AlertTarget) bool { return x.Name == t.Name })
		if i >= 0 {
			c.Targets[i] = t
		} else {
			i = len(c.Targets)
			c.Targets = append(c.Targets, t)
		}
		return fmt.Sprintf("targets[%d]", i), true
	})
}

// DeleteAlertTarget deletes a tenant's target: false when it has none
// with that name. A target a rule names is not deleted (422, naming the
// rule).
func (s *Service) DeleteAlertTarget(ctx context.Context, tenant, name string) (bool, error) {
	found := false
	err := s.changeAlerts(ctx, tenant, func(c *AlertConfig) (string, bool) {
		n := len(c.Targets)
		c.Targets = slices.DeleteFunc(c.Targets, func(x triage.AlertTarget) bool { return x.Name == name })
		found = len(c.Targets) < n
		return "", found
	})
	return found, err
}

// changeAlerts changes a tenant's stored alert configuration with change
// (false: leave it as it is), checked whole before it is written: the
// field errors of the member change names (its path, "rules[2]") are
// named from within it ("count"), as the document the request sent. A
// tenant the alerts file names is refused (409).
func (s *Service) changeAlerts(ctx context.Context, tenant string, change func(*AlertConfig) (at string, changed bool)) error {
	if _, file := s.cfg.Alerts[tenant]; file {
		return fault.New(fault.InvalidRequest, "This tenant's alert rules and targets come from the service's alerts file (--alerts): they are read-only through the API.",
			fault.WithStatus(http.StatusConflict))
	}
	err := s.cfg.Store.Tenant(tenant).ChangeAlertRules(ctx, func(rules []triage.AlertRule, targets []triage.AlertTarget) ([]triage.AlertRule, []triage.AlertTarget, error) {
		c := AlertConfig{Rules: rules, Targets: targets}
		at, changed := change(&c)
		if !changed {
			return nil, nil, errUnchanged
		}
		if err := c.Check(); err != nil {
			return nil, nil, relabel(err, at)
		}
		return c.Rules, c.Targets, nil
	})
	if err == nil || errors.Is(err, errUnchanged) {
		return nil
	}
	if _, ok := fault.As(err); ok {
		return err
	}
	return store.Unavailable(err)
}

// errUnchanged ends a change that changes nothing.
var errUnchanged = errors.New("unchanged")

// MaxAlertsFile bounds an alerts file, in bytes.
const MaxAlertsFile = 1 << 20

// ParseAlerts reads an alerts file (YAML, or JSON, which is YAML): the
// alert rules and targets of the tenants it names, under "tenants", each
// as AlertConfig reads them:
//
//	tenants:
//	  default:
//	    targets:
//	      - {name: oncall, kind: pagerduty, routing_key: R0UT1NGKEY}
//	    rules:
//	      - {id: bursts, when: frequency, count: 100, window_seconds: 60, targets: [oncall]}
//
// Unknown members are refused, and each tenant's configuration is checked
// (AlertConfig.Check); name is for messages. Its targets' URLs are not
// checked against the SSRF guard here: the operator wrote them, and the
// jobs' guard refuses them as they connect (unless --private-callbacks).
func ParseAlerts(data []byte, name string) (map[string]AlertConfig, error) {
	if len(data) > MaxAlertsFile {
		return nil, fmt.Errorf("alerts file %s: larger than %d bytes", name, MaxAlertsFile)
	}
	var doc struct {
		Tenants map[string]AlertConfig `yaml:"tenants"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("alerts file %s: %s", name, strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Tenants) == 0 {
		return nil, fmt.Errorf("alerts file %s: no tenants", name)
	}
	for _, tenant := range slices.Sorted(maps.Keys(doc.Tenants)) {
		if !triage.IsIdentifier(tenant) {
			return nil, fmt.Errorf("alerts file %s: %q is not a tenant's name", name, tenant)
		}
		if err := doc.Tenants[tenant].Check(); err != nil {
			return nil, fmt.Errorf("alerts file %s: tenants.%s: %w", name, tenant, alertConfigError(err))
		}
	}
	return doc.Tenants, nil
}

// alertConfigError is Check's fault as one line naming every field.
func alertConfigError(err error) error {
	f, ok := fault.As(err)
	if !ok || len(f.FieldErrors) == 0 {
		return err
	}
	var parts []string
	for _, fe := range f.FieldErrors {
		parts = append(parts, fe.Field+": "+fe.Message)
	}
	return errors.New(strings.Join(parts, "; "))
}

// relabel names the field errors of err under the path at from within it
// ("rules[2].count": "count"; "rules[2]" alone: "rule"): what the
// document of one rule or target calls them.
func relabel(err error, at string) error {
	f, ok := fault.As(err)
	if !ok || at == "" {
		return err
	}
	for i, fe := range f.FieldErrors {
		if rest, ok := strings.CutPrefix(fe.Field, at); ok {
			switch {
			case rest == "":
				f.FieldErrors[i].Field = strings.TrimSuffix(at[:strings.IndexByte(at, '[')], "s")
			case rest[0] == '.':
				f.FieldErrors[i].Field = rest[1:]
			}
		}
	}
	return f
}
