package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
)

// URL is the test database's URL, from TRIAGE_TEST_POSTGRES; the
// test is skipped without it.
func URL(t testing.TB) string {
	t.Helper()
	u := os.Getenv("TRIAGE_TEST_POSTGRES")
	if u == "" {
		t.Skip("TRIAGE_TEST_POSTGRES is not set: set it to a PostgreSQL URL " +
			"(postgres://postgres@127.0.0.1:5432/test?sslmode=disable) to run the PostgreSQL tests")
	}
	return u
}

// FreshSchema creates an empty schema, dropped when the test ends, and
// returns the URL of the test database with it first in the search path.
func FreshSchema(t testing.TB) string {
	t.Helper()
	base := URL(t)
	conn, err := pgx.Connect(t.Context(), base)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(t.Context())
	b := make([]byte, 8)
	rand.Read(b)
	schema := "triage_test_" + hex.EncodeToString(b)
	if _, err := conn.Exec(t.Context(), "CREATE SCHEMA "+schema); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx := context.Background() // the test's is done
		conn, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Error(err)
			return
		}
		defer conn.Close(ctx)
		if _, err := conn.Exec(ctx, "DROP SCHEMA "+schema+" CASCADE"); err != nil {
			t.Error(err)
		}
	})
	return WithSearchPath(t, base, schema)
}

// WithSearchPath adds search_path to a URL or a keyword/value string.
func WithSearchPath(t testing.TB, base, schema string) string {
	t.Helper()
	if !strings.HasPrefix(base, "postgres://") && !strings.HasPrefix(base, "postgresql://") {
		return base + " search_path=" + schema
	}
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", schema)
	u.RawQuery = q.Encode()
	return u.String()
}
