//go:build riverui

package cli_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

// --riverui serves River's UI at /riverui/ behind TRIAGE_OPERATOR_KEY,
// which API keys make required; TRIAGE_RIVERUI too.
func TestServeRiverUI(t *testing.T) {
	const opKey = "operator-key-0123456789"
	db := filepath.Join(t.TempDir(), "triage.db")
	t.Setenv("TRIAGE_API_KEYS", "acme=acme-key-0123456789ab")
	t.Setenv("TRIAGE_OPERATOR_KEY", "")
	var stderr bytes.Buffer
	if code := cli.Run(context.Background(), []string{"serve", "--db", db, "--riverui"}, cli.Env{Stdout: io.Discard, Stderr: &stderr}); code != cli.ExitUsage ||
		!strings.Contains(stderr.String(), "--riverui needs TRIAGE_OPERATOR_KEY") {
		t.Errorf("--riverui with API keys and no operator key: exit %d: %s", code, stderr.String())
	}
	t.Setenv("TRIAGE_OPERATOR_KEY", "acme-key-0123456789ab")
	stderr.Reset()
	if code := cli.Run(context.Background(), []string{"serve", "--db", db, "--riverui"}, cli.Env{Stdout: io.Discard, Stderr: &stderr}); code != cli.ExitUsage ||
		!strings.Contains(stderr.String(), "must not be a tenant's API key") || strings.Contains(stderr.String(), "acme-key") {
		t.Errorf("a tenant's key as the operator key: exit %d: %s", code, stderr.String())
	}
	t.Setenv("TRIAGE_OPERATOR_KEY", opKey)
	t.Setenv("TRIAGE_RIVERUI", "true")
	svc := startServe(t, "--db", db)
	if r := call(t, "GET", svc.base+"/riverui/", nil, "X-API-Key", "acme-key-0123456789ab"); r.status != 403 {
		t.Errorf("a tenant's key: %d %s", r.status, r.body)
	}
	req, _ := http.NewRequest("GET", svc.base+"/riverui/", nil)
	req.SetBasicAuth("ops", opKey)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || !bytes.Contains(body, []byte("/riverui/assets/")) {
		t.Errorf("the operator key: %d %s", resp.StatusCode, body)
	}
	svc.stop()
	// Off by default.
	t.Setenv("TRIAGE_RIVERUI", "false")
	svc = startServe(t, "--db", db)
	if r := call(t, "GET", svc.base+"/riverui/", nil, "X-API-Key", opKey); r.status != 404 {
		t.Errorf("without --riverui: %d %s", r.status, r.body)
	}
}
