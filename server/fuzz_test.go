package server

import (
	"net/http"
	"net/url"
	"slices"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
)

// Every decoder of the API answers bad input with an INVALID_REQUEST fault
// naming fields, never a panic or another kind of error. Seeds live in
// testdata/fuzz.

func checkInvalid(t *testing.T, err error) {
	t.Helper()
	if err == nil {
		return
	}
	f, ok := fault.As(err)
	if !ok || f.Code != fault.InvalidRequest || len(f.FieldErrors) == 0 {
		t.Fatalf("not an INVALID_REQUEST with field errors: %#v", err)
	}
	if s := f.HTTPStatus(); s != http.StatusBadRequest && s != http.StatusUnprocessableEntity {
		t.Fatalf("status %d", s)
	}
}

func FuzzDecodeSchema(f *testing.F) {
	f.Add([]byte(`{"fields":["a","b"],"synonyms":{"c":"a"}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		info, err := decodeSchema(body)
		checkInvalid(t, err)
		if err == nil {
			have := map[string]bool{}
			for _, f := range info.Fields {
				have[f] = true
			}
			for from, to := range info.Synonyms {
				if !have[to] {
					t.Fatalf("synonym %q maps to %q, not a field", from, to)
				}
			}
		}
	})
}

func FuzzDecodeCached(f *testing.F) {
	f.Add([]byte(`{"summary":"sales by month","stored_at":"2025-08-08T10:15:00Z","data":{"rows":3}}`))
	now := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeCached(body, now)
		checkInvalid(t, err)
		if err == nil && (r.StoredAt.IsZero() || r.StoredAt.After(now.Add(time.Minute))) {
			t.Fatalf("stored_at %v", r.StoredAt)
		}
	})
}

func FuzzDecodeAgent(f *testing.F) {
	f.Add([]byte(`{"callback_url":"https://agents.example/retry"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		u, err := decodeAgent(body)
		checkInvalid(t, err)
		if err == nil {
			p, perr := url.Parse(u)
			if perr != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "" || p.User != nil {
				t.Fatalf("accepted callback %q", u)
			}
		}
	})
}

func FuzzParseFilter(f *testing.F) {
	f.Add("query_id=q_1&severity=high&since=2025-08-08T00:00:00Z&limit=10")
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		filter, err := parseFilter(q)
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if filter.Limit < 0 || filter.Limit > 500 {
			t.Fatalf("limit %d", filter.Limit)
		}
		if _, err := store.ParseSearch(filter.Search); filter.Search != "" && err != nil {
			t.Fatalf("q %q taken: %v", filter.Search, err)
		}
		if filter.Window != 0 && (filter.Sort != store.SortCount || filter.Window%time.Hour != 0 || filter.Window > store.MaxWindow) {
			t.Fatalf("window %v with sort %q", filter.Window, filter.Sort)
		}
	})
}

func FuzzParseCountFilter(f *testing.F) {
	f.Fuzz(func(t *testing.T, query string, all bool) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		filter, err := parseCountFilter(q, all)
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if filter.Bucket != time.Hour && filter.Bucket != 24*time.Hour || filter.Limit < 0 || filter.Limit > store.MaxCountSeries ||
			len(filter.ErrorIDs) > store.MaxCountSeries || !all && (filter.By != "" || filter.ErrorIDs != nil) {
			t.Fatalf("%q: %+v", query, filter)
		}
	})
}

func FuzzIdempotencyKey(f *testing.F) {
	f.Add(`"8e03978e-40d5-43e8-bc93-6894a57f9324"`)
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{}
		h.Set("Idempotency-Key", v)
		key, err := idempotencyKey(h)
		checkInvalid(t, err)
		if err == nil {
			if len(key) == 0 || len(key) > 255 {
				t.Fatalf("key %q", key)
			}
			for i := 0; i < len(key); i++ {
				if key[i] < 0x21 || key[i] > 0x7e {
					t.Fatalf("key %q has byte %#x", key, key[i])
				}
			}
		}
	})
}

// FuzzDecodeChange: PATCH /v1/errors/{error_id}'s body decodes to a
// change, or to an INVALID_REQUEST naming its members; a change that
// decodes is either applied by the workflow's rules or refused by them as
// a 422 or 409 naming its members, never another error.
func FuzzDecodeChange(f *testing.F) {
	f.Add([]byte(`{"status":"resolved","resolution":{"in_release":"1.4"},"note":"fixed"}`))
	f.Add([]byte(`{"status":"ignored","ignore":{"count":3,"window_seconds":600}}`))
	f.Add([]byte(`{"assignee":"team-db"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		c, err := decodeChange(body)
		checkInvalid(t, err)
		if err != nil {
			return
		}
		_, _, err = (triage.Workflow{Status: triage.StatusUnresolved}).Apply(c, "fuzz", time.Unix(0, 0), triage.Releases{})
		if err == nil {
			return
		}
		fe, ok := fault.As(err)
		if !ok || fe.Code != fault.InvalidRequest || len(fe.FieldErrors) == 0 || (fe.HTTPStatus() != 422 && fe.HTTPStatus() != 409) {
			t.Fatalf("Apply refused %+v with %#v", c, err)
		}
	})
}

// FuzzDecodeRecordsChange: POST /v1/errors/changes' body decodes to a
// change and a filter of valid values, or to an INVALID_REQUEST.
func FuzzDecodeRecordsChange(f *testing.F) {
	f.Add([]byte(`{"change":{"status":"resolved"},"filter":{"agent_id":"sql_agent","status":"unresolved","since":"2026-12-01T00:00:00Z"}}`))
	f.Add([]byte(`{"change":{"status":"ignored"},"filter":{"error_ids":["err_1","err_2"]}}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		_, filter, err := decodeRecordsChange(body)
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if filter.Status != "" && !filter.Status.Valid() || len(filter.ErrorIDs) > triage.MaxBulkIDs {
			t.Fatalf("accepted filter %+v", filter)
		}
		for _, id := range filter.ErrorIDs {
			if !triage.IsIdentifier(id) {
				t.Fatalf("accepted error_id %q", id)
			}
		}
	})
}

func FuzzDecodeAlertRule(f *testing.F) {
	f.Add([]byte(`{"when":"frequency","count":100,"window_seconds":60,"throttle_seconds":600,"targets":["oncall"]}`))
	targets := []triage.AlertTarget{{Name: "oncall", Kind: triage.TargetPagerDuty, RoutingKey: "k"}}
	f.Fuzz(func(t *testing.T, body []byte) {
		r, err := decodeAlertRule(body, "bursts")
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if r.ID != "bursts" {
			t.Fatalf("the rule's id %q, not the path's", r.ID)
		}
		// Whatever decoded, the check names what is wrong, field by field.
		checkInvalid(t, service.AlertConfig{Rules: []triage.AlertRule{r}, Targets: targets}.Check())
	})
}

func FuzzDecodeAlertTarget(f *testing.F) {
	f.Add([]byte(`{"kind":"webhook","url":"https://hooks.example.com/triage","secret":"whsec_c2VjcmV0"}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		tg, err := decodeAlertTarget(body, "hook")
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if tg.Name != "hook" {
			t.Fatalf("the target's name %q, not the path's", tg.Name)
		}
		if err := (service.AlertConfig{Targets: []triage.AlertTarget{tg}}).Check(); err == nil {
			if v := tg.View(); v.URL != "" && tg.Kind == triage.TargetSlack {
				t.Fatalf("a Slack target's URL shown: %+v", v)
			}
		} else {
			checkInvalid(t, err)
		}
	})
}

func FuzzParseSessionFilter(f *testing.F) {
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return
		}
		filter, err := parseSessionFilter(q)
		checkInvalid(t, err)
		if err != nil {
			return
		}
		if filter.Limit < 0 || filter.Limit > 500 {
			t.Fatalf("limit %d", filter.Limit)
		}
		if filter.Outcome != "" && !slices.Contains(store.SessionOutcomes, filter.Outcome) {
			t.Fatalf("outcome %q taken", filter.Outcome)
		}
	})
}
