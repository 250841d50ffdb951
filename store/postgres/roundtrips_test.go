package postgres

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
)

// tripCounter is a pgx tracer that counts the round trips the pool's
// connections make: each query (Exec, Query, QueryRow: one round trip in
// the cached-statement mode once its statement is prepared), each
// statement prepared (one more), each batch (one, however many queries).
type tripCounter struct {
	mu       sync.Mutex
	on       bool
	queries  map[string]int
	prepares int
	batches  int
}

func newTripCounter() *tripCounter { return &tripCounter{queries: map[string]int{}} }

func (c *tripCounter) configure(cfg *pgxpool.Config) { cfg.ConnConfig.Tracer = c }

func (c *tripCounter) start() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on, c.queries, c.prepares, c.batches = true, map[string]int{}, 0, 0
}

// stop stops counting and returns the counts since start: the queries
// by statementName, the statements prepared and the batches sent.
func (c *tripCounter) stop() (queries map[string]int, prepares, batches int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.on = false
	return c.queries, c.prepares, c.batches
}

// statementName is the first words of sql, for the tests' messages.
func statementName(sql string) string {
	f := strings.Fields(sql)
	return strings.Join(f[:min(len(f), 8)], " ")
}

func (c *tripCounter) TraceQueryStart(ctx context.Context, _ *pgx.Conn, d pgx.TraceQueryStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		c.queries[statementName(d.SQL)]++
	}
	return ctx
}

func (c *tripCounter) TraceQueryEnd(context.Context, *pgx.Conn, pgx.TraceQueryEndData) {}

func (c *tripCounter) TracePrepareStart(ctx context.Context, _ *pgx.Conn, _ pgx.TracePrepareStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		c.prepares++
	}
	return ctx
}

func (c *tripCounter) TracePrepareEnd(context.Context, *pgx.Conn, pgx.TracePrepareEndData) {}

func (c *tripCounter) TraceBatchStart(ctx context.Context, _ *pgx.Conn, _ pgx.TraceBatchStartData) context.Context {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.on {
		c.batches++
	}
	return ctx
}

func (c *tripCounter) TraceBatchQuery(context.Context, *pgx.Conn, pgx.TraceBatchQueryData) {}

func (c *tripCounter) TraceBatchEnd(context.Context, *pgx.Conn, pgx.TraceBatchEndData) {}

func report(i int, query string) []byte {
	return fmt.Appendf(nil, `{"agent_id":"query_engine","timestamp":"2025-08-08T12:%02d:%02dZ","status":"error",
		"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":%q}}`, i/60%60, i%60, query)
}

// TestReportRoundTrips counts the round trips the service makes to
// PostgreSQL per report, through its HTTP door: two for a new report (the
// peek, which reads the agent's callback and the alert rules' version with
// the delivery, and the one-statement write), one for a repeat of a saved
// report (the peek). Before the peek read them, a new report cost four:
// the agent's callback and the alert rules each had a read of their own.
// The announcements to other instances (pg_notify) are not counted: one
// goes per 50 ms however many reports changed a tenant meanwhile.
func TestReportRoundTrips(t *testing.T) {
	c := newTripCounter()
	s, err := open(t.Context(), pgtest.FreshSchema(t), store.Config{}, c.configure)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	srv, err := server.New(server.Config{Store: s, RateLimit: -1})
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	ts := httptest.NewServer(srv)
	defer ts.Close()
	post := func(body []byte, want int) {
		t.Helper()
		resp, err := http.Post(ts.URL+"/v1/errors", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("POST: %d, want %d", resp.StatusCode, want)
		}
	}
	// Warm: the connections the reports use have their statements
	// prepared (a statement's first run on a connection prepares it: a
	// round trip more, once).
	for i := range 20 {
		post(report(i, fmt.Sprintf("warm_%d", i)), http.StatusCreated)
	}
	const n = 20
	count := func(what string, want int, send func(i int)) {
		t.Helper()
		c.start()
		for i := range n {
			send(i)
		}
		by, prepares, batches := c.stop()
		got := batches
		var names []string
		for k, m := range by {
			if strings.HasPrefix(k, "SELECT pg_notify") {
				continue
			}
			got += m
			names = append(names, k)
		}
		sort.Strings(names)
		for _, k := range names {
			t.Logf("%s: %.2f per report: %s", what, float64(by[k])/n, k)
		}
		if prepares > 0 {
			t.Logf("%s: %d statements prepared (a connection's first run of each)", what, prepares)
		}
		if got != want*n {
			t.Errorf("%d %s made %d queries (%.2f per report), want %d per report", n, what, got, float64(got)/n, want)
		}
	}
	count("new reports", 2, func(i int) { post(report(i, fmt.Sprintf("q_%d", i)), http.StatusCreated) })
	count("repeats", 1, func(i int) { post(report(i, fmt.Sprintf("q_%d", i)), http.StatusOK) })
}
