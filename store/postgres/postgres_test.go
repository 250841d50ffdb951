package postgres_test

import (
	"os"
	"strings"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5"

	"github.com/triage-go/triage/internal/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/storetest"
)

func open(t *testing.T, dbURL string, opts store.Options) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(t.Context(), dbURL, opts)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func TestConformance(t *testing.T) {
	pgtest.URL(t)
	storetest.Run(t, func(t *testing.T, opts store.Options) store.Store {
		return open(t, pgtest.FreshSchema(t), opts)
	})
}

func TestConcurrentOpenMigratesOnce(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	const n = 4
	stores := make([]*postgres.Store, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			s, err := postgres.Open(t.Context(), dbURL, store.Options{})
			if err != nil {
				t.Error(err)
				return
			}
			stores[i] = s
		})
	}
	wg.Wait()
	for _, s := range stores {
		if s != nil {
			defer s.Close()
		}
	}
	if t.Failed() {
		return
	}
	conn, err := pgx.Connect(t.Context(), dbURL)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	var applied int
	if err := conn.QueryRow(t.Context(), "SELECT count(*) FROM schema_migrations").Scan(&applied); err != nil {
		t.Fatal(err)
	}
	files, err := os.ReadDir("migrations")
	if err != nil {
		t.Fatal(err)
	}
	if applied != len(files) {
		t.Errorf("schema_migrations has %d rows, want one per migration (%d)", applied, len(files))
	}
	// Every instance works on the one schema.
	for i, s := range stores {
		if got, err := s.Tenant("a").Next(t.Context(), "k"); err != nil || got != i+1 {
			t.Errorf("instance %d: Next = %d, %v; want %d", i, got, err, i+1)
		}
	}
}

func TestReopenKeepsData(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	s := open(t, dbURL, store.Options{})
	if _, err := s.Tenant("a").Next(t.Context(), "k"); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s = open(t, dbURL, store.Options{})
	defer s.Close()
	if n, err := s.Tenant("a").Next(t.Context(), "k"); err != nil || n != 2 {
		t.Errorf("Next after reopening = %d, %v; want 2", n, err)
	}
}

func TestOpenErrorsHideThePassword(t *testing.T) {
	for _, dbURL := range []string{
		"postgres://triage:s3cret-pw@127.0.0.1:1/triage?connect_timeout=2&sslmode=disable", // nothing listens
		"postgres://triage:s3cret-pw@db.example:notaport/triage",                           // unparsable
		"host=127.0.0.1 port=1 user=triage password=s3cret-pw connect_timeout=2 sslmode=disable",
		"postgres://triage:s3cret-pw%zz@127.0.0.1/triage", // a bad escape in the password
	} {
		s, err := postgres.Open(t.Context(), dbURL, store.Options{})
		if err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded", dbURL)
			continue
		}
		if strings.Contains(err.Error(), "s3cret-pw") {
			t.Errorf("Open error shows the password: %v", err)
		}
	}
}
