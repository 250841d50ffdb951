package server

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/wire/sse"
)

// benchWords is the answer of the benchmark's agent: 200 chunks.
var benchWords = strings.Repeat("word ", 200)

// BenchmarkRunEndpoint streams a run of 200 text chunks (about 206 AG-UI
// events) through POST /v1/agents/{agent_id}/runs over loopback HTTP, and
// reports events per second and the time to the first byte; BenchmarkBareSSE
// is the floor: a handler writing as many SSE frames of the same size.
// µs-start-write and µs-finish-write are the time a run spends in its two
// writes to the store (StartRunEarly before the stream, FinishRun after
// it, before the response ends: each a SQLite commit, durable at once),
// which the bare handler does not make; µs-start-decided is the part of
// the start's before it is decided (the insert ran, its batch about to
// commit), the only part the first byte waits for: RUN_STARTED goes out
// while the rest, the commit, goes on.
func BenchmarkRunEndpoint(b *testing.B) {
	reg, err := agent.Parse(fmt.Appendf(nil, "agents:\n  - {id: bench, kind: script, maxSessions: 64, script: {reply: %q}}\n", benchWords), "bench.yaml")
	if err != nil {
		b.Fatal(err)
	}
	m := agent.NewManager(reg.Build(nil), agent.ManagerConfig{})
	if err := m.Start(context.Background()); err != nil {
		b.Fatal(err)
	}
	defer m.Shutdown()
	st, err := sqlite.Open(context.Background(), b.TempDir()+"/bench.db", store.Config{})
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	timed := &timedStore{Store: st}
	srv, err := New(Config{Store: timed, Agents: m, JobPoll: -1, RateLimit: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		b.Fatal(err)
	}
	hs := httptest.NewServer(srv)
	defer hs.Close()
	defer srv.Close()
	benchStream(b, func(i int) (*http.Request, error) {
		body := fmt.Sprintf(`{"threadId":"t","runId":"bench-%d","messages":[{"id":"m","role":"user","content":"x"}]}`, i)
		req, err := http.NewRequest("POST", hs.URL+"/v1/agents/bench/runs", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		return req, err
	})
	b.ReportMetric(float64(timed.decided.Load())/1e3/float64(b.N), "µs-start-decided")
	b.ReportMetric(float64(timed.start.Load())/1e3/float64(b.N), "µs-start-write")
	b.ReportMetric(float64(timed.finish.Load())/1e3/float64(b.N), "µs-finish-write")
}

// timedStore adds up the time its tenants' StartRunEarly (until decided,
// and until committed) and FinishRun take.
type timedStore struct {
	store.Store
	decided, start, finish atomic.Int64 // nanoseconds
}

func (s *timedStore) Tenant(id string) store.Tenant { return timedTenant{s.Store.Tenant(id), s} }

type timedTenant struct {
	store.Tenant
	s *timedStore
}

func (t timedTenant) StartRunEarly(ctx context.Context, r store.Run) (store.Run, func() error, error) {
	began := time.Now()
	run, commit, err := t.Tenant.StartRunEarly(ctx, r)
	since(&t.s.decided, began)
	if err != nil {
		since(&t.s.start, began)
		return run, commit, err
	}
	return run, func() error {
		defer since(&t.s.start, began)
		return commit()
	}, nil
}

func (t timedTenant) FinishRun(ctx context.Context, runID string, end store.RunEnd) (store.Run, error) {
	defer since(&t.s.finish, time.Now())
	return t.Tenant.FinishRun(ctx, runID, end)
}

func since(sum *atomic.Int64, t time.Time) { sum.Add(int64(time.Since(t))) }

func BenchmarkBareSSE(b *testing.B) {
	frame := `{"type":"TEXT_MESSAGE_CONTENT","messageId":"msg-bench","delta":"word ","timestamp":1700000000000}`
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		sse.SetHeaders(w.Header())
		sw := sse.NewWriter(w)
		for range 206 {
			if sw.WriteFrame(sse.Frame{Data: frame}) != nil {
				return
			}
		}
	}))
	defer hs.Close()
	benchStream(b, func(int) (*http.Request, error) {
		return http.NewRequest("POST", hs.URL, strings.NewReader(`{}`))
	})
}

func benchStream(b *testing.B, req func(i int) (*http.Request, error)) {
	var events int
	var ttfb time.Duration
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		i++
		r, err := req(i)
		if err != nil {
			b.Fatal(err)
		}
		start := time.Now()
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			b.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		first := true
		for {
			line, err := br.ReadBytes('\n')
			if first && len(line) > 0 {
				ttfb += time.Since(start)
				first = false
			}
			if bytes.HasPrefix(line, []byte("data: ")) {
				events++
			}
			if err != nil {
				break
			}
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			b.Fatalf("status %d", resp.StatusCode)
		}
	}
	b.ReportMetric(float64(events)/b.Elapsed().Seconds(), "events/s")
	b.ReportMetric(float64(ttfb.Microseconds())/float64(b.N), "µs-ttfb")
}
