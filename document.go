package triage

import (
	"bytes"
	"encoding/json"
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
	var b bytes.Buffer
	b.Grow(documentSize(r.members) + 32)
	err := writeMembers(&b, r.members, func(b *bytes.Buffer, name string, raw json.RawMessage) (bool, error) {
		switch {
		case name == "data":
			// The context, the agent's fault and every member the
			// format does not name: their strings redacted, their
			// credential-named members dropped; the message redacted.
			return true, writeMembers(b, r.dataMembers, func(b *bytes.Buffer, name string, raw json.RawMessage) (bool, error) {
				switch {
				case name == "message":
					// As json.Unmarshal into a string takes it: a
					// string, or null for "".
					switch {
					case jsonmember.Kind(raw) == "string":
						fault.AppendRedactedString(b, bytes.TrimSpace(raw))
						return true, nil
					case jsonmember.IsNull(raw):
						fault.AppendJSONString(b, fault.Redact(""))
						return true, nil
					}
				case name == "context" || name == "fault" || !slices.Contains(dataMemberNames, name):
					return redactMember(b, name, raw)
				}
				return true, json.Compact(b, raw)
			})
		case !slices.Contains(reportMemberNames, name):
			return redactMember(b, name, raw)
		}
		return true, json.Compact(b, raw)
	})
	if err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// The members of a report and of its data that the format names; the
// identifiers among them are checked by DecodeReport, so only the free
// text and the documents need redacting.
var (
	reportMemberNames = []string{"agent_id", "timestamp", "status", "environment", "release", "data"}
	dataMemberNames   = []string{"error_type", "error_code", "message", "context", "query_id", "fault"}
)

// writeMembers writes obj as a compact JSON object, its members in the
// order of their names (as encoding/json writes a map), each value
// written by value: false to leave the member out (value wrote nothing).
func writeMembers(b *bytes.Buffer, obj map[string]json.RawMessage, value func(b *bytes.Buffer, name string, raw json.RawMessage) (bool, error)) error {
	var arr [8]string
	names := arr[:0]
	for name := range obj {
		names = append(names, name)
	}
	slices.Sort(names)
	b.WriteByte('{')
	n, mark := 0, b.Len()
	for _, name := range names {
		if n > 0 {
			b.WriteByte(',')
		}
		fault.AppendJSONString(b, name)
		b.WriteByte(':')
		kept, err := value(b, name, obj[name])
		if err != nil {
			return err
		}
		if kept {
			n, mark = n+1, b.Len()
		} else {
			b.Truncate(mark)
		}
	}
	b.WriteByte('}')
	return nil
}

// redactMember writes a member's value redacted as RedactContext redacts
// a context (strings through fault.Redact, members named for a credential
// dropped, numbers kept as written): false when the member is dropped
// itself, for its name. A null stays null.
func redactMember(b *bytes.Buffer, name string, raw json.RawMessage) (bool, error) {
	if jsonmember.IsNull(raw) {
		b.WriteString("null")
		return true, nil
	}
	return fault.AppendSanitizedMember(b, name, raw)
}

// documentSize is about the size of a document of these members.
func documentSize(members map[string]json.RawMessage) int {
	n := 0
	for name, raw := range members {
		n += len(name) + len(raw) + 4
	}
	return n
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
