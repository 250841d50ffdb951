package natsingress_test

import (
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The ingress's messages are counted on the service's /metrics by
// outcome and code, and timed.
func TestMetrics(t *testing.T) {
	t.Parallel()
	b := setup(t, options{})
	ok := b.publish(t, "default", golden(t, "db_timeout.json"))
	bad := b.publish(t, "default", []byte(`{"agent_id":"x"}`))
	b.waitAcked(t, ok)
	b.waitAcked(t, bad)

	metric := func(pattern string) bool {
		rec := httptest.NewRecorder()
		b.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
		return regexp.MustCompile(`(?m)^` + pattern + `$`).MatchString(rec.Body.String())
	}
	want := []string{
		`triage_nats_messages_total\{code="",outcome="answered"\} 1`,
		`triage_nats_messages_total\{code="INVALID_REQUEST",outcome="dead_letter"\} 1`,
		`triage_nats_handle_seconds_count\{outcome="answered"\} 1`,
		`triage_nats_handle_seconds_count\{outcome="dead_letter"\} 1`,
	}
	deadline := time.Now().Add(5 * time.Second) // the ack is confirmed just before the count
	for _, w := range want {
		for !metric(w) {
			if time.Now().After(deadline) {
				rec := httptest.NewRecorder()
				b.srv.ServeHTTP(rec, httptest.NewRequest("GET", "/metrics", nil))
				var lines []string
				for _, l := range strings.Split(rec.Body.String(), "\n") {
					if strings.HasPrefix(l, "triage_nats") {
						lines = append(lines, l)
					}
				}
				t.Fatalf("/metrics lacks %s:\n%s", w, strings.Join(lines, "\n"))
			}
			time.Sleep(10 * time.Millisecond)
		}
	}
}
