package triage

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strconv"
	"time"

	"github.com/triage-go/triage/fault"
)

// Document is fb's JSON as MarshalDocument(fb) writes it, byte for byte:
// the feedback a service stores and answers. It writes the members itself
// rather than by reflection, where encoding/json would make a value for
// each member of the context's maps (most of the allocations of a
// feedback's document); a value of a type it does not write itself (see
// appendValue) is written by encoding/json, so that the bytes and the
// failures stay encoding/json's. FuzzFeedbackDocument holds it to
// MarshalDocument.
func (fb *Feedback) Document() (json.RawMessage, error) {
	if fb == nil {
		return json.RawMessage("null"), nil
	}
	var b bytes.Buffer
	b.Grow(768) // a feedback of the default policy with a small context
	if err := appendFeedback(&b, fb); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// OutcomesDocument is outs' JSON as MarshalDocument(outs) writes it, byte
// for byte: the actions a service stores with an occurrence, written as
// Feedback.Document writes a feedback.
func OutcomesDocument(outs []Outcome) (json.RawMessage, error) {
	if outs == nil {
		return json.RawMessage("null"), nil
	}
	var b bytes.Buffer
	b.Grow(160 * len(outs))
	b.WriteByte('[')
	for i := range outs {
		if i > 0 {
			b.WriteByte(',')
		}
		if err := appendOutcome(&b, &outs[i]); err != nil {
			return nil, err
		}
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

// appendFeedback writes fb's members in the order of Feedback's fields,
// each under its tag's name, the omitempty ones left out as encoding/json
// leaves them out.
func appendFeedback(b *bytes.Buffer, fb *Feedback) error {
	b.WriteString(`{"error_id":`)
	fault.AppendJSONString(b, fb.ErrorID)
	b.WriteString(`,"error_type":`)
	fault.AppendJSONString(b, string(fb.ErrorType))
	b.WriteString(`,"error_source":`)
	fault.AppendJSONString(b, fb.ErrorSource)
	b.WriteString(`,"severity":`)
	fault.AppendJSONString(b, string(fb.Severity))
	b.WriteString(`,"confidence":`)
	if err := appendFloat(b, fb.Confidence); err != nil {
		return err
	}
	b.WriteString(`,"user_message":`)
	fault.AppendJSONString(b, fb.UserMessage)
	b.WriteString(`,"recovery_suggestions":`)
	appendStrings(b, fb.RecoverySuggestions)
	b.WriteString(`,"automated_actions":`)
	appendStrings(b, fb.AutomatedActions)
	b.WriteString(`,"context_preserved":`)
	b.WriteString(strconv.FormatBool(fb.ContextPreserved))
	b.WriteString(`,"query_id":`)
	fault.AppendJSONString(b, fb.QueryID)
	b.WriteString(`,"timestamp":`)
	if err := appendTime(b, fb.Timestamp); err != nil {
		return err
	}
	b.WriteString(`,"next_action":`)
	fault.AppendJSONString(b, string(fb.NextAction))
	b.WriteString(`,"root_cause":{"cause":`)
	fault.AppendJSONString(b, fb.RootCause.Cause)
	b.WriteString(`,"confidence":`)
	if err := appendFloat(b, fb.RootCause.Confidence); err != nil {
		return err
	}
	b.WriteString(`,"evidence":`)
	appendStrings(b, fb.RootCause.Evidence)
	b.WriteString(`},"attempt":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(fb.Attempt), 10))
	if fb.Retry != nil {
		b.WriteString(`,"retry":`)
		appendRetryPlan(b, fb.Retry)
	}
	b.WriteString(`,"fault":{"code":`)
	fault.AppendJSONString(b, string(fb.Fault.Code))
	b.WriteString(`,"http_status":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(fb.Fault.HTTPStatus), 10))
	b.WriteString(`,"retryable":`)
	b.WriteString(strconv.FormatBool(fb.Fault.Retryable))
	if fb.Fault.RetryAfter != 0 {
		b.WriteString(`,"retry_after":`)
		b.Write(strconv.AppendInt(b.AvailableBuffer(), fb.Fault.RetryAfter, 10))
	}
	b.WriteByte('}')
	if len(fb.Context) > 0 {
		b.WriteString(`,"context":`)
		if err := appendMap(b, fb.Context, 0); err != nil {
			return err
		}
	}
	if fb.ContextRef != "" {
		b.WriteString(`,"context_ref":`)
		fault.AppendJSONString(b, fb.ContextRef)
	}
	if fb.Duplicate {
		b.WriteString(`,"duplicate":true`)
	}
	b.WriteByte('}')
	return nil
}

// appendOutcome writes o's members as appendFeedback writes a feedback's
// (Job is not written: its tag is "-").
func appendOutcome(b *bytes.Buffer, o *Outcome) error {
	b.WriteString(`{"action":`)
	fault.AppendJSONString(b, o.Action)
	b.WriteString(`,"status":`)
	fault.AppendJSONString(b, o.Status)
	b.WriteString(`,"detail":`)
	fault.AppendJSONString(b, o.Detail)
	if o.Note != "" {
		b.WriteString(`,"note":`)
		fault.AppendJSONString(b, o.Note)
	}
	if len(o.Suggestions) > 0 {
		b.WriteString(`,"suggestions":`)
		appendStrings(b, o.Suggestions)
	}
	if o.Retry != nil {
		b.WriteString(`,"retry":`)
		appendRetryPlan(b, o.Retry)
	}
	if o.Error != "" {
		b.WriteString(`,"error":`)
		fault.AppendJSONString(b, o.Error)
	}
	if len(o.Data) > 0 {
		b.WriteString(`,"data":`)
		if err := appendMap(b, o.Data, 0); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func appendRetryPlan(b *bytes.Buffer, r *RetryPlan) {
	b.WriteString(`{"attempt":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(r.Attempt), 10))
	b.WriteString(`,"delay_seconds":`)
	b.Write(strconv.AppendInt(b.AvailableBuffer(), r.DelaySeconds, 10))
	b.WriteString(`,"by":`)
	fault.AppendJSONString(b, string(r.By))
	b.WriteByte('}')
}

// appendStrings writes a []string as encoding/json does: nil is null.
func appendStrings(b *bytes.Buffer, ss []string) {
	if ss == nil {
		b.WriteString("null")
		return
	}
	b.WriteByte('[')
	for i, s := range ss {
		if i > 0 {
			b.WriteByte(',')
		}
		fault.AppendJSONString(b, s)
	}
	b.WriteByte(']')
}

// maxWrittenDepth is how deep appendValue writes maps and slices itself:
// deeper, encoding/json writes the rest, which is how a map that holds
// itself fails as it does with encoding/json rather than without end.
const maxWrittenDepth = 64

// appendValue writes v as encoding/json writes it (without HTML
// escaping): the types the decoders and the built-in actions put in a
// context or an outcome's data (maps of strings to values, slices,
// strings, booleans, float64 and integers, times) are written here,
// every other (json.Number, a struct, a type with its own MarshalJSON) by
// encoding/json, as are the floats and times encoding/json writes
// otherwise than at their simplest.
func appendValue(b *bytes.Buffer, v any, depth int) error {
	switch x := v.(type) {
	case nil:
		b.WriteString("null")
	case string:
		fault.AppendJSONString(b, x)
	case bool:
		b.WriteString(strconv.FormatBool(x))
	case float64:
		return appendFloat(b, x)
	case int:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), int64(x), 10))
	case int64:
		b.Write(strconv.AppendInt(b.AvailableBuffer(), x, 10))
	case time.Time:
		return appendTime(b, x)
	case map[string]any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		return appendMap(b, x, depth)
	case []any:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		if depth >= maxWrittenDepth {
			return appendEncoded(b, x)
		}
		b.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := appendValue(b, e, depth+1); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	case []string:
		appendStrings(b, x)
	case map[string]string:
		if x == nil {
			b.WriteString("null")
			return nil
		}
		return appendMembers(b, x, func(v string) error {
			fault.AppendJSONString(b, v)
			return nil
		})
	default:
		return appendEncoded(b, v)
	}
	return nil
}

// appendMap writes a non-nil map as encoding/json does: its members in
// the order of their names.
func appendMap(b *bytes.Buffer, m map[string]any, depth int) error {
	if depth >= maxWrittenDepth {
		return appendEncoded(b, m)
	}
	return appendMembers(b, m, func(v any) error { return appendValue(b, v, depth+1) })
}

// appendMembers writes a non-nil map's members as encoding/json does, in
// the order of their names, each value by value.
func appendMembers[V any](b *bytes.Buffer, m map[string]V, value func(V) error) error {
	var arr [8]string
	b.WriteByte('{')
	for i, k := range sortedKeys(arr[:0], m) {
		if i > 0 {
			b.WriteByte(',')
		}
		fault.AppendJSONString(b, k)
		b.WriteByte(':')
		if err := value(m[k]); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

// sortedKeys appends m's keys to keys, sorted.
func sortedKeys[V any](keys []string, m map[string]V) []string {
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// appendFloat writes f as encoding/json writes a float64 where it writes
// its shortest decimal form (zero, and magnitudes from 1e-6 below 1e21);
// the others (exponents, and NaN and the infinities, which it refuses) it
// writes itself.
func appendFloat(b *bytes.Buffer, f float64) error {
	if abs := math.Abs(f); abs == 0 || abs >= 1e-6 && abs < 1e21 {
		b.Write(strconv.AppendFloat(b.AvailableBuffer(), f, 'f', -1, 64))
		return nil
	}
	return appendEncoded(b, f)
}

// appendTime writes t as encoding/json does (time.Time.MarshalJSON: RFC
// 3339 with the nanoseconds it has, quoted); a time it refuses (a year
// beyond 9999) goes to encoding/json for its error.
func appendTime(b *bytes.Buffer, t time.Time) error {
	buf := append(b.AvailableBuffer(), '"')
	if buf, err := t.AppendText(buf); err == nil {
		b.Write(append(buf, '"'))
		return nil
	}
	return appendEncoded(b, t)
}

// appendEncoded writes v by encoding/json, as MarshalDocument does.
func appendEncoded(b *bytes.Buffer, v any) error {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil { // nothing written
		return err
	}
	b.Truncate(b.Len() - 1) // Encode's newline
	return nil
}
