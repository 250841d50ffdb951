package render_test

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/tsgen/render"
)

func rendered(t *testing.T) string {
	t.Helper()
	var b bytes.Buffer
	if err := render.Codes(&b); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

// The file is marked as generated the way go generate's tools mark it, and
// the layout test (which exempts generated files from its size limit)
// recognises the mark.
func TestHeader(t *testing.T) {
	t.Parallel()
	out := rendered(t)
	first, _, _ := strings.Cut(out, "\n")
	if first != render.Header {
		t.Fatalf("first line %q, want %q", first, render.Header)
	}
	if !regexp.MustCompile(`(?m)^// Code generated .* DO NOT EDIT\.$`).MatchString(out) {
		t.Fatal("no generated-code line")
	}
}

func TestDeterministic(t *testing.T) {
	t.Parallel()
	if a, b := rendered(t), rendered(t); a != b {
		t.Fatal("two renderings differ")
	}
}

// Every row of the table is in AGUIErrorCode and in CODES with each facet, in
// the table's order.
func TestEveryCode(t *testing.T) {
	t.Parallel()
	out := rendered(t)
	_, rest, ok := strings.Cut(out, "export const AGUIErrorCode = Object.freeze({\n")
	if !ok {
		t.Fatal("no AGUIErrorCode object")
	}
	enumBody, _, _ := strings.Cut(rest, "} as const);\n")
	if !strings.Contains(out, "export type AGUIErrorCode = (typeof AGUIErrorCode)[keyof typeof AGUIErrorCode];\n") {
		t.Error("no AGUIErrorCode union type")
	}
	if strings.Contains(out, "enum ") {
		t.Error("the module declares an enum, which erasableSyntaxOnly refuses")
	}
	last := -1
	for _, s := range fault.Codes() {
		member := "  " + string(s.Code) + ": " + strconv.Quote(string(s.Code)) + ",\n"
		i := strings.Index(enumBody, member)
		if i < 0 {
			t.Errorf("AGUIErrorCode has no member %q", member)
			continue
		}
		if i < last {
			t.Errorf("%s is out of the table's order", s.Code)
		}
		last = i
		_, row, ok := strings.Cut(out, "  [AGUIErrorCode."+string(s.Code)+"]: Object.freeze({\n")
		if !ok {
			t.Errorf("CODES has no row for %s", s.Code)
			continue
		}
		row, _, _ = strings.Cut(row, "  }),\n")
		for _, facet := range []string{
			"code: AGUIErrorCode." + string(s.Code),
			"httpStatus: " + strconv.Itoa(s.Status),
			"category: " + strconv.Quote(string(s.Category)),
			"domain: " + strconv.Quote(string(s.Domain)),
			"retryable: " + strconv.FormatBool(s.Retryable),
			"sessionValid: " + strconv.FormatBool(s.SessionValid),
			"jsonrpc: " + strconv.Itoa(s.JSONRPC),
			"type: " + strconv.Quote(s.Type),
			"title: " + strconv.Quote(s.Title),
			"message: " + strconv.Quote(s.Message),
		} {
			if !strings.Contains(row, "    "+facet+",\n") {
				t.Errorf("%s: the row lacks %q:\n%s", s.Code, facet, row)
			}
		}
	}
	for _, c := range fault.Categories() {
		if !strings.Contains(out, "\n  | "+strconv.Quote(string(c))) {
			t.Errorf("ErrorCategory lacks %s", c)
		}
	}
	for _, d := range fault.Domains() {
		if !strings.Contains(out, "\n  | "+strconv.Quote(string(d))) {
			t.Errorf("ErrorDomain lacks %s", d)
		}
	}
	if !strings.Contains(out, "export const MAX_RETRY_AFTER_SECONDS = 86400;\n") {
		t.Error("MAX_RETRY_AFTER_SECONDS is not fault.MaxRetryAfter in seconds")
	}
}

// The kit reads a code this table does not know with the defaults of
// AGENT_EXECUTION_ERROR (errors.ts, GENERIC_CODE). That is sound only while
// they are the defaults package fault gives an unknown code: this test
// fails when the two part.
func TestUnknownCodeDefaults(t *testing.T) {
	t.Parallel()
	u := fault.New(fault.Code("FROM_A_NEWER_PEER"), "")
	g, ok := fault.Lookup(fault.AgentExecutionError)
	if !ok {
		t.Fatal("no AGENT_EXECUTION_ERROR row")
	}
	if u.HTTPStatus() != g.Status || u.Category != g.Category || u.Domain != g.Domain ||
		u.Retryable != g.Retryable || u.SessionValid != g.SessionValid || u.Message != g.Message {
		t.Fatalf("an unknown code's defaults %+v differ from AGENT_EXECUTION_ERROR's %+v: update the kit's GENERIC_CODE fallback in web/packages/kit/src/errors.ts", u, g)
	}
}

// Strings are JSON strings, which JavaScript reads as the same text; HTML
// characters are left alone.
func TestStringLiterals(t *testing.T) {
	t.Parallel()
	out := rendered(t)
	if strings.Contains(out, `\u003c`) || strings.Contains(out, `\u0026`) {
		t.Error("HTML characters were escaped")
	}
	if !strings.Contains(out, `message: "Request rate limit exceeded. Please wait before retrying.",`) {
		t.Error("RATE_LIMITED's message is not a plain literal")
	}
}
