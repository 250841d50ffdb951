package server

import (
	"bytes"
	"encoding/json"

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
	if raw, ok := data["context"]; ok && !jsonmember.IsNull(raw) {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var c map[string]any
		if err := dec.Decode(&c); err != nil {
			return nil, err
		}
		if data["context"], err = marshal(triage.RedactContext(c)); err != nil {
			return nil, err
		}
	}
	if raw, ok := data["fault"]; ok && !jsonmember.IsNull(raw) {
		// A Triage fault from the agent: its strings redacted and its
		// credential-named members dropped, as the context's.
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		var f map[string]any
		if err := dec.Decode(&f); err != nil {
			return nil, err
		}
		if data["fault"], err = marshal(triage.RedactContext(f)); err != nil {
			return nil, err
		}
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
	return marshal(top)
}
