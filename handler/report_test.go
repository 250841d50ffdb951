package handler

import (
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
)

func report(agent string, typ triage.ErrorType, code, msg string) *triage.Report {
	return &triage.Report{AgentID: agent, Timestamp: time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC), Status: "error",
		Data: triage.Data{ErrorType: typ, ErrorCode: code, Message: msg, QueryID: "q_1"}}
}

// defaultClasses is the chain a Handler of the default policy builds,
// without the model.
var defaultClasses = classify.New(classify.Config{})

// reportFault is r's fault as the handler derives it.
func reportFault(r *triage.Report) *fault.Error { return defaultClasses.Fault(r) }
