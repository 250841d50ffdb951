package server

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
)

// Fuzz targets for what the API reads from request headers and queries
// besides the bodies fuzz_test.go covers, and for TRIAGE_API_KEYS. Seeds
// live in testdata/fuzz.

// FuzzLastEventID: a reconnecting client's Last-Event-ID is a stream
// position (a whole number, as ParseInt reads it) or an INVALID_REQUEST
// naming the header; no header, no replay.
func FuzzLastEventID(f *testing.F) {
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{}
		h.Set("Last-Event-ID", v)
		cursor, replay, err := lastEventID(h)
		checkInvalid(t, err)
		switch {
		case err != nil:
			if replay || cursor != 0 {
				t.Fatalf("%q: refused, with replay %v from %d", v, replay, cursor)
			}
		case v == "":
			if replay || cursor != 0 {
				t.Fatalf("no header: replay %v from %d", replay, cursor)
			}
		default:
			if n, perr := strconv.ParseInt(v, 10, 64); !replay || perr != nil || n != cursor || cursor < 0 {
				t.Fatalf("%q: replay %v from %d", v, replay, cursor)
			}
		}
	})
}

// FuzzParseOccurrenceFilter: the query of GET .../occurrences is a limit
// in range and the cursor as given, or an INVALID_REQUEST naming fields.
func FuzzParseOccurrenceFilter(f *testing.F) {
	f.Fuzz(func(t *testing.T, query string) {
		q, err := url.ParseQuery(query)
		if err != nil {
			return // server.go refuses the request before
		}
		filter, err := parseOccurrenceFilter(q)
		checkInvalid(t, err)
		if err == nil && (filter.Limit < 0 || filter.Limit > store.MaxOccurrenceLimit || filter.Cursor != q.Get("cursor")) {
			t.Fatalf("%q: %+v", query, filter)
		}
	})
}

// FuzzRequestKey: of any Authorization and X-API-Key, the keyring finds
// the tenant only when the request presents the key itself: as a Bearer
// token, or in X-API-Key without an Authorization.
func FuzzRequestKey(f *testing.F) {
	const key = "k-0123456789abcdef"
	ring, err := newKeyring(map[string]string{key: "acme"})
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, auth, apiKey string) {
		r := &http.Request{Header: http.Header{}}
		if auth != "" {
			r.Header.Set("Authorization", auth)
		}
		if apiKey != "" {
			r.Header.Set("X-API-Key", apiKey)
		}
		tenant, ok := ring.tenant(requestKey(r))
		if !ok {
			return
		}
		scheme, token, _ := strings.Cut(auth, " ")
		bearer := strings.EqualFold(scheme, "Bearer") && strings.TrimSpace(token) == key
		if tenant != "acme" || !(bearer || (auth == "" && apiKey == key)) {
			t.Fatalf("Authorization %q, X-API-Key %q: tenant %q", auth, apiKey, tenant)
		}
	})
}

// FuzzAccept: a problem type is answered as JSON only for an Accept that
// names a JSON type, and a run as CAP's NDJSON only for one that names
// application/x-ndjson.
func FuzzAccept(f *testing.F) {
	f.Fuzz(func(t *testing.T, accept string) {
		r := &http.Request{Header: http.Header{"Accept": {accept}}}
		lower := strings.ToLower(accept)
		if wantsJSON(r) && !strings.Contains(lower, "json") {
			t.Fatalf("%q: answered as JSON", accept)
		}
		if wantsCAP(r) && !strings.Contains(lower, "application/x-ndjson") {
			t.Fatalf("%q: answered as CAP", accept)
		}
	})
}

// apiKeysText is the text of ParseAPIKeys's errors, besides what they
// quote: a key found in it was not quoted.
const apiKeysText = "API keys: entry is not tenant=key (tenant %q is not an identifier): a key has at least 16 characters repeats another entry's key"

// FuzzParseAPIKeys: TRIAGE_API_KEYS parses to keys of 16 characters or
// more, each of a tenant that is an identifier; an error never quotes a
// key.
func FuzzParseAPIKeys(f *testing.F) {
	f.Fuzz(func(t *testing.T, spec string) {
		keys, err := ParseAPIKeys(spec)
		if err != nil {
			if keys != nil {
				t.Fatal("keys with an error")
			}
			var tenants []string
			for _, part := range strings.Split(spec, ",") {
				tenant, _, _ := strings.Cut(part, "=")
				tenants = append(tenants, tenant)
			}
			for _, part := range strings.Split(spec, ",") {
				_, key, ok := strings.Cut(part, "=")
				key = strings.TrimSpace(key)
				if !ok || len(key) < 4 || strings.Trim(key, "0123456789") == "" || strings.Contains(apiKeysText, key) || strings.Contains(strings.Join(tenants, ","), key) {
					continue // not a key, or one the error may show by chance
				}
				if strings.Contains(err.Error(), key) {
					t.Fatalf("%q: the error quotes a key: %v", spec, err)
				}
			}
			return
		}
		for key, tenant := range keys {
			if len(key) < 16 || !triage.IsIdentifier(tenant) || key != strings.TrimSpace(key) {
				t.Fatalf("%q: key %q of tenant %q", spec, key, tenant)
			}
		}
	})
}
