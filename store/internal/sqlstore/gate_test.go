package sqlstore

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/triage-go/triage/store"
)

// heldDB is a DB whose transactions stay open until release is closed,
// counting how many are open.
type heldDB struct {
	conns   int
	open    atomic.Int32
	entered chan struct{}
	release chan struct{}
}

func (d *heldDB) Writer() Execer  { return nil }
func (d *heldDB) Reader() Querier { return nil }
func (d *heldDB) Conns() int      { return d.conns }

func (d *heldDB) hold(ctx context.Context) error {
	d.open.Add(1)
	defer d.open.Add(-1)
	d.entered <- struct{}{}
	select {
	case <-d.release:
		return errors.New("released")
	case <-ctx.Done():
		return ctx.Err()
	}
}

func (d *heldDB) Read(ctx context.Context, _ func(Querier) error) error  { return d.hold(ctx) }
func (d *heldDB) Write(ctx context.Context, _ func(Querier) error) error { return d.hold(ctx) }

// TestTenantShareOfConns: one tenant's transactions hold at most its
// share of the connections (by default a quarter); its next wait,
// before taking a connection, while another tenant's go through at once.
// On PostgreSQL writes count too; on SQLite, whose writes queue for one
// writer, only reads.
func TestTenantShareOfConns(t *testing.T) {
	for _, c := range []struct {
		name         string
		writes       bool
		share, conns int
		opt          int
	}{
		{"PostgreSQL", true, 8, 32, 0},
		{"SQLite", false, 1, 2, 0},
		{"Set", true, 5, 32, 5},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := &heldDB{conns: c.conns, entered: make(chan struct{}, 64), release: make(chan struct{})}
			s := New(db, Dialect{Name: "test", WritesHoldConns: c.writes}, store.Config{TenantConns: c.opt}, nil)
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			var wg sync.WaitGroup
			defer wg.Wait()
			defer close(db.release)
			a := s.Tenant("a")
			for range c.share + 8 { // its share, and 8 more
				wg.Go(func() { _, _, _ = a.ErrorRecord(ctx, "e1") })
			}
			for range c.share {
				<-db.entered
			}
			time.Sleep(100 * time.Millisecond) // for any more to come in
			if n := int(db.open.Load()); n != c.share {
				t.Fatalf("tenant a has %d transactions open, want its share, %d", n, c.share)
			}
			wg.Go(func() { _, _, _ = s.Tenant("b").ErrorRecord(ctx, "e1") })
			select {
			case <-db.entered:
			case <-time.After(5 * time.Second):
				t.Fatal("tenant b's read waited behind tenant a's")
			}
			// Writes: bounded by the share where they hold a connection.
			wg.Go(func() { _, _ = a.Record(ctx, "agent", "CODE", time.Now(), time.Minute) })
			select {
			case <-db.entered:
				if c.writes {
					t.Error("tenant a's write went past its share")
				}
			case <-time.After(300 * time.Millisecond):
				if !c.writes {
					t.Error("tenant a's write waited, where writes queue for one writer")
				}
			}
		})
	}
}

// TestGateLeavesOnCancel: a transaction that gives up waiting leaves no
// trace; the tenant's entry goes once its last transaction ends.
func TestGateLeavesOnCancel(t *testing.T) {
	g := newGate(1)
	leave, err := g.enter(context.Background(), "a")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := g.enter(ctx, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("a second transaction past the share: %v, want it to wait until its ctx ended", err)
	}
	leave()
	if len(g.tenants) != 0 {
		t.Errorf("entries left: %v", g.tenants)
	}
	if leave, err := g.enter(context.Background(), "a"); err != nil {
		t.Errorf("after the first left: %v", err)
	} else {
		leave()
	}
}
