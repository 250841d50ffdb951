package server

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/jsonmember"
)

var reportMembers = jsonmember.Decoder{Package: "server"}

// storedReport is a report's JSON as the service stores it, and as the
// record shows it: the body's members, with data.context redacted as
// DecodeReport redacts it (triage.RedactContext), data.fault the same
// way, and data.message as
// fault.Redact redacts any text a client may see, so that a secret an
// agent put in either is no more in the record than in the feedback.
//
// The report's and data's members are encoded again (compact, in the
// order of their names), each but the context as the body has it, and
// the context's numbers keep their digits; of members given twice the
// last is kept, as DecodeReport keeps it, so that an earlier copy the
// handler never saw is not stored either. body is a report DecodeReport
// took: valid JSON, Unicode text, an object whose data is an object.
func storedReport(body []byte) (json.RawMessage, error) {
	top, err := reportMembers.Object(body, "")
	if err != nil {
		return nil, err
	}
	data, err := reportMembers.ObjectOfMember(top["data"], "data")
	if err != nil {
		return nil, err
	}
	// The context, the agent's fault and every member the format does not
	// name: their strings redacted, their credential-named members dropped.
	if err := redactMembers(data, func(name string) bool {
		return name == "context" || name == "fault" || !slices.Contains(dataMembers, name)
	}); err != nil {
		return nil, err
	}
	if raw, ok := data["message"]; ok {
		var msg string
		if json.Unmarshal(raw, &msg) == nil {
			if data["message"], err = marshal(fault.Redact(msg)); err != nil {
				return nil, err
			}
		}
	}
	if top["data"], err = marshal(data); err != nil {
		return nil, err
	}
	if err := redactMembers(top, func(name string) bool { return !slices.Contains(reportMembersNamed, name) }); err != nil {
		return nil, err
	}
	return marshal(top)
}

// The members of a report and of its data that the format names; the
// identifiers among them are checked by DecodeReport, so only the free
// text and the documents need redacting.
var (
	reportMembersNamed = []string{"agent_id", "timestamp", "status", "data"}
	dataMembers        = []string{"error_type", "error_code", "message", "context", "query_id", "fault"}
)

// redactMembers redacts, in place, the members of obj that which selects:
// as triage.RedactContext redacts a context (strings through fault.Redact,
// members named for a credential dropped, numbers kept as written).
func redactMembers(obj map[string]json.RawMessage, which func(string) bool) error {
	picked := map[string]any{}
	for name, raw := range obj {
		if !which(name) || jsonmember.IsNull(raw) {
			continue
		}
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var v any
		if err := dec.Decode(&v); err != nil {
			return err
		}
		picked[name] = v
		delete(obj, name)
	}
	if len(picked) == 0 {
		return nil
	}
	for name, v := range triage.RedactContext(picked) {
		doc, err := marshal(v)
		if err != nil {
			return err
		}
		obj[name] = doc
	}
	return nil
}
