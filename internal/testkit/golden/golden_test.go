package golden_test

import (
	"testing"

	"github.com/triage-go/triage/internal/testkit/golden"
)

func TestCheck(t *testing.T) {
	t.Parallel()
	v := struct {
		Code       string `json:"code"`
		RetryAfter int    `json:"retry_after"`
	}{"RATE_LIMITED", 30}
	golden.Check(t, "value.json", golden.Indent(t, v))
}

func TestSameJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		a, b string
		want bool
	}{
		{"OrderAndSpace", `{"a":1,"b":[true,null]}`, ` { "b" : [true, null], "a" : 1 } `, true},
		{"NumbersByText", `{"a":1}`, `{"a":1.0}`, false},
		{"BothEmpty", ``, ``, true},
		{"OneEmpty", `null`, ``, false},
		{"Invalid", `{`, `{`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := golden.SameJSON([]byte(tt.a), []byte(tt.b)); got != tt.want {
				t.Errorf("SameJSON(%s, %s) = %t, want %t", tt.a, tt.b, got, tt.want)
			}
		})
	}
}

func TestDoc(t *testing.T) {
	t.Parallel()
	doc := golden.Doc{Path: "doc.md", Text: "# Errors\n\n```text\nfirst\n```\n\n```json\n{\n  \"code\": \"RATE_LIMITED\",\n  \"retry_after\": 30\n}\n```\n"}
	if got := doc.Block(t, "text"); got != "first\n" {
		t.Errorf("Block = %q", got)
	}
	doc.Shows(t, "json", "value.json")
}
