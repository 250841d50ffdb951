package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
)

// The amplification run (-amplify) measures what the worst reads of error
// records cost the process: it fills a store with ampRecords records whose
// report and feedback are ~1 MB each and one record of ampOccurrences
// occurrences as large, then fetches, through the API, the worst list page
// (GET /v1/errors?limit=500), the worst record (that record) and every
// page of its occurrences, from 1, 3 and 8 clients at once, and prints the
// largest response and the process's peak RSS (VmHWM, reset before each
// step through /proc/self/clear_refs) and Go heap for each. The client, in
// the same process, reads each body into io.Discard.
//
// The store is filled directly (SaveOccurrence), not through POST
// /v1/errors: what is measured is the reads, and the documents are then
// as large as the whatever the handler keeps of a report's
// context (it cuts strings past 1 KiB).
const (
	ampRecords     = 100
	ampOccurrences = 60
	ampDoc         = 1_000_000 // bytes of a report, and of a feedback
	ampRounds      = 3         // requests (or walks through the pages) per client
)

// ampDocument is a JSON document of ~ampDoc bytes, made of '<' (which
// json.Marshal would write as six bytes each).
func ampDocument(key string) json.RawMessage {
	return json.RawMessage(`{"key":"` + key + `","rows":["` + strings.Repeat("<", ampDoc) + `"]}`)
}

// amplify runs the amplification measurement on st, named name.
func amplify(ctx context.Context, name string, st store.Store) error {
	base, err := service(st, io.Discard)
	if err != nil {
		return err
	}
	t0 := time.Now()
	tn := st.Tenant(server.DefaultTenant)
	at := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	const many = "err_amp_many"
	save := func(errorID, key string) error {
		at = at.Add(time.Second)
		_, err := tn.SaveOccurrence(ctx, store.Occurrence{DeliveryKey: key, ErrorID: errorID, QueryID: "q_amp", AgentID: "query_engine",
			ErrorType: "query_error", Severity: "medium", NextAction: "resume", Attempt: 1, ReportedAt: at, ReceivedAt: at,
			Report: ampDocument(key), Feedback: ampDocument(key), Actions: json.RawMessage(`[{"action":"retry","status":"done"}]`)})
		return err
	}
	for i := range ampRecords {
		if err := save(fmt.Sprintf("err_amp_%d", i), fmt.Sprint("one-", i)); err != nil {
			return err
		}
	}
	for i := range ampOccurrences {
		if err := save(many, fmt.Sprint("many-", i)); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "%s: filled in %v\n", name, time.Since(t0).Round(time.Second))
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: 5 * time.Minute}

	steps := []struct {
		name string
		get  func() (int64, error) // one request (or walk); the largest body
	}{
		{"GET /v1/errors?limit=500", func() (int64, error) { n, _, err := fetch(client, base+"/v1/errors?limit=500", ""); return n, err }},
		{"GET /v1/errors/{id} (60 occurrences)", func() (int64, error) {
			n, _, err := fetch(client, base+"/v1/errors/"+many, "")
			return n, err
		}},
		{"every page of GET /v1/errors/{id}/occurrences?limit=100", func() (int64, error) {
			target := base + "/v1/errors/" + many + "/occurrences?limit=100"
			largest, cursor, err := fetch(client, target, "next_cursor")
			for pages := 1; err == nil && cursor != ""; pages++ {
				if pages > ampOccurrences {
					return largest, errors.New("more pages than occurrences")
				}
				var n int64
				n, cursor, err = fetch(client, target+"&cursor="+url.QueryEscape(cursor), "next_cursor")
				largest = max(largest, n)
			}
			return largest, err
		}},
	}
	fmt.Printf("\n%s: %d records of a report and a feedback of ~1 MB each, one of %d such occurrences; at rest %s RSS\n\n",
		name, ampRecords, ampOccurrences, mib(settle()))
	fmt.Printf("| request | clients | largest response | peak RSS | peak Go heap |\n|---|---|---|---|---|\n")
	for _, s := range steps {
		for _, c := range []int{1, 3, 8} {
			settle()
			reset := resetPeak()
			heap := sampleHeap()
			var largest atomic.Int64
			var wg sync.WaitGroup
			errc := make(chan error, c)
			for range c {
				wg.Go(func() {
					for range ampRounds {
						n, err := s.get()
						if err != nil {
							errc <- err
							return
						}
						for m := largest.Load(); n > m && !largest.CompareAndSwap(m, n); m = largest.Load() {
						}
					}
				})
			}
			wg.Wait()
			peakHeap := heap()
			close(errc)
			if err := <-errc; err != nil {
				return fmt.Errorf("%s: %w", s.name, err)
			}
			peak := "n/a"
			if hwm := vmHWM(); hwm > 0 {
				peak = mib(hwm)
				if !reset {
					peak += " (since start)"
				}
			}
			fmt.Printf("| %s | %d | %s | %s | %s |\n", s.name, c, mib(largest.Load()), peak, mib(peakHeap))
		}
	}
	return nil
}

// fetch GETs target, reads the body into io.Discard, and returns its size
// and, when member is not empty, the value of the string member of that
// name (a cursor) found in the body's first or last 300 bytes.
func fetch(client *http.Client, target, member string) (int64, string, error) {
	resp, err := client.Get(target)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	tail := &tailWriter{}
	n, err := io.Copy(tail, resp.Body)
	if err != nil {
		return n, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return n, "", fmt.Errorf("GET %s: %d %s", target, resp.StatusCode, tail.b)
	}
	value := ""
	if member != "" {
		for _, b := range [][]byte{tail.head, tail.b} {
			if _, rest, ok := strings.Cut(string(b), `"`+member+`":"`); ok {
				value, _, _ = strings.Cut(rest, `"`)
				break
			}
		}
	}
	return n, value, nil
}

// tailWriter keeps the first and the last 300 bytes written to it.
type tailWriter struct{ head, b []byte }

func (w *tailWriter) Write(p []byte) (int, error) {
	if len(w.head) < 300 {
		w.head = append(w.head, p[:min(len(p), 300-len(w.head))]...)
	}
	w.b = append(w.b, p...)
	if len(w.b) > 300 {
		w.b = append(w.b[:0], w.b[len(w.b)-300:]...)
	}
	return len(p), nil
}

// settle collects the garbage and returns the memory to the system, and
// returns the resident set's size.
func settle() int64 {
	runtime.GC()
	debug.FreeOSMemory()
	return procStatus("VmRSS:")
}

// resetPeak resets the process's peak RSS (VmHWM) to its RSS now; false
// where the kernel does not allow it.
func resetPeak() bool {
	return os.WriteFile("/proc/self/clear_refs", []byte("5"), 0) == nil
}

// vmHWM is the process's peak RSS, in bytes (0 when unknown).
func vmHWM() int64 { return procStatus("VmHWM:") }

// procStatus reads a field of /proc/self/status in bytes (0 when unknown).
func procStatus(field string) int64 {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, err := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			if err == nil {
				return kb << 10
			}
		}
	}
	return 0
}

// sampleHeap samples the Go heap's objects every millisecond until the
// function it returns is called, which returns the largest sample.
func sampleHeap() func() int64 {
	done := make(chan struct{})
	result := make(chan int64)
	go func() {
		s := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
		var peak int64
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		for {
			metrics.Read(s)
			if s[0].Value.Kind() == metrics.KindUint64 {
				peak = max(peak, int64(s[0].Value.Uint64()))
			}
			select {
			case <-done:
				result <- peak
				return
			case <-tick.C:
			}
		}
	}()
	return func() int64 { close(done); return <-result }
}

// mib writes a size in MiB (in KiB below 1 MiB).
func mib(n int64) string {
	if n < 1<<20 {
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

// runAmplify runs the amplification measurement on SQLite, and on
// PostgreSQL when pg is set (in a scratch schema, dropped after).
func runAmplify(pg string) error {
	ctx := context.Background()
	dir, err := os.MkdirTemp("", "loadbench")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	st, err := sqlite.Open(ctx, filepath.Join(dir, "triage.db"), store.Config{})
	if err != nil {
		return err
	}
	defer st.Close()
	if err := amplify(ctx, "SQLite", st); err != nil {
		return err
	}
	if pg == "" {
		return nil
	}
	scratch, drop, err := scratchSchema(ctx, pg)
	if err != nil {
		return err
	}
	defer drop()
	pst, err := postgres.Open(ctx, scratch, store.Config{})
	if err != nil {
		return err
	}
	defer pst.Close()
	return amplify(ctx, "PostgreSQL", pst)
}
