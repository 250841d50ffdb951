package handler

import (
	"errors"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/graph"
)

// FromNodeError builds the report of a failed graph run, for a pipeline
// built on the graph package: its fault is fault.From(err); its message is
// the fault's client-safe message; its context holds the run id (when the
// graph has a Checkpointer), the failing node and the path before it. The
// feedback returns the run id as context_ref, so that on next_action
// "resume" the pipeline calls Resume with it.
//
// err is what Invoke or Resume returned; agentID names the pipeline (or
// the failing agent) and queryID the user's request.
func FromNodeError(agentID, queryID string, err error, at time.Time) *triage.Report {
	f := fault.From(err)
	c := map[string]any{}
	var ne *graph.NodeError
	if errors.As(err, &ne) {
		c["node"] = ne.Node
		if len(ne.Path) > 0 {
			path := make([]any, len(ne.Path))
			for i, p := range ne.Path {
				path[i] = p
			}
			c["path"] = path
		}
		if ne.RunID != "" {
			c["run_id"] = ne.RunID
		}
	}
	return &triage.Report{AgentID: agentID, Timestamp: at, Status: "error", Data: triage.Data{
		ErrorType: triage.Unknown, Message: f.Message, Context: c, QueryID: queryID, Fault: f}}
}
