package agui

import (
	"fmt"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/testkit/golden"
)

// TestDocs checks that docs/agui.md shows the golden streams as they are,
// and states the bounds of ParseRunAgentInput as they are.
func TestDocs(t *testing.T) {
	t.Parallel()
	doc := golden.ReadDoc(t, "../../docs/agui.md")
	doc.Shows(t, "", "run_error_rate_limited.golden", "error_sequence.golden")
	for _, row := range []string{
		fmt.Sprintf("| `MaxInputMessages`: messages | %s |", thousands(MaxInputMessages)),
		fmt.Sprintf("| %d each |", MaxInputItems),
		fmt.Sprintf("| %d bytes |", MaxInputIDBytes),
		fmt.Sprintf("| %d levels |", MaxInputDepth),
	} {
		if !strings.Contains(doc.Text, strings.TrimPrefix(row, "| ")) {
			t.Errorf("docs/agui.md does not state %q", row)
		}
	}
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	if len(s) > 3 {
		s = s[:len(s)-3] + "," + s[len(s)-3:]
	}
	return s
}
