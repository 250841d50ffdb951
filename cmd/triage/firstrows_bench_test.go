package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// BenchmarkDashboardFirstRows measures the errors page's time to first
// rows with 100,000 records: it fills a SQLite store with that many
// records (through the store, as store/sqlite's BenchmarkReportGrown
// does: 40 agents, 10 codes, an hour apart over about eleven years' worth
// of hours, in about a minute), builds the binary, and runs
// web/e2e/firstrows.js, which serves the store with `triage serve` and
// loads the page in Chromium five times with an empty cache and five
// times again (a reload). It reports the medians, from the navigation's
// start to the frame that paints the first row, in milliseconds. A
// measure, run by hand (it needs Node.js, web/node_modules and Chromium):
//
//	go test ./cmd/triage -run '^$' -bench DashboardFirstRows -benchtime 1x
//
// With TRIAGE_FIRSTROWS_DB set to a path, the store is kept there (filled
// when the file does not exist, used as it is when it does), so that
// another build can be measured on the same records by running
// web/e2e/firstrows.js with its binary (docs/dashboard.md, Weight).
func BenchmarkDashboardFirstRows(b *testing.B) {
	chromium := os.Getenv("TRIAGE_TEST_CHROMIUM")
	if chromium == "" {
		chromium = "/usr/bin/chromium"
	}
	node, err := exec.LookPath("node")
	if err != nil {
		b.Skipf("no node on PATH: %v", err)
	}
	if _, err := os.Stat(chromium); err != nil {
		b.Skipf("no Chromium at %s (TRIAGE_TEST_CHROMIUM): %v", chromium, err)
	}
	if _, err := os.Stat("../../web/node_modules/playwright-core"); err != nil {
		b.Skipf("no web/node_modules (npm ci --prefix web): %v", err)
	}
	const records = 100_000
	dir := b.TempDir()
	db := os.Getenv("TRIAGE_FIRSTROWS_DB")
	if db == "" {
		db = filepath.Join(dir, "triage.db")
	}
	if _, err := os.Stat(db); err == nil {
		b.Logf("using the store at %s as it is", db)
	} else {
		start := time.Now()
		fill(b, db, records)
		b.Logf("filled %d records in %v", records, time.Since(start).Round(time.Second))
	}
	bin := filepath.Join(dir, "triage")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		b.Fatalf("build: %v\n%s", err, out)
	}
	type run struct {
		InDocument, Painted int
		List                *int
		Rows                int
	}
	var cold, warm []int
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(node, "e2e/firstrows.js")
		cmd.Dir = "../../web"
		cmd.Env = append(os.Environ(), "TRIAGE_BIN="+bin, "TRIAGE_TEST_CHROMIUM="+chromium, "FIRSTROWS_DB="+db)
		cmd.Stderr = os.Stderr
		out, err := cmd.Output()
		if err != nil {
			b.Fatalf("firstrows.js: %v\n%s", err, out)
		}
		var r struct{ Cold, Warm []run }
		if err := json.Unmarshal(out, &r); err != nil {
			b.Fatalf("firstrows.js: %v\n%s", err, out)
		}
		b.Logf("%s", out)
		for _, x := range r.Cold {
			cold = append(cold, x.Painted)
		}
		for _, x := range r.Warm {
			warm = append(warm, x.Painted)
		}
	}
	b.StopTimer()
	b.ReportMetric(median(cold), "ms-first-rows-cold")
	b.ReportMetric(median(warm), "ms-first-rows-reload")
}

func median(xs []int) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return float64(s[len(s)/2])
}

// fill saves n records (one occurrence each) into a new SQLite store at
// path, from 16 goroutines, as the service's report path saves them:
// Start (the delivery's claim), then SaveOccurrence. No jobs, so that the
// service has none to run when it opens the store.
func fill(b *testing.B, path string, n int) {
	ctx := context.Background()
	s, err := sqlite.Open(ctx, path, store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	codes := []string{"DB_TIMEOUT", "RATE_LIMITED", "UPSTREAM_ERROR", "TIMEOUT", "AUTH_FAILED",
		"INVALID_REQUEST", "TOOL_ERROR", "CONTENT_REFUSED", "QUOTA_EXHAUSTED", "PAYLOAD_TOO_LARGE"}
	severities := []string{"low", "medium", "high", "critical"}
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	var next atomic.Int64
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			t := s.Tenant("default")
			for {
				i := next.Add(1) - 1
				if i >= int64(n) {
					return
				}
				agent, code := fmt.Sprintf("agent_%02d", i%40), codes[i%int64(len(codes))]
				errorID := fmt.Sprintf("err_%016x", uint64(i)*0x9e3779b97f4a7c15)
				key := "delivery-" + errorID
				at := start.Add(time.Duration(i) * time.Minute)
				message := fmt.Sprintf("%s failed on query %d of the sales report", agent, i)
				report, _ := json.Marshal(map[string]any{"agent_id": agent, "timestamp": at.Format(time.RFC3339), "status": "error",
					"data": map[string]any{"error_type": "query_error", "error_code": code, "message": message, "query_id": fmt.Sprint("q_", i)}})
				feedback, _ := json.Marshal(triage.Feedback{ErrorID: errorID, UserMessage: "Something went wrong; we are on it."})
				res, err := t.Start(ctx, triage.StartRequest{Key: key, AttemptKey: "q|" + errorID, Agent: agent, Code: code, At: at, Window: time.Hour})
				if err == nil && !res.First {
					err = fmt.Errorf("delivery %s was claimed already", key)
				}
				if err == nil {
					_, err = t.SaveOccurrence(ctx, store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: fmt.Sprint("q_", i),
						AgentID: agent, ErrorType: "query_error", Severity: severities[i%4], NextAction: "escalate",
						Attempt: 1, ReportedAt: at, ReceivedAt: at, Report: report, Feedback: feedback,
						Code: code, Title: code + ": " + message})
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
}
