package bridge

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/wire/jsonrpc"
)

// addTool registers a tool whose input and output schemas are inferred
// from In and Out. It does what the go-sdk's AddTool does (decode,
// validate, structured output) but answers a failure itself: the SDK would
// put a failed call's zero Out in structuredContent and check it against
// the output schema, so a failure could not carry the fault.
//
// The output schema is Out's, with an "error" member for the failure and
// "anyOf" [Out's required members, error], so that both a result and a
// failure match it: the official TypeScript client checks structuredContent
// against the output schema even when isError is set.
func addTool[In, Out any](b *Bridge, t *mcp.Tool, h func(context.Context, *mcp.CallToolRequest, In) (Out, error)) {
	in, err := jsonschema.For[In](nil)
	if err != nil {
		panic(fmt.Sprintf("bridge: %s input schema: %v", t.Name, err))
	}
	tighten(in)
	inResolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("bridge: %s input schema: %v", t.Name, err))
	}
	out, err := outputSchema[Out]()
	if err != nil {
		panic(fmt.Sprintf("bridge: %s output schema: %v", t.Name, err))
	}
	t.InputSchema, t.OutputSchema = in, out
	name := t.Name
	b.server.AddTool(t, func(ctx context.Context, req *mcp.CallToolRequest) (res *mcp.CallToolResult, err error) {
		defer b.running(req.Session)()
		// The SDK's context of the call, which it cancels once the answer
		// is written: a failure is told to OnFailure's func then.
		call := ctx
		// Neither the go-sdk nor net/http's server sees a panic here (the
		// SDK runs the call on a goroutine of its own): unrecovered, it
		// would end the process, every tenant's sessions with it.
		defer func() {
			if p := recover(); p != nil {
				b.cfg.Logger.Error("panic in a tool call", slog.String("tool", name), slog.String("panic", fault.Redact(fmt.Sprint(p))))
				res, err = b.failCall(call, req, name, fault.New(fault.InternalError, "The bridge failed to handle the call."), sentIDs(req.Params.Arguments))
			}
		}()
		// The ids the arguments carry, for a failure's text.
		sent := sentIDs(req.Params.Arguments)
		if b.enter(ctx) {
			return b.failCall(call, req, name, errShutdown(nil), sent)
		}
		// Shutdown cancels the call with ErrShutdown; its answer says so.
		ctx, cancel := context.WithCancelCause(ctx)
		defer cancel(nil)
		defer context.AfterFunc(b.life, func() { cancel(context.Cause(b.life)) })()
		failed := func(err error) (*mcp.CallToolResult, error) {
			if errors.Is(context.Cause(ctx), ErrShutdown) {
				err = errShutdown(err)
			}
			return b.failCall(call, req, name, err, sent)
		}
		if !unlimited[name] {
			release, err := b.acquire(b.owner(ctx, req))
			if err != nil {
				return failed(err)
			}
			defer release()
		}
		if name != "sessions_prompt" && name != "tasks_delegate" {
			var cancel context.CancelFunc
			ctx, cancel = context.WithTimeout(ctx, b.cfg.RequestTimeout)
			defer cancel()
		}
		var input In
		if err := decode(req.Params.Arguments, inResolved, &input); err != nil {
			return failed(err)
		}
		output, err := h(ctx, req, input)
		if err != nil {
			return failed(err)
		}
		data, err := json.Marshal(output)
		if err != nil {
			return b.failCall(call, req, name, err, sent)
		}
		text := string(data)
		if t, ok := any(output).(texter); ok {
			text = t.text()
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: text}},
			StructuredContent: json.RawMessage(data),
		}, nil
	})
}

// texter is an output with a text of its own, for a model or a person,
// which the result's content carries instead of the JSON (the structured
// content has it).
type texter interface{ text() string }

// unlimited are the calls the concurrency limit does not hold back: they
// do little and free what the others hold, so a bridge full of hanging
// prompts can still be inspected and relieved.
var unlimited = map[string]bool{"bridge_health": true, "sessions_cancel": true, "sessions_close": true}

// tighten asks for non-empty ids and prompts; and, for the errors_*
// tools, for the service's identifiers, its enumerations and its bounds,
// so that a client sees the rules before it calls.
func tighten(s *jsonschema.Schema) {
	for name, p := range s.Properties {
		switch name {
		case "agentId", "sessionId":
			p.MinLength, p.MaxLength = ptr(1), ptr(128)
		case "prompt":
			p.MinLength = ptr(1)
		case "errorId", "queryId", "errorCode":
			p.MinLength, p.MaxLength, p.Pattern = ptr(1), ptr(128), identifierPattern
		case "errorType":
			p.Enum = enum(append(triage.ErrorTypes(), triage.Unknown))
		case "severity":
			p.Enum = enum([]triage.Severity{triage.SeverityLow, triage.SeverityMedium, triage.SeverityHigh, triage.SeverityCritical})
		case "status":
			p.Enum = enum([]triage.Status{triage.StatusUnresolved, triage.StatusResolved, triage.StatusIgnored})
		case "limit":
			p.Minimum, p.Maximum = ptr(1.0), ptr(float64(MaxSearchLimit))
		case "message":
			p.MinLength, p.MaxLength = ptr(1), ptr(triage.MaxMessage)
		case "note":
			p.MaxLength = ptr(triage.MaxNoteLength)
		case "ignoreSeconds", "ignoreCount", "ignoreWindowSeconds":
			p.Minimum = ptr(1.0)
		case "since", "timestamp":
			p.Format = "date-time"
		}
	}
}

// identifierPattern is triage.IsIdentifier's rule (its length aside).
const identifierPattern = `^[A-Za-z0-9][A-Za-z0-9_.:-]*$`

// enum is the values of a string enumeration, for a schema.
func enum[S ~string](values []S) []any {
	out := make([]any, len(values))
	for i, v := range values {
		out[i] = string(v)
	}
	return out
}

func outputSchema[Out any]() (*jsonschema.Schema, error) {
	s, err := jsonschema.For[Out](nil)
	if err != nil {
		return nil, err
	}
	fail, err := jsonschema.For[Failure](nil)
	if err != nil {
		return nil, err
	}
	if s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.Properties["error"] = fail
	s.AnyOf = []*jsonschema.Schema{{Required: s.Required}, {Required: []string{"error"}}}
	s.Required = nil
	if _, err := s.Resolve(nil); err != nil {
		return nil, err
	}
	return s, nil
}

// decode reads a call's arguments: JSON, valid against the input schema.
// Anything else is INVALID_REQUEST, which the MCP specification reports as
// a tool result so that the model can correct its call.
func decode(args json.RawMessage, schema *jsonschema.Resolved, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = []byte("{}")
	}
	var instance any
	if err := json.Unmarshal(args, &instance); err != nil {
		return fault.Invalid("The arguments are not JSON", fault.FieldError{Field: "arguments", Message: "not JSON"})
	}
	if err := schema.Validate(instance); err != nil {
		return fault.Invalid("The arguments do not match the tool's input schema",
			fault.FieldError{Field: "arguments", Message: fault.Redact(trimValidation(err.Error()))})
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fault.Invalid("The arguments do not match the tool's input schema",
			fault.FieldError{Field: "arguments", Message: "does not decode"})
	}
	return nil
}

func trimValidation(s string) string {
	const prefix = "validating root: "
	if len(s) > len(prefix) && s[:len(prefix)] == prefix {
		s = s[len(prefix):]
	}
	if len(s) > 512 {
		s = s[:512]
	}
	return s
}

// fail answers a failed call: an isError result carrying the fault (the
// default), or seed 002's JSON-RPC error. sent are the ids the call's
// arguments carried, which its text names when the fault does not.
func (b *Bridge) fail(tool string, err error, sent map[string]sentID) (*mcp.CallToolResult, error) {
	f := fault.From(err)
	b.cfg.Logger.Info("tool call failed", "tool", tool, "code", string(f.Code), "category", string(f.Category))
	fl := newFailure(tool, f, sent)
	if b.cfg.ErrorMode == ErrorsAsJSONRPC {
		e := jsonrpc.From(f)
		data, merr := json.Marshal(fl)
		if merr != nil {
			return nil, errors.Join(err, merr)
		}
		return nil, &mcpError{Code: int64(e.Code), Message: e.Message, Data: data}
	}
	return fl.result(f).SDK(), nil
}
