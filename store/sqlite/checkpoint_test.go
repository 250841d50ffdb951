package sqlite_test

import (
	"path/filepath"
	"testing"

	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/sqlite"
	"github.com/triage-go/triage/store/storetest"
)

// A graph run resumes from the node that failed, on a store opened anew on
// the same file after the process restarted.
func TestResumeAfterRestart(t *testing.T) {
	path := filepath.Join(t.TempDir(), "triage.db")
	storetest.ResumeAfterRestart(t, func(t *testing.T) store.Store {
		s, err := sqlite.Open(t.Context(), path, store.Config{})
		if err != nil {
			t.Fatal(err)
		}
		return s
	})
}
