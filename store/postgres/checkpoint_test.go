package postgres_test

import (
	"testing"

	"github.com/triage-go/triage/internal/testkit/pgtest"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/storetest"
)

// A graph run resumes from the node that failed, on a store opened anew on
// the same database after the process restarted.
func TestResumeAfterRestart(t *testing.T) {
	dbURL := pgtest.FreshSchema(t)
	storetest.ResumeAfterRestart(t, func(t *testing.T) store.Store {
		return open(t, dbURL, store.Config{})
	})
}
