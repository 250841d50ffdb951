package cli

import (
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/triage-go/triage/fault"
)

// FuzzDays: a --retention-style value (from the command line or the
// environment) is a non-negative duration, which its own String sets
// again. Seeds: testdata/fuzz/FuzzDays.
func FuzzDays(f *testing.F) {
	f.Fuzz(func(t *testing.T, s string) {
		var d time.Duration
		if err := (days{&d}).Set(s); err != nil {
			if d != 0 {
				t.Fatalf("%q: refused, and set %v", s, d)
			}
			return
		}
		if d < 0 {
			t.Fatalf("%q: %v", s, d)
		}
		var again time.Duration
		if err := (days{&again}).Set(days{&d}.String()); err != nil || again != d {
			t.Fatalf("%q: %v prints as %q, which sets %v (%v)", s, d, days{&d}.String(), again, err)
		}
	})
}

// FuzzRedactURL: what serve prints of a --db URL ("PostgreSQL " and
// fault.Redact of redactURL) and of a --nats URL list (redactNATS) holds
// none of their passwords or tokens: in the user info, or in a password or
// sslpassword query parameter. A secret the URL also holds elsewhere (its
// host, path, or another URL of the list) is not checked. Seeds:
// testdata/fuzz/FuzzRedactURL.
func FuzzRedactURL(f *testing.F) {
	f.Fuzz(func(t *testing.T, raw string) {
		check := func(what, out, secret, rest string) {
			if len(secret) < 6 || strings.Contains("xxxxx [REDACTED] (unparsable URL)", secret) ||
				strings.Count(raw, secret) > 1 || strings.Contains(rest, secret) {
				return
			}
			if strings.Contains(out, secret) || strings.Contains(out, url.QueryEscape(secret)) {
				t.Fatalf("%q: %s %q shows %q", raw, what, out, secret)
			}
		}
		db := fault.Redact(redactURL(raw))
		if u, err := url.Parse(raw); err == nil {
			bare := *u
			bare.User, bare.RawQuery = nil, ""
			if p, ok := u.User.Password(); ok {
				check("the db", db, p, bare.String()+" "+u.User.Username()+" "+u.RawQuery)
			}
			for name, vs := range u.Query() {
				if name == "password" || name == "sslpassword" {
					for _, v := range vs {
						check("the db", db, v, bare.String()+" "+u.User.String())
					}
				}
			}
		}
		nats := redactNATS(raw)
		for part := range strings.SplitSeq(raw, ",") {
			u, err := url.Parse(strings.TrimSpace(part))
			if err != nil || u.User == nil {
				continue
			}
			bare := *u
			bare.User = nil
			if p, ok := u.User.Password(); ok {
				check("the NATS list", nats, p, bare.String()+" "+u.User.Username())
			} else {
				check("the NATS list", nats, u.User.Username(), bare.String())
			}
		}
	})
}
