package present

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

const docFile = "../../docs/jsonrpc-present.md"

// TestDocs checks that docs/jsonrpc-present.md shows the golden files as
// they are and that its table of every code agrees with the code table and
// this package.
func TestDocs(t *testing.T) {
	t.Parallel()
	doc := golden.ReadDoc(t, docFile)

	doc.Shows(t, "json", "user_error_fault.json", "user_error_retry_after.json", "user_error_defaults.json", "delta.json", "close.json",
		"other_event.json", "stream_id_seq.json", "stream_error_transient.json", "stream_error_fatal.json",
		"secrets_stream_error.json")

	var table strings.Builder
	table.WriteString("| Triage code | user_error `code` | `domain` | `retryable` | stream error `severity` |\n")
	table.WriteString("|---|---|---|---|---|\n")
	for _, spec := range fault.Codes() {
		f := fault.New(spec.Code, "")
		u, se := UserErrorFrom(f), StreamErrorFrom(f)
		fmt.Fprintf(&table, "| `%s` | %d | %s | %t | %s |\n", se.Code, u.Code, u.Domain, u.Retryable, se.Severity)
	}
	if !strings.Contains(doc.Text, table.String()) {
		t.Errorf("%s's table of every code is stale; it should be:\n%s", docFile, table.String())
	}
	for _, s := range []string{
		`present: member "data.domain": unknown domain "network"; allowed: client, system, llm, tool, security`,
	} {
		if !strings.Contains(doc.Text, s) {
			t.Errorf("%s does not quote %q", docFile, s)
		}
	}
}
