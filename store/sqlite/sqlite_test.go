package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/store/storetest"
)

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T, opts store.Options) store.Store {
		s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "triage.db"), opts)
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}

func TestReopenKeepsData(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	s, err := sqlite.Open(t.Context(), path, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Tenant("a").Next(t.Context(), "q1|E"); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlite.Open(t.Context(), path, store.Options{}) // the migrations are not applied again
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if n, err := s.Tenant("a").Next(t.Context(), "q1|E"); err != nil || n != 2 {
		t.Errorf("Next after reopening = %d, %v; want 2", n, err)
	}
}

func TestOpenRefusesNonFiles(t *testing.T) {
	for _, path := range []string{"", ":memory:", "db?mode=ro"} {
		if s, err := sqlite.Open(t.Context(), path, store.Options{}); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
}
