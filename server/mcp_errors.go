package server

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// mcpErrors is a tenant's error store for /mcp's errors_* tools
// (bridge.Errors): the reads of GET /v1/errors and /v1/errors/{error_id}
// on the store, and a report through the service's Accept, the path
// every door takes, with the tenant the request's API key authenticated
// (the bridge's owner, MCPOwner).
type mcpErrors struct {
	s      *Server
	tenant string
}

// errorsOf is the bridge's Errors of an owner: the tenant's.
func (s *Server) errorsOf(owner string) bridge.Errors { return mcpErrors{s: s, tenant: owner} }

// records is the tenant's store, once the tenant is one the service
// knows (a bridge built without Owner: MCPOwner names none).
func (e mcpErrors) records() (store.Tenant, error) {
	if !e.s.svc.Known(e.tenant) {
		return nil, fault.New(fault.TenantUnauthorized, "The tenant is not one this service knows.")
	}
	return e.s.cfg.Store.Tenant(e.tenant), nil
}

func (e mcpErrors) List(ctx context.Context, f store.Filter) (triage.Page, error) {
	t, err := e.records()
	if err != nil {
		return triage.Page{}, err
	}
	page, err := t.ErrorRecords(ctx, f)
	if errors.Is(err, store.ErrBadCursor) {
		return triage.Page{}, badCursor()
	}
	return page, store.Unavailable(err)
}

func (e mcpErrors) Get(ctx context.Context, errorID string) (triage.Record, error) {
	t, err := e.records()
	if err != nil {
		return triage.Record{}, err
	}
	rec, ok, err := t.ErrorRecord(ctx, errorID)
	if err != nil {
		return triage.Record{}, store.Unavailable(err)
	}
	if !ok {
		return triage.Record{}, fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", errorID))
	}
	return rec, nil
}

func (e mcpErrors) Report(ctx context.Context, r *triage.Report) (triage.Feedback, error) {
	body, err := json.Marshal(r)
	if err != nil {
		return triage.Feedback{}, err
	}
	ans, err := e.s.svc.Accept(ctx, service.Submission{Tenant: e.tenant, Body: body})
	if err != nil {
		return triage.Feedback{}, err
	}
	var fb triage.Feedback
	if err := json.Unmarshal(ans.Body, &fb); err != nil {
		return triage.Feedback{}, fmt.Errorf("the service's feedback: %w", err)
	}
	return fb, nil
}

// Change changes the record's workflow as PATCH /v1/errors/{error_id}
// does, by the same name (the tenant's key, or the operator).
func (e mcpErrors) Change(ctx context.Context, errorID string, c triage.Change) (triage.Workflow, error) {
	if _, err := e.records(); err != nil {
		return triage.Workflow{}, err
	}
	ch, ok, err := e.s.svc.ChangeRecord(ctx, e.tenant, errorID, c, e.s.changedBy(e.tenant))
	if err != nil {
		return triage.Workflow{}, changeProblem(err)
	}
	if !ok {
		return triage.Workflow{}, fault.New(fault.NotFound, "No such error.", fault.WithDetail("error_id", errorID))
	}
	return ch.Record.Workflow, nil
}
