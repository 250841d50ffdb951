package server

import (
	"net/http"
	"net/url"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
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
