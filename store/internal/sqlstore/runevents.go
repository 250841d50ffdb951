package sqlstore

import (
	"encoding/json"
	"fmt"

	"github.com/triage-go/triage/store"
)

// runEvents is the document of a run's events column.
type runEvents struct {
	Events  []store.RunEvent `json:"events"`
	Omitted int              `json:"omitted,omitempty"`
}

// checkRunEvents refuses an outline of events FinishRun may not record:
// see store.ErrInvalidRun.
func checkRunEvents(events []store.RunEvent, omitted int) error {
	if len(events) > store.MaxRunEvents {
		return fmt.Errorf("%w: %d events, over %d (store.MaxRunEvents)", store.ErrInvalidRun, len(events), store.MaxRunEvents)
	}
	if omitted < 0 {
		return fmt.Errorf("%w: negative events omitted %d", store.ErrInvalidRun, omitted)
	}
	for i, e := range events {
		if e.Type == "" {
			return fmt.Errorf("%w: event %d has no type", store.ErrInvalidRun, i)
		}
		if e.Count < 1 {
			return fmt.Errorf("%w: event %d counts %d events, under 1", store.ErrInvalidRun, i, e.Count)
		}
		for _, c := range []struct{ what, v string }{{"type", e.Type}, {"step name", e.StepName},
			{"tool call name", e.ToolCallName}, {"name", e.Name}, {"code", e.Code},
			{"message id", e.MessageID}, {"tool call id", e.ToolCallID}, {"role", e.Role}} {
			if err := checkRunID(fmt.Sprintf("event %d's %s", i, c.what), c.v, false); err != nil {
				return err
			}
		}
	}
	return nil
}

// normalEvents is events as GetRun reads them back: their times in UTC,
// without a monotonic reading; nil for none.
func normalEvents(events []store.RunEvent) []store.RunEvent {
	if len(events) == 0 {
		return nil
	}
	out := make([]store.RunEvent, len(events))
	for i, e := range events {
		e.At = fromNanos(nanos(e.At))
		out[i] = e
	}
	return out
}

// encodeRunEvents is the events column's document; nil (NULL) for no
// events and none omitted.
func encodeRunEvents(events []store.RunEvent, omitted int) ([]byte, error) {
	if len(events) == 0 && omitted == 0 {
		return nil, nil
	}
	return json.Marshal(runEvents{Events: normalEvents(events), Omitted: omitted})
}

// decodeRunEvents reads the events column's document (empty: none).
func decodeRunEvents(doc []byte) ([]store.RunEvent, int, error) {
	if len(doc) == 0 {
		return nil, 0, nil
	}
	var d runEvents
	if err := json.Unmarshal(doc, &d); err != nil {
		return nil, 0, fmt.Errorf("a run's events: %w", err)
	}
	if len(d.Events) == 0 {
		d.Events = nil
	}
	return d.Events, d.Omitted, nil
}
