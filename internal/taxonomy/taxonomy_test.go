package taxonomy_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/taxonomy"
)

// TestTaxonomyUpToDate fails when docs/taxonomy.md no longer matches the code
// table or the codes' doc comments.
func TestTaxonomyUpToDate(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := taxonomy.Markdown(&b, "../../fault"); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../../docs/taxonomy.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatal("docs/taxonomy.md is stale: run go generate ./fault")
	}
	for _, s := range fault.Codes() {
		if !strings.Contains(b.String(), "### "+string(s.Code)+"\n") {
			t.Errorf("%s has no section", s.Code)
		}
	}
}

func TestClassificationUpToDate(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	if err := taxonomy.Classification(&b); err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("../../docs/classification.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, b.Bytes()) {
		t.Fatal("docs/classification.md is stale: run go generate ./fault")
	}
}

func TestMarkdownNeedsComments(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(dir+"/codes.go", []byte("package fault\nconst X = \"AGENT_EXECUTION_ERROR\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := taxonomy.Markdown(&bytes.Buffer{}, dir); err == nil {
		t.Fatal("a code without a doc comment was accepted")
	}
}
