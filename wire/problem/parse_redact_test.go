package problem_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-go/triage/wire/problem"
)

// TestFaultRedactsEveryPeerText: a peer's problem becomes a fault with its
// credentials removed from the field errors, the details and the debug
// text, not only from detail.
func TestFaultRedactsEveryPeerText(t *testing.T) {
	doc := `{"type":"/errors/invalid-request","status":422,"code":"INVALID_REQUEST","detail":"bad",
		"errors":[{"field":"token","message":"Authorization: Bearer abcdef0123456789 was refused"}],
		"details":{"note":"api_key=sk-abcdefghijklmnop","authorization":"Bearer abcdef0123456789"},
		"debug":{"error_type":"x","cause":"dial with password=hunter2hunter2"}}`
	p, err := problem.Parse([]byte(doc))
	if err != nil {
		t.Fatal(err)
	}
	f := p.Fault()
	out, err := json.Marshal(struct {
		Fields  any
		Details any
		Cause   string
	}{f.FieldErrors, f.Details, f.Debug.Cause})
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"abcdef0123456789", "sk-abcdefghijklmnop", "hunter2hunter2"} {
		if strings.Contains(string(out), secret) {
			t.Errorf("%q survived in %s", secret, out)
		}
	}
	if len(f.FieldErrors) != 1 || !strings.Contains(f.FieldErrors[0].Message, "was refused") {
		t.Errorf("the field error's message is gone: %+v", f.FieldErrors)
	}
}
