package server

import (
	"bytes"
	"context"
	"errors"
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
	t.Parallel()
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
	t.Parallel()
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
