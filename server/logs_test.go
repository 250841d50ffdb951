package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// What a client sends reaches the logs cut to a bounded length: a 1 MB
// agent_id or status, a 64 KB fault code in a report (logged by the
// handler, and in the escalation the service logs without a webhook), a
// 100 KB path.
func TestLogsBoundClientValues(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.MaxBody = 4 << 20 })
	big := strings.Repeat("A", 1<<20)
	code := big[:64<<10] // enough to be cut; a report that is handled and stored costs more than one refused
	reports := []string{
		`{"agent_id":"` + big + `","timestamp":"2025-08-08T12:20:05Z","status":"error","data":{"error_code":"DB_TIMEOUT","message":"x","query_id":"q_1"}}`,
		`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"` + big + `","data":{"error_code":"DB_TIMEOUT","message":"x","query_id":"q_1"}}`,
		`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:06Z","status":"error","data":{"error_code":"DB_TIMEOUT","message":"x","query_id":"q_2","fault":{"code":"` + code + `"}}}`,
		`{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:07Z","status":"error","data":{"error_type":"system_error","error_code":"SERVICE_DOWN","message":"upstream down","query_id":"q_3","fault":{"code":"` + code + `"}}}`,
	}
	for _, rep := range reports {
		if r := f.do("POST", "/v1/errors", []byte(rep), nil); r.status >= 500 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
	}
	f.do("GET", "/v1/errors/"+big[:100<<10], nil, nil)
	f.do("PUT", "/v1/agents/"+big[:100<<10], []byte(`{"callback_url":"https://agent.example/"}`), nil)
	logs := f.logBuf.String()
	lines := strings.Count(logs, "\n")
	if len(logs) > lines*16<<10 {
		t.Errorf("%d lines of log are %d bytes", lines, len(logs))
	}
	if strings.Contains(logs, big[:4096]) {
		t.Errorf("a value of 4096 bytes or more reached the log")
	}
}

// 10,000 identical store failures make a bounded number of log lines, and
// one that counts the others.
func TestRepeatedFailuresLoggedOnce(t *testing.T) {
	f := newFixture(t, func(c *Config) {
		c.RateLimit = -1
		c.LogRepeat, c.LogRepeatWindow = 5, time.Hour
		c.Store = hookStore{Store: c.Store, start: func(context.Context) error { return errors.New("disk I/O error: database or disk is full") }}
	})
	report := readFile(t, goldenDir+"/db_timeout.json")
	const n = 10_000
	for i := range n {
		rec := httptest.NewRecorder()
		f.srv.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/errors", bytes.NewReader(report)))
		if rec.Code != 503 {
			t.Fatalf("request %d: %d %s", i, rec.Code, rec.Body)
		}
	}
	f.srv.Close() // writes the count of what was suppressed
	var written, summaries, suppressed int
	for _, line := range strings.Split(f.logBuf.String(), "\n") {
		if !strings.Contains(line, "error report not handled") {
			continue
		}
		written++
		if m := regexp.MustCompile(`suppressed=(\d+)`).FindStringSubmatch(line); m != nil {
			summaries++
			k, _ := strconv.Atoi(m[1])
			suppressed += k
			if !strings.Contains(line, "repeated "+m[1]+" more times") || !strings.Contains(line, "level=ERROR") {
				t.Errorf("summary: %s", line)
			}
		}
	}
	if written != 6 || summaries != 1 || suppressed != n-5 {
		t.Errorf("%d failures: %d lines, %d summaries counting %d", n, written, summaries, suppressed)
	}
}

// The guard's repeat windows: a new window writes again; the lines below
// Warn are never suppressed; a summary goes out through the logger that
// suppressed (its attributes).
func TestLogGuardWindows(t *testing.T) {
	var buf bytes.Buffer
	g := newLogGuard(slog.NewTextHandler(&buf, &slog.HandlerOptions{Level: slog.LevelDebug}), 64, 2, time.Minute)
	log := slog.New(g).With("component", "x")
	t0 := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	emit := func(at time.Duration, level slog.Level, msg string) {
		r := slog.NewRecord(t0.Add(at), level, msg, 0)
		r.AddAttrs(slog.String("value", strings.Repeat("v", 100)))
		_ = log.Handler().Handle(context.Background(), r)
	}
	for i := range 5 {
		emit(time.Duration(i)*time.Second, slog.LevelError, "store failed")
		emit(time.Duration(i)*time.Second, slog.LevelInfo, "handled")
	}
	emit(2*time.Minute, slog.LevelError, "store failed") // a new window, with the count of the last pending
	g.flush()
	out := buf.String()
	if got := strings.Count(out, `msg=handled`); got != 5 {
		t.Errorf("info lines: %d, want 5", got)
	}
	if got := strings.Count(out, `msg="store failed"`); got != 3 {
		t.Errorf("error lines: %d, want 3 (2, then one in the next window)\n%s", got, out)
	}
	if !strings.Contains(out, `msg="store failed: repeated 3 more times, not logged" component=x suppressed=3 window=1m0s`) {
		t.Errorf("no summary of the 3 suppressed:\n%s", out)
	}
	if !strings.Contains(out, `value="`+strings.Repeat("v", 64)+`…[truncated: 100 bytes]"`) {
		t.Errorf("value not cut to 64 bytes:\n%s", out)
	}
}

// Values are cut and redacted wherever they are: groups, LogValuers,
// errors, other values, attributes added with With.
func TestLogGuardValues(t *testing.T) {
	var buf bytes.Buffer
	log := slog.New(newLogGuard(slog.NewTextHandler(&buf, nil), 32, -1, time.Minute))
	long := strings.Repeat("é", 40) // 80 bytes: cut at a rune boundary
	log.With("with", long).Info("m",
		slog.Group("g", slog.String("s", long)),
		slog.Any("err", errors.New("Authorization: Bearer abcdef0123456789")),
		slog.Any("list", []string{long, long}),
		slog.Any("small", []int{1, 2}),
		slog.String("secret", "password=hunter2hunter2"),
	)
	out := buf.String()
	for _, want := range []string{
		`with="` + strings.Repeat("é", 16) + `…[truncated: 80 bytes]"`,
		`g.s="` + strings.Repeat("é", 16) + `…[truncated: 80 bytes]"`,
		`err="Authorization: [REDACTED]…[truncated: 38 bytes]"`,
		`list="[` + strings.Repeat("é", 15) + `…[truncated: 163 bytes]"`,
		`small="[1 2]"`,
		`secret="password=[REDACTED]"`,
	} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %s in\n%s", want, out)
		}
	}
}
