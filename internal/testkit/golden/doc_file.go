package golden

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A Doc is a Markdown document whose examples tests keep true.
type Doc struct {
	Path string // the file, as given to ReadDoc, for messages
	Text string // its content
}

// ReadDoc reads the Markdown document at path, failing the test when it
// cannot.
func ReadDoc(t testing.TB, path string) Doc {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return Doc{Path: path, Text: string(b)}
}

// Block returns the body of the document's first code block fenced as
// lang ("```text"), failing the test when there is none.
func (d Doc) Block(t testing.TB, lang string) string {
	t.Helper()
	_, after, ok := strings.Cut(d.Text, "```"+lang+"\n")
	body, _, ok2 := strings.Cut(after, "```\n")
	if !ok || !ok2 {
		t.Fatalf("%s has no %s block", d.Path, lang)
	}
	return body
}

// Shows checks that the document shows each named golden file of testdata
// as it is: the whole file as the body of a code block fenced as lang
// ("```json").
func (d Doc) Shows(t testing.TB, lang string, names ...string) {
	t.Helper()
	for _, name := range names {
		g, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(d.Text, "```"+lang+"\n"+string(g)+"```\n") {
			t.Errorf("%s does not show testdata/%s as it is", d.Path, name)
		}
	}
}
