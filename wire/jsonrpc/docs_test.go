package jsonrpc

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/testkit/golden"
)

const docFile = "../../docs/jsonrpc-present.md"

// TestDocs checks that docs/jsonrpc-present.md shows the golden files as
// they are and that its tables agree with the code table and this package.
func TestDocs(t *testing.T) {
	t.Parallel()
	doc := golden.ReadDoc(t, docFile)

	t.Run("Goldens", func(t *testing.T) {
		t.Parallel()
		doc.Shows(t, "json", "session_not_found.json", "rate_limited.json", "worker_timeout.json",
			"parse_error.json", "invalid_params.json", "secrets.json", "tool_error.json", "tool_error_member.json")
	})

	t.Run("EveryCode", func(t *testing.T) {
		t.Parallel()
		var table strings.Builder
		table.WriteString("| Triage code | JSON-RPC `code` | `data.type` | `retryable` | `sessionValid` | `httpStatus` | `domain` |\n")
		table.WriteString("|---|---|---|---|---|---|---|\n")
		for _, spec := range fault.Codes() {
			e := From(fault.New(spec.Code, ""))
			d, err := e.ParseData()
			if err != nil {
				t.Fatal(err)
			}
			fmt.Fprintf(&table, "| `%s` | %d | %s | %t | %t | %d | %s |\n",
				d.Code, e.Code, d.Type, d.Retryable, d.SessionValid, d.HTTPStatus, d.Domain)
		}
		if !strings.Contains(doc.Text, table.String()) {
			t.Errorf("%s's table of every code is stale; it should be:\n%s", docFile, table.String())
		}
	})

	t.Run("Categories", func(t *testing.T) {
		t.Parallel()
		i := strings.Index(doc.Text, "### Category codes")
		if i < 0 {
			t.Fatal("no Category codes section")
		}
		section, _, _ := strings.Cut(doc.Text[i:], "\n### ")
		rows := regexp.MustCompile("(?m)^\\| `([A-Z]+)` \\| (-\\d+) \\|").FindAllStringSubmatch(section, -1)
		if len(rows) != len(fault.Categories()) {
			t.Errorf("%d category rows, want %d", len(rows), len(fault.Categories()))
		}
		for _, r := range rows {
			if got := fault.Category(r[1]).JSONRPCCode(); strconv.Itoa(got) != r[2] {
				t.Errorf("the doc maps %s to %s; the code is %d", r[1], r[2], got)
			}
		}
	})

	t.Run("ReverseMapping", func(t *testing.T) {
		t.Parallel()
		rows := regexp.MustCompile("(?m)^\\| (-\\d+(?:, -\\d+)*) \\| `([A-Z_]+)` \\|$").FindAllStringSubmatch(doc.Text, -1)
		if len(rows) != 7 {
			t.Errorf("%d reverse-mapping rows, want 7", len(rows))
		}
		for _, r := range rows {
			for _, c := range strings.Split(r[1], ", ") {
				n, _ := strconv.Atoi(c)
				if got := FaultCode(n); string(got) != r[2] {
					t.Errorf("the doc maps %d to %s; FaultCode says %s", n, r[2], got)
				}
			}
		}
	})

	t.Run("StandardErrors", func(t *testing.T) {
		t.Parallel()
		constructors := map[string]*Error{
			"NewParseError":     NewParseError(""),
			"NewInvalidRequest": NewInvalidRequest(""),
			"NewMethodNotFound": NewMethodNotFound(""),
			"NewInvalidParams":  NewInvalidParams(""),
			"NewInternalError":  NewInternalError(),
		}
		rows := regexp.MustCompile("(?m)^\\| `(New\\w+)\\(.*?\\)` \\| (-\\d+) \\| `([^`:]+)[^|]*\\| `([A-Z_]+)` \\|$").FindAllStringSubmatch(doc.Text, -1)
		if len(rows) != len(constructors) {
			t.Errorf("%d standard error rows, want %d", len(rows), len(constructors))
		}
		for _, r := range rows {
			e := constructors[r[1]]
			if e == nil {
				t.Errorf("unknown constructor %s", r[1])
				continue
			}
			if strconv.Itoa(e.Code) != r[2] || e.Message != r[3] || string(e.Fault().Code) != r[4] {
				t.Errorf("row %q; %s gives %d %q %s", r[0], r[1], e.Code, e.Message, e.Fault().Code)
			}
		}
	})
}
