package natsingress

import (
	"strings"
	"testing"
	"time"
)

func TestConfigDefaults(t *testing.T) {
	t.Parallel()
	c, err := Config{URL: "nats://127.0.0.1:4222"}.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.Stream != "TRIAGE_REPORTS" || c.DeadLetterStream != "TRIAGE_REPORTS_DEADLETTER" || c.Subject != "triage.reports" ||
		c.Durable != "triage" || c.Workers != 8 || c.MaxAckPending != 256 || c.AckWait != 30*time.Second || c.Logger == nil {
		t.Errorf("defaults %+v", c)
	}
	for _, bad := range []struct {
		cfg  Config
		want string
	}{
		{Config{}, "URL is required"},
		{Config{URL: "x", Stream: "A.B"}, "Config.Stream"},
		{Config{URL: "x", Durable: "a b"}, "Config.Durable"},
		{Config{URL: "x", Stream: "S", DeadLetterStream: "S"}, "must differ"},
		{Config{URL: "x", Subject: "triage.*"}, "Config.Subject"},
		{Config{URL: "x", Feedback: "$JS.API"}, "Config.Feedback"},
		{Config{URL: "x", Feedback: "triage.reports.feedback"}, "overlap"},
		{Config{URL: "x", Subject: "errors", DeadLetter: "errors"}, "overlap"},
	} {
		if _, err := bad.cfg.withDefaults(); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.cfg, err, bad.want)
		}
	}
}

func TestCovers(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		pattern, filter string
		want            bool
	}{
		{"triage.reports.>", "triage.reports.>", true},
		{"triage.>", "triage.reports.>", true},
		{">", "triage.reports.>", true},
		{"triage.*.>", "triage.reports.>", true},
		{"triage.reports.*", "triage.reports.>", false},
		{"triage.reports", "triage.reports.>", false},
		{"triage.reports.acme", "triage.reports.>", false},
		{"triage.feedback.>", "triage.reports.>", false},
	} {
		if got := covers(c.pattern, c.filter); got != c.want {
			t.Errorf("covers(%q, %q) = %v", c.pattern, c.filter, got)
		}
	}
}

func TestRetryDelay(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		delivered  uint64
		retryAfter time.Duration
		want       time.Duration
	}{
		{0, 0, time.Second}, {1, 0, time.Second}, {2, 0, 2 * time.Second}, {3, time.Second, 4 * time.Second},
		{1, 5 * time.Second, 5 * time.Second}, {6, 0, 30 * time.Second}, {1 << 40, 0, 30 * time.Second},
		{1, time.Hour, 30 * time.Second},
	} {
		if got := retryDelay(c.delivered, c.retryAfter, 30*time.Second); got != c.want {
			t.Errorf("retryDelay(%d, %v) = %v, want %v", c.delivered, c.retryAfter, got, c.want)
		}
	}
}

// TestStreamName: tenants' streams are valid stream names, never shared
// by two tenants, nor the dead-letter stream's.
func TestStreamName(t *testing.T) {
	t.Parallel()
	var cfg Config
	seen := map[string]string{DefaultStream + "_DEADLETTER": "the dead letters", DefaultStream: "the shared stream"}
	long := strings.Repeat("a.", 63) + "a"
	for _, tenant := range []string{"acme", "acme.eu", "acme_2Eeu", "acme_eu", "acme:eu", "acme-eu", "a_5F", "DEADLETTER", long, long[:125] + ":a"} {
		name := cfg.StreamName(tenant)
		if !isName(name) || len(name) > 255 {
			t.Errorf("%q: stream %q is not a stream name", tenant, name)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("%q and %q share the stream %q", tenant, other, name)
		}
		seen[name] = tenant
	}
	if got := cfg.StreamName("acme.eu"); got != "TRIAGE_REPORTS-acme_2Eeu" {
		t.Errorf("StreamName(acme.eu) = %q", got)
	}
}

func TestOverlaps(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		a, b string
		want bool
	}{
		{"triage.reports.>", "triage.reports.>", true},
		{"triage.>", "triage.reports.>", true},
		{"*.reports.acme", "triage.reports.>", true},
		{"triage.reports", "triage.reports.>", false},
		{"triage.feedback.>", "triage.reports.>", false},
		{"TRIAGE_REPORTS", "triage.reports.>", false},
		{"triage.*", "triage.reports.>", false},
		{"triage.*.*", "triage.reports.>", true},
	} {
		if got := overlaps(c.a, c.b); got != c.want {
			t.Errorf("overlaps(%q, %q) = %v", c.a, c.b, got)
		}
		if got := overlaps(c.b, c.a); got != c.want {
			t.Errorf("overlaps(%q, %q) = %v", c.b, c.a, got)
		}
	}
}
