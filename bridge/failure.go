package bridge

import (
	"errors"
	"strconv"
	"strings"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
)

type mcpError = sdkjsonrpc.Error

// Failure is what a failed tool call carries, as structuredContent's
// "error" member (or, in the JSON-RPC error mode, as the error's data): the
// five things seed 002 says every failure reports — category (type), the
// message, retryability, session validity and the recovery options — with
// the rest of the fault's JSON-RPC data.
type Failure struct {
	// Message is the fault's message, safe for users and models.
	Message string `json:"message"`
	jsonrpc.Data
	// Tool is the tool that failed.
	Tool string `json:"tool"`
	// Hint says in a sentence what probably happened.
	Hint string `json:"hint,omitempty"`
	// Recovery is what the caller can do next, in order.
	Recovery []Recovery `json:"recovery"`

	// sent are the ids the call's arguments carried, for the text when
	// the fault names none.
	sent map[string]sentID
}

// Recovery is one thing the caller can do after a failure, with the tool
// that does it, if one does: wire/jsonrpc's, which writes it in the text.
type Recovery = jsonrpc.Recovery

// newFailure is the failure of tool, from its fault and the ids its
// arguments carried. An id the fault's details lack but the arguments
// carried (the call failed before it was read: a prompt too large,
// arguments the schema refuses) is added to the details as the text shows
// it.
func newFailure(tool string, f *fault.Error, sent map[string]sentID) *Failure {
	d := jsonrpc.DataFrom(f)
	hint, rec := recovery(tool, f)
	for key, id := range sent {
		if _, ok := d.Details[key]; !ok && id.str && id.shown != "" {
			if d.Details == nil {
				d.Details = map[string]any{}
			}
			d.Details[key] = id.shown
		}
	}
	return &Failure{Message: printable(fault.Redact(f.Message)), Data: *d, Tool: tool, Hint: hint, Recovery: rec, sent: sent}
}

// result is the failure as an isError tool result (wire/jsonrpc's
// ToolResult): structuredContent {"error": fl}, and the text seed 002
// words for a user or a model:
//
//	Failed to submit prompt to session 'abc-123':
//	Session not found: abc-123 (UPSTREAM, not retryable, session not valid)
//
//	The session may have expired. You can:
//	1. Create a new session with sessions_create
//	2. Check available agents with agents_discover
//
// f is the call's fault, which fl was made from.
func (fl *Failure) result(f *fault.Error) *jsonrpc.ToolResult {
	f = f.Clone()
	f.Message = fl.Message // printable: a line break would break the text
	return (&jsonrpc.ToolResultOptions{Member: "error", Failure: fl,
		Lead: fl.lead(), Hint: fl.Hint, Recovery: fl.Recovery}).ToolResult(f)
}

// id says the id key of the call: the fault's (details), or the one its
// arguments carried, quoted; or, in brackets, that none was sent, that it
// was empty, or that it was not a string.
func (fl *Failure) id(key string) string {
	if s, _ := fl.Details[key].(string); s != "" {
		return "'" + showID(s) + "'"
	}
	id := fl.sent[key]
	switch {
	case !id.given:
		return "(no " + key + " was sent)"
	case !id.str:
		return "(the " + key + " sent is not a string: " + id.shown + ")"
	case id.shown == "":
		return "(an empty " + key + " was sent)"
	}
	return "'" + id.shown + "'"
}

// lead names what the call tried to do.
func (fl *Failure) lead() string {
	switch fl.Tool {
	case "sessions_prompt":
		if a, _ := fl.Details["agentId"].(string); a != "" {
			return "Failed to submit prompt to agent " + fl.id("agentId")
		}
		return "Failed to submit prompt to session " + fl.id("sessionId")
	case "sessions_create":
		return "Failed to create a session with agent " + fl.id("agentId")
	case "tasks_delegate":
		return "Failed to delegate the task to agent " + fl.id("agentId")
	case "sessions_status":
		return "Failed to get the status of session " + fl.id("sessionId")
	case "sessions_cancel":
		return "Failed to cancel session " + fl.id("sessionId")
	case "sessions_close":
		return "Failed to close session " + fl.id("sessionId")
	case "agents_discover":
		return "Failed to discover agents"
	case "bridge_health":
		return "Failed to check bridge health"
	case "errors_search":
		return "Failed to search errors"
	case "errors_get":
		return "Failed to get error " + fl.id("errorId")
	case "errors_report":
		return "Failed to report the error"
	case "errors_update":
		return "Failed to update error " + fl.id("errorId")
	}
	return "Failed to call " + fl.Tool
}

// recovery says what probably happened and what to do next, from the
// fault's code and facets and the tool that failed.
func recovery(tool string, f *fault.Error) (string, []Recovery) {
	again := Recovery{Action: "Retry the call", Tool: tool}
	if f.RetryAfter > 0 {
		again.Action = "Retry the call after " + strconv.FormatInt(fault.Seconds(f.RetryAfter), 10) + " seconds"
	}
	newSession := Recovery{Action: "Create a new session", Tool: "sessions_create"}
	discover := Recovery{Action: "Check available agents", Tool: "agents_discover"}
	health := Recovery{Action: "Check the bridge's readiness", Tool: "bridge_health"}
	if errors.Is(f, ErrShutdown) {
		return "The bridge is shutting down: its sessions end with it.", []Recovery{
			{Action: "Reconnect once the bridge is back (a client that started it over stdio starts it again)"},
			newSession, again}
	}
	switch f.Code {
	case fault.SessionNotFound:
		return "The session may have expired, been closed, or lost its worker.", []Recovery{newSession, discover}
	case fault.CapabilityNotFound:
		return "No agent has that id.", []Recovery{discover}
	case fault.NotFound:
		if strings.HasPrefix(tool, "errors_") {
			return "No error with that id is visible to this tenant.", []Recovery{
				{Action: "Find the error's id", Tool: "errors_search"}}
		}
	case fault.SessionBusy:
		return "The session is still answering an earlier prompt.", []Recovery{
			{Action: "Wait for it and check its state", Tool: "sessions_status"},
			{Action: "Stop the running prompt", Tool: "sessions_cancel"}}
	case fault.Cancelled:
		return "The prompt was cancelled; the session takes new prompts.", []Recovery{
			{Action: "Send the prompt again", Tool: "sessions_prompt"}}
	case fault.PayloadTooLarge:
		return "The request is larger than the bridge accepts.", []Recovery{
			{Action: "Send a shorter prompt or less metadata", Tool: tool}}
	case fault.InvalidRequest:
		if strings.HasPrefix(tool, "errors_") {
			return "The call was refused as invalid; the details say which argument and why.", []Recovery{
				{Action: "Correct the arguments and call again", Tool: tool}}
		}
		return "The call was refused as invalid; the message says what to change.", []Recovery{
			{Action: "Correct the arguments or the prompt and call again", Tool: tool}}
	case fault.ConfigError:
		return "The bridge is misconfigured; an operator must fix its agents file or environment.", []Recovery{health, discover}
	case fault.ProviderAuthFailed:
		return "The agent's provider rejected its credentials; fix the API key, do not retry.", []Recovery{
			{Action: "Ask the operator to fix the provider's API key"}, discover}
	case fault.InternalError:
		return "The bridge itself failed.", []Recovery{health, {Action: "Restart the bridge if it is not ready"}}
	case fault.ProtocolError:
		report := Recovery{Action: "Report the worker's failure to its maintainer"}
		if f.SessionValid {
			return "The agent's worker answered something the protocol does not allow.", []Recovery{report, health}
		}
		return "The agent's worker answered something the protocol does not allow.", []Recovery{newSession, report}
	}
	if f.Code == fault.ServiceUnavailable && !f.Retryable {
		return "The agent holds as many sessions as it can.", []Recovery{
			{Action: "Close sessions you no longer use", Tool: "sessions_close"},
			{Action: "Once one is closed, call again", Tool: tool}}
	}
	if f.Retryable {
		rec := []Recovery{again}
		if !f.SessionValid && tool == "sessions_prompt" {
			rec = []Recovery{newSession, {Action: "Send the prompt to the new session", Tool: "sessions_prompt"}}
		}
		if f.Category == fault.CategoryTransport || f.Category == fault.CategoryTimeout {
			rec = append(rec, health)
		}
		return "The failure is transient.", rec
	}
	rec := []Recovery{{Action: "Report the failure; retrying will fail the same way"}}
	if !f.SessionValid && (tool == "sessions_prompt" || tool == "sessions_status") {
		rec = append([]Recovery{newSession}, rec...)
	}
	return "", append(rec, health)
}
