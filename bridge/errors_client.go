package bridge

import (
	"context"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/store"
)

// ServiceErrors is the Errors of the tenant whose API key c sends: the
// error store of a service reached over HTTP, for `triage bridge
// --service`. Its faults are the client's (the API key never in them).
func ServiceErrors(c *client.Client) Errors { return serviceErrors{c} }

type serviceErrors struct{ c *client.Client }

func (s serviceErrors) List(ctx context.Context, f store.Filter) (triage.Page, error) {
	p, err := s.c.Errors(ctx, client.ErrorQuery{AgentID: f.AgentID, QueryID: f.QueryID, ErrorType: f.ErrorType,
		Severity: f.Severity, Status: string(f.Status), Search: f.Search, Sort: f.Sort, Since: f.Since, Limit: f.Limit, Cursor: f.Cursor})
	if err != nil {
		return triage.Page{}, err
	}
	return *p, nil
}

func (s serviceErrors) Get(ctx context.Context, errorID string) (triage.Record, error) {
	rec, err := s.c.Get(ctx, errorID)
	if err != nil {
		return triage.Record{}, err
	}
	return *rec, nil
}

func (s serviceErrors) Report(ctx context.Context, r *triage.Report) (triage.Feedback, error) {
	fb, err := s.c.Report(ctx, r, nil)
	if err != nil {
		return triage.Feedback{}, err
	}
	return *fb, nil
}

func (s serviceErrors) Change(ctx context.Context, errorID string, c triage.Change) (triage.Workflow, error) {
	rec, err := s.c.Change(ctx, errorID, c)
	if err != nil {
		return triage.Workflow{}, err
	}
	return rec.Workflow, nil
}
