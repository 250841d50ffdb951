package server

import (
	"net/http"
	"net/http/httptest"
	"strconv"
	"testing"
	"time"
)

// Failed authentication is throttled by client address: past the burst,
// 429 with Retry-After instead of 401/403; a valid key is still served,
// from that address and from others; a token comes back with time.
func TestFailedAuthenticationThrottled(t *testing.T) {
	t.Parallel()
	const keyA, keyB = "key-a-0123456789abcdef", "key-b-0123456789abcdef"
	f := newFixture(t, func(c *Config) {
		c.APIKeys = map[string]string{keyA: "acme", keyB: "globex"}
		c.AuthFailRate, c.AuthFailBurst = 1, 5
		c.RateLimit = -1
	})
	statuses := map[int]int{}
	var last response
	for i := range 300 {
		h := map[string]string{"X-API-Key": "wrong-key-" + strconv.Itoa(i) + "-0123456789"}
		if i%3 == 0 {
			h = nil // no key: 401, charged too
		}
		last = f.do("GET", "/v1/errors", nil, h)
		statuses[last.status]++
	}
	if statuses[401]+statuses[403] != 5 || statuses[429] != 295 {
		t.Fatalf("300 failed authentications: %v", statuses)
	}
	if codeOf(t, last) != "RATE_LIMITED" || last.header.Get("Retry-After") != "1" {
		t.Errorf("throttled: %v %s", last.header, last.body)
	}
	// A valid key from the same address is served, and not charged.
	for range 20 {
		if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": keyA}); r.status != 200 {
			t.Fatalf("a valid key from a throttled address: %d %s", r.status, r.body)
		}
	}
	// Another address is not throttled.
	req := httptest.NewRequest("GET", "/v1/errors", nil)
	req.RemoteAddr = "192.0.2.7:40000"
	req.Header.Set("X-API-Key", "wrong-key-0123456789")
	rec := httptest.NewRecorder()
	f.srv.ServeHTTP(rec, req)
	if rec.Code != http.StatusForbidden {
		t.Errorf("a failed authentication from another address: %d", rec.Code)
	}
	// A second later, one token is back.
	f.clock.Advance(time.Second)
	if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": "wrong-key-0123456789"}); r.status != 403 {
		t.Errorf("a second later: %d %s", r.status, r.body)
	}
	if r := f.do("GET", "/v1/errors", nil, map[string]string{"X-API-Key": "wrong-key-0123456789"}); r.status != 429 {
		t.Errorf("and then: %d %s", r.status, r.body)
	}
}

// The addresses tracked are bounded: one whose bucket is full again is
// forgotten, and past the bound the others share one bucket.
func TestAuthLimitsBounded(t *testing.T) {
	t.Parallel()
	l := newAuthLimits(1, 2)
	l.maxAddrs = 3
	now := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	for _, a := range []string{"192.0.2.1", "192.0.2.2", "192.0.2.3"} {
		l.charge(a, now)
	}
	// Past the bound: the others share one bucket of 2.
	if _, limited := l.charge("192.0.2.4", now); limited {
		t.Error("the first address past the bound")
	}
	if _, limited := l.charge("192.0.2.5", now); limited {
		t.Error("the second address past the bound")
	}
	if _, limited := l.charge("192.0.2.6", now); !limited {
		t.Error("the shared bucket is empty: not limited")
	}
	if n := l.tracked(); n != 3 {
		t.Errorf("tracked %d addresses, want 3", n)
	}
	// Two seconds later every bucket is full again: the idle addresses
	// go, and a new one has its own.
	now = now.Add(2 * time.Second)
	l.charge("192.0.2.9", now)
	if n := l.tracked(); n != 1 {
		t.Errorf("after the idle ones went: tracked %d addresses, want 1", n)
	}
}

func TestClientAddr(t *testing.T) {
	t.Parallel()
	for remote, want := range map[string]string{
		"192.0.2.1:1234":                    "192.0.2.1",
		"[2001:db8:1:2:3:4:5:6]:443":        "2001:db8:1:2::/64",
		"[2001:db8:1:2:ffff:4:5:6]:443":     "2001:db8:1:2::/64",
		"[::ffff:192.0.2.1]:80":             "192.0.2.1",
		"@":                                 "@",
		"not an address":                    "not an address",
		"[2001:db8:1:3:3:4:5:6]:443":        "2001:db8:1:3::/64",
		"198.51.100.200:0":                  "198.51.100.200",
		"[fe80::1%eth0]:80":                 "fe80::/64",
		"example.invalid:80":                "example.invalid",
		"[2001:db8::1]:1":                   "2001:db8::/64",
		"[2001:db8:0:0:ffff:ffff:ffff:1]:1": "2001:db8::/64",
	} {
		r := httptest.NewRequest("GET", "/", nil)
		r.RemoteAddr = remote
		r.Header.Set("X-Forwarded-For", "203.0.113.9")
		if got := clientAddr(r); got != want {
			t.Errorf("clientAddr(%q) = %q, want %q", remote, got, want)
		}
	}
}
