package triage

import (
	"strings"
	"unicode/utf8"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/oneline"
)

// MaxTitle bounds a record's title, in bytes.
const MaxTitle = 200

// Title is what a record's listing says went wrong, from its latest
// report: the report's code (its error_code, else its fault's code) and
// its message, redacted as the stored report's is (fault.Redact) and on
// one line, as "CODE: message", cut at MaxTitle bytes on a word or, in a
// word longer than that, a character boundary, "…" telling it was cut.
// code is the code alone ("" when the report has none); title is ""
// only when the report has neither code nor message.
func (r *Report) Title() (code, title string) {
	code = r.Data.ErrorCode
	if code == "" && r.Data.Fault != nil {
		code = string(r.Data.Fault.Code)
	}
	msg := oneline.Join(fault.Redact(r.Data.Message))
	switch {
	case code == "":
		title = msg
	case msg == "":
		title = code
	default:
		title = code + ": " + msg
	}
	return code, CutTitle(title, MaxTitle)
}

// CutTitle is s cut to at most n bytes (n at least 4): whole when it
// fits, else at the last space before the cut, or at a character
// boundary when that would drop more than half of it, followed by "…".
func CutTitle(s string, n int) string {
	if len(s) <= n {
		return s
	}
	const ellipsis = "…" // 3 bytes
	cut := n - len(ellipsis)
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	if sp := strings.LastIndexByte(s[:cut], ' '); sp > cut/2 {
		cut = sp
	}
	return strings.TrimRight(s[:cut], " ") + ellipsis
}
