package triage

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

// Document is the report's JSON as a service stores it and as its record
// shows it: for a report DecodeReport returned, the members it was sent
// with, read when it was decoded (none is parsed again), with data.context
// redacted as DecodeReport redacts it (RedactContext), data.fault and
// every member the format does not name the same way, and data.message as
// fault.Redact redacts any text a client may see, so that a secret an
// agent put in any of them is no more in the record than in the feedback.
// The members are encoded again compact, in the order of their names, each
// but the redacted ones as it was sent, the context's numbers keeping
// their digits; of members given twice the last is kept, as DecodeReport
// keeps it. For a report built in code, the report's own JSON, its context
// redacted.
func (r *Report) Document() (json.RawMessage, error) {
	if r.members == nil {
		c := *r
		c.Data.Context = RedactContext(c.Data.Context)
		c.Data.Message = fault.Redact(c.Data.Message)
		return MarshalDocument(&c)
	}
	data := maps.Clone(r.dataMembers)
	// The context, the agent's fault and every member the format does not
	// name: their strings redacted, their credential-named members dropped.
	if err := redactMembers(data, func(name string) bool {
		return name == "context" || name == "fault" || !slices.Contains(dataMemberNames, name)
	}); err != nil {
		return nil, err
	}
	if raw, ok := data["message"]; ok {
		var msg string
		if json.Unmarshal(raw, &msg) == nil {
			doc, err := MarshalDocument(fault.Redact(msg))
			if err != nil {
				return nil, err
			}
			data["message"] = doc
		}
	}
	top := maps.Clone(r.members)
	doc, err := MarshalDocument(data)
	if err != nil {
		return nil, err
	}
	top["data"] = doc
	if err := redactMembers(top, func(name string) bool { return !slices.Contains(reportMemberNames, name) }); err != nil {
		return nil, err
	}
	return MarshalDocument(top)
}

// The members of a report and of its data that the format names; the
// identifiers among them are checked by DecodeReport, so only the free
// text and the documents need redacting.
var (
	reportMemberNames = []string{"agent_id", "timestamp", "status", "environment", "release", "data"}
	dataMemberNames   = []string{"error_type", "error_code", "message", "context", "query_id", "fault"}
)

// redactMembers redacts, in place, the members of obj that which selects:
// as RedactContext redacts a context (strings through fault.Redact,
// members named for a credential dropped, numbers kept as written).
func redactMembers(obj map[string]json.RawMessage, which func(string) bool) error {
	picked := map[string]any{}
	for name, raw := range obj {
		if !which(name) || jsonmember.IsNull(raw) {
			continue
		}
		d := json.NewDecoder(bytes.NewReader(raw))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			return err
		}
		picked[name] = v
		delete(obj, name)
	}
	if len(picked) == 0 {
		return nil
	}
	for name, v := range RedactContext(picked) {
		doc, err := MarshalDocument(v)
		if err != nil {
			return err
		}
		obj[name] = doc
	}
	return nil
}

// MarshalDocument is json.Marshal without HTML escaping, compact: how the
// documents a service stores and answers (a report, a feedback) are
// written, so that a '<' in a report does not take six bytes of the store
// and of every page's byte budget.
func MarshalDocument(v any) (json.RawMessage, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
