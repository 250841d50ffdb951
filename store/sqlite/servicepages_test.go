package sqlite

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
)

// TestServicePagesPerReport weighs what the service writes per report
// against its store's read and write alone (cmd/loadbench's "written per
// report": 78 KB for the service against 44 KB for the store alone at 1k
// records): on a store of 1,000 records, 1,600 new reports posted to the
// service as `triage serve` runs it (server.Serve: HTTP, River's worker,
// the expiry) from 16 clients, then as many made of the store's calls
// alone from 16 goroutines, the shapes the service made, with loadbench's
// keys (d_…, err_…: increasing) and then with keys as the service's are
// (the error ID and attempt key hashed, the delivery key the service's).
// Checkpoints are off in each phase: the WAL holds every
// frame written, each named by dbstat's owner (table or index). It logs
// the frames per report of each B-tree and the commits per report, and
// fails if the service writes more than half a frame per report to B-trees
// the store's own report path does not write (a table of the service's
// written per report: the idempotency keys, run totals, logs of jobs), or
// more than 0.9 to either B-tree of the delivery key (deliveries and the
// occurrences' unique index: keys that append, since they begin with the
// report's time).
//
//	go test ./store/sqlite -run TestServicePagesPerReport -v
func TestServicePagesPerReport(t *testing.T) {
	if testing.Short() {
		t.Skip("a measurement of 4,800 reports")
	}
	prefill, reports := 1_000, 1_600
	if raceEnabled { // the check, on a smaller load: the figures are the full one's
		prefill, reports = 200, 320
	}
	const clients = 16
	ctx := t.Context()
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := Open(ctx, path, store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	samples := &sampledShapes{Store: s}
	srv, err := server.New(server.Config{Store: samples, RateLimit: -1, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	serveCtx, stop := context.WithCancel(ctx)
	served := make(chan error, 1)
	go func() { served <- srv.Serve(serveCtx, ln) }()
	defer func() { stop(); <-served }()
	base := "http://" + ln.Addr().String()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: clients, MaxConnsPerHost: clients}, Timeout: time.Minute}
	post := func(prefix string, n int) {
		t.Helper()
		if err := parallel(n, clients, func(i int64) error {
			// Each report's time is when it is sent, as a service's reports
			// come: their delivery keys begin with it.
			body := fmt.Sprintf(`{"agent_id":"query_engine","timestamp":%q,"status":"error","data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"%s_%d"}}`,
				time.Now().UTC().Format(time.RFC3339Nano), prefix, i)
			resp, err := client.Post(base+"/v1/errors", "application/json", strings.NewReader(body))
			if err != nil {
				return err
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusCreated {
				return fmt.Errorf("%d %s", resp.StatusCode, b)
			}
			return nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	post("fill", prefill)

	req0, occ0 := samples.req, samples.occ
	if occ0 == nil {
		t.Fatal("the service saved no occurrence to repeat")
	}
	tn := s.Tenant("default")
	storeAlone := func(prefix string, hashed bool) func() {
		return func() {
			if err := parallel(reports, clients, func(i int64) error {
				id := fmt.Sprintf("%s_%d", prefix, i)
				key, errorID, attemptKey := "d_"+id, "err_"+id, "a_"+id
				if hashed {
					key, errorID, attemptKey = serviceKey(id), hashOf("err", id), hashOf("a", id)
				}
				req := *req0
				req.Key, req.AttemptKey, req.At = key, attemptKey, time.Now()
				occ := *occ0
				occ.DeliveryKey, occ.ErrorID, occ.QueryID, occ.ReceivedAt = key, errorID, id, time.Now()
				p, err := tn.PeekReport(ctx, req)
				if err == nil && !p.First {
					err = fmt.Errorf("delivery %s not new", key)
				}
				if err == nil {
					occ.Attempt = p.Attempt
					_, err = tn.Report(ctx, req, p.StartResult, occ)
				}
				return err
			}); err != nil {
				t.Fatal(err)
			}
		}
	}
	phases := []struct {
		name string
		run  func()
	}{
		{"the service", func() { post("svc", reports) }},
		{"the store alone, loadbench's keys", storeAlone("seq", false)},
		{"the store alone, the service's keys", storeAlone("hash", true)},
	}
	frames := make([]map[string]float64, len(phases))
	for i, ph := range phases {
		var commits int
		frames[i], commits = walFramesOf(t, s, path, ph.run)
		t.Logf("%s: %.2f commits per report", ph.name, float64(commits)/float64(reports))
		for name, n := range frames[i] {
			frames[i][name] = n / float64(reports)
		}
	}
	names := map[string]bool{}
	for _, f := range frames {
		for name := range f {
			names[name] = true
		}
	}
	sorted := slices.SortedFunc(func(yield func(string) bool) {
		for name := range names {
			if !yield(name) {
				return
			}
		}
	}, func(a, b string) int { return cmp.Or(cmp.Compare(frames[0][b], frames[0][a]), strings.Compare(a, b)) })
	var b strings.Builder
	fmt.Fprintf(&b, "%-36s %12s %12s %12s\n", "frames per report of", "service", "store, seq", "store, svc")
	totals := make([]float64, len(phases))
	var beyond float64
	for _, name := range sorted {
		fmt.Fprintf(&b, "%-36s %12.2f %12.2f %12.2f\n", name, frames[0][name], frames[1][name], frames[2][name])
		for i := range phases {
			totals[i] += frames[i][name]
		}
		if _, ok := frames[2][name]; !ok && name != "(freelist, header)" {
			beyond += frames[0][name]
		}
	}
	fmt.Fprintf(&b, "%-36s %12.2f %12.2f %12.2f\n", "total", totals[0], totals[1], totals[2])
	t.Logf("%d reports each, on a store of %d and more:\n%s", reports, prefill, b.String())
	// The delivery key begins with the report's time: its two B-trees
	// take the right-most leaf a commit's reports share (0.46 and 0.45
	// frames per report; 1.54 and 1.51 when it began with the fingerprint,
	// a random leaf each, and a split every ~30 reports).
	for _, name := range []string{"deliveries", "sqlite_autoindex_occurrences_1"} {
		if got := frames[0][name]; got > 0.9 {
			t.Errorf("the service writes %.2f frames per report to %s, want at most 0.9 (keys that append)", got, name)
		}
	}
	if beyond > 0.5 {
		t.Errorf("the service writes %.2f frames per report to B-trees its store's report does not write, want at most 0.5", beyond)
	}
}

// walFramesOf runs run with the checkpoints off, from an empty WAL, and
// counts the frames it wrote by their page's owner, and the commits.
func walFramesOf(t *testing.T, s *Store, path string, run func()) (map[string]float64, int) {
	t.Helper()
	ctx := t.Context()
	for _, q := range []string{`PRAGMA wal_checkpoint(TRUNCATE)`, `PRAGMA wal_autocheckpoint = 0`} {
		if _, err := s.write.ExecContext(ctx, q); err != nil {
			t.Fatal(err)
		}
	}
	run()
	commits, err := walCommits(path + "-wal")
	if err != nil {
		t.Fatal(err)
	}
	owner := map[uint32]string{}
	rows, err := s.read.QueryContext(ctx, `SELECT pageno, name FROM dbstat`)
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var (
			no   uint32
			name string
		)
		if err := rows.Scan(&no, &name); err != nil {
			t.Fatal(err)
		}
		owner[no] = name
	}
	if err := rows.Close(); err != nil {
		t.Fatal(err)
	}
	frames := map[string]float64{}
	for _, c := range commits {
		for _, p := range c {
			name, ok := owner[p]
			if !ok {
				name = "(freelist, header)"
			}
			frames[name]++
		}
	}
	if _, err := s.write.ExecContext(ctx, `PRAGMA wal_autocheckpoint = 1000`); err != nil {
		t.Fatal(err)
	}
	return frames, len(commits)
}

// serviceKey is the delivery key the service gives a report of query id
// sent now (triage.DeliveryKey).
func serviceKey(id string) string {
	return triage.DeliveryKey(&triage.Report{AgentID: "query_engine", Timestamp: time.Now(), Data: triage.Data{
		ErrorType: triage.QueryError, ErrorCode: "DB_TIMEOUT", Message: "Query timed out after 30s", QueryID: id}})
}

// hashOf is a key hashed as the service's are (spread over the key space).
func hashOf(prefix, id string) string {
	h := sha256.Sum256([]byte(id))
	return prefix + "_" + hex.EncodeToString(h[:8])
}

// parallel runs op for i = 1…n from c goroutines; the first error stops it.
func parallel(n, c int, op func(i int64) error) error {
	var (
		mu    sync.Mutex
		next  int64
		first error
		wg    sync.WaitGroup
	)
	for range c {
		wg.Go(func() {
			for {
				mu.Lock()
				next++
				i, failed := next, first != nil
				mu.Unlock()
				if i > int64(n) || failed {
					return
				}
				if err := op(i); err != nil {
					mu.Lock()
					first = cmp.Or(first, err)
					mu.Unlock()
				}
			}
		})
	}
	wg.Wait()
	return first
}

// sampledShapes keeps the first report request and occurrence the
// service makes, as cmd/loadbench's store floor does, to repeat them.
type sampledShapes struct {
	store.Store
	mu  sync.Mutex
	req *triage.StartRequest
	occ *store.Occurrence
}

func (s *sampledShapes) Tenant(id string) store.Tenant {
	return sampledTenant{s.Store.Tenant(id), s}
}

type sampledTenant struct {
	store.Tenant
	s *sampledShapes
}

func (t sampledTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	t.s.mu.Lock()
	if t.s.occ == nil {
		r, c := req, o
		c.Jobs = slices.Clone(o.Jobs)
		t.s.req, t.s.occ = &r, &c
	}
	t.s.mu.Unlock()
	return t.Tenant.Report(ctx, req, seen, o)
}
