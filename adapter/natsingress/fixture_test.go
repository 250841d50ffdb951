package natsingress_test

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/adapter/natsingress"
	"github.com/triage-go/triage/internal/testkit/natstest"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
)

// bundle is one test's service and bus: a Server on its own SQLite
// store (behind hooks), a Consumer on streams and subjects of its own, and
// a connection to publish and listen with.
type bundle struct {
	cfg   natsingress.Config
	srv   *server.Server
	store store.Store
	hooks *hooks
	bus   *natstest.Bus
	in    *natsingress.Consumer
	nc    *nats.Conn
	js    jetstream.JetStream
}

type options struct {
	cfg     natsingress.Config // merged over the test's names
	apiKeys map[string]string
	stream  *jetstream.StreamConfig // the default tenant's, created before the consumer starts
	shared  *jetstream.StreamConfig // the earlier layout's one stream of every tenant's reports, likewise
	before  func(*natstest.Bus)     // runs before the consumer starts
	hooks   hooks                   // the store's
	url     string                  // the NATS server, when not TRIAGE_TEST_NATS's
}

// setup starts a bundle; everything it makes on the NATS server is
// deleted when the test ends.
func setup(t *testing.T, o options) *bundle {
	t.Helper()
	bus := natstest.New(t, o.url, "natsin")
	cfg := o.cfg
	cfg.URL, cfg.Stream, cfg.Subject = bus.URL, bus.Stream, bus.Subject
	cfg.Feedback, cfg.DeadLetter = bus.Feedback, bus.DeadLetter
	if cfg.AckWait == 0 {
		cfg.AckWait = 5 * time.Second
	}
	cfg.Logger = slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelDebug}))

	st, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), store.Config{})
	if err != nil {
		t.Fatal(err)
	}
	h := &o.hooks
	srv, err := server.New(server.Config{Store: hookStore{Store: st, h: h}, APIKeys: o.apiKeys, JobPoll: -1,
		Logger: cfg.Logger})
	if err != nil {
		t.Fatal(err)
	}
	b := &bundle{cfg: cfg, srv: srv, store: st, hooks: h, bus: bus, nc: bus.NC, js: bus.JS}
	t.Cleanup(func() {
		if b.in != nil {
			_ = b.in.Close()
		}
		srv.Close()
		st.Close()
	})
	if o.stream != nil {
		sc := *o.stream
		sc.Name, sc.Subjects = cfg.StreamName("default"), []string{cfg.ReportSubject("default")}
		if _, err := bus.JS.CreateStream(t.Context(), sc); err != nil {
			t.Fatal(err)
		}
	}
	if o.shared != nil {
		sc := *o.shared
		sc.Name, sc.Subjects = cfg.Stream, []string{cfg.Subject + ".>"}
		if _, err := bus.JS.CreateStream(t.Context(), sc); err != nil {
			t.Fatal(err)
		}
	}
	if o.before != nil {
		o.before(bus)
	}
	cfg.Logger, cfg.Registerer, cfg.Problems = srv.Logger(), srv.Registerer(), srv.ProblemOptions()
	if cfg.Tenants == nil {
		cfg.Tenants = srv.Tenants()
	}
	if b.in, err = natsingress.Start(t.Context(), srv.Service(), cfg); err != nil {
		t.Fatal(err)
	}
	return b
}

type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(string(p[:len(p)-1]))
	return len(p), nil
}

// publish stores a message on the report stream: to the tenant's subject,
// with the headers given as name, value pairs.
func (b *bundle) publish(t *testing.T, tenant string, body []byte, header ...string) *jetstream.PubAck {
	t.Helper()
	return b.bus.Publish(t, b.cfg.ReportSubject(tenant), body, header...)
}

// none fails the test if ch has a message within d.
func none(t *testing.T, ch chan *nats.Msg, d time.Duration, what string) {
	t.Helper()
	select {
	case m := <-ch:
		t.Fatalf("unexpected %s: %s %v %s", what, m.Subject, m.Header, m.Data)
	case <-time.After(d):
	}
}

// consumer returns the state of the durable consumer of tenant's stream.
func (b *bundle) consumer(t *testing.T, tenant string) *jetstream.ConsumerInfo {
	t.Helper()
	return b.bus.Consumer(t, b.cfg.StreamName(tenant), natsingress.DefaultDurable)
}

// waitAcked waits until every message of ack's stream up to its
// sequence is acknowledged and none is pending.
func (b *bundle) waitAcked(t *testing.T, ack *jetstream.PubAck) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		info := b.bus.Consumer(t, ack.Stream, natsingress.DefaultDurable)
		if info.AckFloor.Stream >= ack.Sequence && info.NumAckPending == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s sequence %d not acknowledged: ack floor %d, %d pending", ack.Stream, ack.Sequence, info.AckFloor.Stream, info.NumAckPending)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// records lists the tenant's error records.
func (b *bundle) records(t *testing.T, tenant string) []store.RecordSummary {
	t.Helper()
	page, err := b.store.Tenant(tenant).ErrorRecords(t.Context(), store.Filter{})
	if err != nil {
		t.Fatal(err)
	}
	return page.Records
}

// feedback decodes a feedback message.
func feedback(t *testing.T, m *nats.Msg) triage.Feedback {
	t.Helper()
	var fb triage.Feedback
	if err := json.Unmarshal(m.Data, &fb); err != nil || fb.ErrorID == "" {
		t.Fatalf("not feedback (%v): %v %s", err, m.Header, m.Data)
	}
	return fb
}

func golden(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../cmd/triage/internal/cli/testdata/handle", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// hooks run before a report's writes; an error a hook returns is the
// write's.
type hooks struct {
	start func(context.Context) error // before PeekReport or Start, a report's first store call
	save  func(context.Context) error // before Report or SaveOccurrence, its commit
	// commitLate makes SaveOccurrence commit whatever its context says,
	// as a database that had the COMMIT before the caller's deadline.
	commitLate bool
}

type hookStore struct {
	store.Store
	h *hooks
}

func (s hookStore) Tenant(id string) store.Tenant {
	return hookTenant{Tenant: s.Store.Tenant(id), h: s.h}
}

type hookTenant struct {
	store.Tenant
	h *hooks
}

func (t hookTenant) Start(ctx context.Context, req triage.StartRequest) (triage.StartResult, error) {
	if t.h.start != nil {
		if err := t.h.start(ctx); err != nil {
			return triage.StartResult{}, err
		}
	}
	return t.Tenant.Start(ctx, req)
}

func (t hookTenant) SaveOccurrence(ctx context.Context, o store.Occurrence) (store.Saved, error) {
	if t.h.save != nil {
		if err := t.h.save(ctx); err != nil {
			return store.Saved{}, err
		}
	}
	if t.h.commitLate {
		ctx = context.WithoutCancel(ctx)
	}
	return t.Tenant.SaveOccurrence(ctx, o)
}

// PeekReport is the report's first call to its store (Start's, on the
// two-write way): the start hook's.
func (t hookTenant) PeekReport(ctx context.Context, req triage.StartRequest) (store.Peeked, error) {
	if t.h.start != nil {
		if err := t.h.start(ctx); err != nil {
			return store.Peeked{}, err
		}
	}
	return t.Tenant.PeekReport(ctx, req)
}

// Report is the report's commit (SaveOccurrence's, on the two-write
// way): the save hook's.
func (t hookTenant) Report(ctx context.Context, req triage.StartRequest, seen triage.StartResult, o store.Occurrence) (store.Saved, error) {
	if t.h.save != nil {
		if err := t.h.save(ctx); err != nil {
			return store.Saved{}, err
		}
	}
	if t.h.commitLate {
		ctx = context.WithoutCancel(ctx)
	}
	return t.Tenant.Report(ctx, req, seen, o)
}
