package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/resilience"
)

// The tenant's alert rules and targets (/v1/alerts/rules,
// /v1/alerts/targets): when a record is worth telling someone about, and
// where. A PUT replaces the rule or target of its name whole, so it is
// retried as a GET is; a DELETE is retried too, and one whose first
// attempt deleted (its answer lost) ends in NOT_FOUND. A tenant whose
// alerts the service's alerts file defines gets a 409 INVALID_REQUEST
// fault for a change; a rule or target the service refuses is an
// INVALID_REQUEST fault naming each field.

// AlertRules returns the tenant's alert rules (GET /v1/alerts/rules).
func (c *Client) AlertRules(ctx context.Context) (*triage.AlertRuleList, error) {
	return getJSON[triage.AlertRuleList](ctx, c, c.alerts+"/rules", "GET /v1/alerts/rules", "list of alert rules")
}

// AlertTargets returns the tenant's alert targets, without their
// credentials (GET /v1/alerts/targets).
func (c *Client) AlertTargets(ctx context.Context) (*triage.AlertTargetList, error) {
	return getJSON[triage.AlertTargetList](ctx, c, c.alerts+"/targets", "GET /v1/alerts/targets", "list of alert targets")
}

// PutAlertRule adds the rule r.ID names, or replaces it (PUT
// /v1/alerts/rules/{rule_id}), and returns it as stored.
func (c *Client) PutAlertRule(ctx context.Context, r triage.AlertRule) (*triage.AlertRule, error) {
	return putJSON[triage.AlertRule](ctx, c, c.alerts+"/rules/"+url.PathEscape(r.ID), r, "PUT /v1/alerts/rules/{rule_id}", "alert rule")
}

// PutAlertTarget adds the target t.Name names, or replaces it, its
// credentials included (PUT /v1/alerts/targets/{target}), and returns it
// as the service shows it: without them.
func (c *Client) PutAlertTarget(ctx context.Context, t triage.AlertTarget) (*triage.AlertTargetView, error) {
	return putJSON[triage.AlertTargetView](ctx, c, c.alerts+"/targets/"+url.PathEscape(t.Name), t, "PUT /v1/alerts/targets/{target}", "alert target")
}

// DeleteAlertRule deletes a rule (DELETE /v1/alerts/rules/{rule_id}).
func (c *Client) DeleteAlertRule(ctx context.Context, id string) error {
	return c.delete(ctx, c.alerts+"/rules/"+url.PathEscape(id), "DELETE /v1/alerts/rules/{rule_id}")
}

// DeleteAlertTarget deletes a target no rule names (DELETE
// /v1/alerts/targets/{target}).
func (c *Client) DeleteAlertTarget(ctx context.Context, name string) error {
	return c.delete(ctx, c.alerts+"/targets/"+url.PathEscape(name), "DELETE /v1/alerts/targets/{target}")
}

// putJSON PUTs v as JSON to target with the retries of op name, and
// decodes the answer into a T.
func putJSON[T any](ctx context.Context, c *Client, target string, v any, name, what string) (*T, error) {
	body, err := json.Marshal(v)
	if err != nil {
		return nil, fault.Wrap(err, fault.InvalidRequest, "The "+what+" cannot be encoded as JSON.")
	}
	op := resilience.Operation{Source: c.source, Name: name, Idempotent: true}
	obj, err := resilience.Do(ctx, c.policy, op, func(ctx context.Context) (*T, error) {
		data, status, err := c.send(ctx, http.MethodPut, target, body, "", maxRecordBody, http.StatusOK)
		if err != nil {
			return nil, err
		}
		data = bytes.TrimSpace(data)
		if len(data) == 0 || data[0] != '{' {
			return nil, c.protocolError(errors.New(what+" is not a JSON object"), status)
		}
		out := new(T)
		if err := json.Unmarshal(data, out); err != nil {
			return nil, c.protocolError(fmt.Errorf("%s is not valid: %w", what, err), status)
		}
		return out, nil
	})
	if err != nil {
		return nil, c.final(err)
	}
	return obj, nil
}

// delete DELETEs target with the retries of op name.
func (c *Client) delete(ctx context.Context, target, name string) error {
	op := resilience.Operation{Source: c.source, Name: name, Idempotent: true}
	_, err := resilience.Do(ctx, c.policy, op, func(ctx context.Context) (struct{}, error) {
		_, _, err := c.send(ctx, http.MethodDelete, target, nil, "", maxRecordBody, http.StatusNoContent)
		return struct{}{}, err
	})
	if err != nil {
		return c.final(err)
	}
	return nil
}
