package triage

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"
	"time"

	"github.com/triage-go/triage/internal/oneline"
)

// FingerprintVersion names the normalization the fingerprint uses. It is
// part of every fingerprint, so that changing the rules changes the
// version rather than silently regrouping old errors.
const FingerprintVersion = "v1"

// NormalizeMessage returns a message with the parts that vary between
// occurrences of the same error replaced by placeholders, as Sentry's
// grouping does, and its whitespace collapsed: two occurrences of one
// error normalize the same. Reading words (runs of letters, digits and
// '_') from the left, at each word it replaces, the first that fits:
//
//	a UUID (8-4-4-4-12 hex digits)                  <uuid>
//	a date, with a time and zone if it has them      <timestamp>
//	  (2025-08-08, 2025-08-08T12:20:05.123+02:00)
//	a time (12:20, 12:20:05.5)                       <time>
//	an IPv4 address, with its port if it has one     <ip>
//	a hexadecimal word with digits and letters,
//	  or 0x and hex digits (9f86d081, 0xc000)        <hex>
//	a word that begins with a number: the number     <num>
//	  (1,234.5), the rest of the word kept if it has
//	  no digit ("30s" → "<num>s")
//
// Other words are kept as they are.
func NormalizeMessage(msg string) string {
	msg = oneline.Join(msg)
	if !hasDigit(msg) {
		return msg // every placeholder replaces a part with a digit
	}
	var buf [256]byte
	return string(appendParts(buf[:0], msg))
}

// appendNormalized appends NormalizeMessage(msg) to b.
func appendNormalized(b []byte, msg string) []byte {
	if msg = oneline.Join(msg); !hasDigit(msg) {
		return append(b, msg...)
	}
	return appendParts(b, msg)
}

// appendParts appends msg, on one line, to b with its parts replaced by
// their placeholders.
func appendParts(b []byte, msg string) []byte {
	for i := 0; i < len(msg); {
		if !isWord(msg[i]) || i > 0 && isWord(msg[i-1]) {
			b = append(b, msg[i])
			i++
			continue
		}
		if end, ph := matchPart(msg, i); end > i {
			b = append(b, ph...)
			i = end
			continue
		}
		end := wordEnd(msg, i)
		b = append(b, msg[i:end]...)
		i = end
	}
	return b
}

func hasDigit(s string) bool {
	for i := 0; i < len(s); i++ {
		if isDigit(s[i]) {
			return true
		}
	}
	return false
}

func isDigitRune(r rune) bool { return r >= '0' && r <= '9' }
func isDigit(c byte) bool     { return c >= '0' && c <= '9' }
func isHex(c byte) bool       { return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'f' }
func isWord(c byte) bool {
	return isDigit(c) || c|0x20 >= 'a' && c|0x20 <= 'z' || c == '_'
}

func wordEnd(s string, i int) int {
	for i < len(s) && isWord(s[i]) {
		i++
	}
	return i
}

// atBoundary reports whether a part may end at i: at the end, or before a
// character that is not part of a word.
func atBoundary(s string, i int) bool { return i == len(s) || !isWord(s[i]) }

// digits returns the end of a run of n to m digits at i, or -1.
func digits(s string, i, n, m int) int {
	j := i
	for j < len(s) && j-i < m && isDigit(s[j]) {
		j++
	}
	if j-i < n {
		return -1
	}
	return j
}

// lit returns i+1 when s[i] is c, else -1.
func lit(s string, i int, c byte) int {
	if i >= 0 && i < len(s) && s[i] == c {
		return i + 1
	}
	return -1
}

// matchPart matches the part that begins the word at i, and returns its
// end and placeholder, or i when no part does.
func matchPart(s string, i int) (int, string) {
	if e := matchUUID(s, i); e > 0 && atBoundary(s, e) {
		return e, "<uuid>"
	}
	if e := matchTimestamp(s, i); e > 0 {
		return e, "<timestamp>"
	}
	if e := matchTime(s, i); e > 0 && atBoundary(s, e) {
		return e, "<time>"
	}
	if e := matchIP(s, i); e > 0 {
		return e, "<ip>"
	}
	end := wordEnd(s, i)
	if isHexWord(s[i:end]) {
		return end, "<hex>"
	}
	if isDigit(s[i]) {
		j := digits(s, i, 1, len(s))
		// Groups of digits after '.' or ',' belong to the number, as long
		// as one follows.
		for j+1 < len(s) && (s[j] == '.' || s[j] == ',') && isDigit(s[j+1]) {
			j = digits(s, j+1, 1, len(s))
		}
		// The rest of the word is kept when it is a unit ("s", "MB"); when
		// it holds digits too ("08T12"), the whole word is the number.
		if we := wordEnd(s, j); strings.IndexFunc(s[j:we], isDigitRune) >= 0 {
			j = we
		}
		return j, "<num>"
	}
	return i, ""
}

func matchUUID(s string, i int) int {
	j := i
	for g, n := range [5]int{8, 4, 4, 4, 12} {
		if g > 0 {
			if j = lit(s, j, '-'); j < 0 {
				return -1
			}
		}
		for k := 0; k < n; k++ {
			if j >= len(s) || !isHex(s[j]) {
				return -1
			}
			j++
		}
	}
	return j
}

// matchTimestamp matches a date, then as much of a time and zone as ends at
// a boundary; it returns -1 when not even the date does.
func matchTimestamp(s string, i int) int {
	j := digits(s, i, 4, 4)
	j = lit(s, j, '-')
	if j < 0 {
		return -1
	}
	if j = digits(s, j, 2, 2); j < 0 {
		return -1
	}
	if j = lit(s, j, '-'); j < 0 {
		return -1
	}
	if j = digits(s, j, 2, 2); j < 0 {
		return -1
	}
	date := j
	best := -1
	if atBoundary(s, date) {
		best = date
	}
	if date < len(s) && (s[date]|0x20 == 't' || s[date] == ' ') {
		// The hour has two digits.
		if t := matchTime(s, date+1); t > 0 && digits(s, date+1, 2, 2) == date+3 {
			if z := matchZone(s, t); z > 0 && atBoundary(s, z) {
				return z
			}
			if atBoundary(s, t) {
				return t
			}
		}
	}
	return best
}

func matchZone(s string, i int) int {
	if i >= len(s) {
		return -1
	}
	if s[i]|0x20 == 'z' {
		return i + 1
	}
	if s[i] != '+' && s[i] != '-' {
		return -1
	}
	j := digits(s, i+1, 2, 2)
	if j < 0 {
		return -1
	}
	if k := lit(s, j, ':'); k > 0 {
		j = k
	}
	return digits(s, j, 2, 2)
}

// matchTime matches h:mm or hh:mm, then :ss and a fraction if present.
func matchTime(s string, i int) int {
	j := digits(s, i, 1, 2)
	if j = lit(s, j, ':'); j < 0 {
		return -1
	}
	if j = digits(s, j, 2, 2); j < 0 {
		return -1
	}
	if k := lit(s, j, ':'); k > 0 {
		if k = digits(s, k, 2, 2); k > 0 {
			j = k
			if f := lit(s, j, '.'); f > 0 {
				if f = digits(s, f, 1, len(s)); f > 0 {
					j = f
				}
			}
		}
	}
	return j
}

func matchIP(s string, i int) int {
	j := i
	for g := range 4 {
		if g > 0 {
			if j = lit(s, j, '.'); j < 0 {
				return -1
			}
		}
		if j = digits(s, j, 1, 3); j < 0 {
			return -1
		}
	}
	if !atBoundary(s, j) && !(j < len(s) && s[j] == ':') {
		return -1
	}
	if k := lit(s, j, ':'); k > 0 {
		if p := digits(s, k, 1, len(s)); p > 0 && atBoundary(s, p) {
			return p
		}
	}
	if atBoundary(s, j) {
		return j
	}
	return -1
}

// isHexWord reports whether w is 0x and hex digits, or hex digits with at
// least one digit and one letter.
func isHexWord(w string) bool {
	if len(w) > 2 && w[0] == '0' && w[1]|0x20 == 'x' {
		for k := 2; k < len(w); k++ {
			if !isHex(w[k]) {
				return false
			}
		}
		return true
	}
	var digit, letter bool
	for k := 0; k < len(w); k++ {
		switch c := w[k]; {
		case isDigit(c):
			digit = true
		case isHex(c):
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

// Fingerprint identifies an error: the same agent, reported type, error
// code, fault code, query and normalized message give the same
// fingerprint. It begins with FingerprintVersion.
func Fingerprint(r *Report) string {
	faultCode := ""
	if r.Data.Fault != nil {
		faultCode = string(r.Data.Fault.Code)
	}
	var buf [256]byte // the parts, each followed by a zero byte
	b := buf[:0]
	for _, part := range [...]string{FingerprintVersion, r.AgentID, string(r.Data.ErrorType), r.Data.ErrorCode,
		faultCode, r.Data.QueryID} {
		b = append(append(b, part...), 0)
	}
	b = append(appendNormalized(b, r.Data.Message), 0)
	sum := sha256.Sum256(b)
	var out [len(FingerprintVersion) + 1 + 2*sha256.Size]byte
	n := copy(out[:], FingerprintVersion+":")
	hex.Encode(out[n:], sum[:])
	return string(out[:])
}

// ErrorID is the error_id of a fingerprint: identical errors get the same.
func ErrorID(fingerprint string) string {
	_, sum, _ := strings.Cut(fingerprint, ":")
	return "err_" + sum[:16]
}

// deliveryTimeLayout is the time's layout in a delivery key: UTC, fixed
// width, nanoseconds, so that the keys' byte order is their times' order
// (for years 0000 to 9999, those a report's JSON timestamp can hold).
const deliveryTimeLayout = "20060102T150405.000000000Z"

// deliveryKey identifies one delivery of a report: the same error reported
// at the same moment is a duplicate (a pipeline retrying its POST), while a
// later report of the same error is a new attempt.
func deliveryKey(fingerprint string, at time.Time) string {
	var buf [128]byte
	b := append(at.UTC().AppendFormat(buf[:0], deliveryTimeLayout), '/')
	return string(append(b, fingerprint...))
}

// DeliveryKey identifies one delivery of a report (its fingerprint at its
// timestamp): the key under which Deliveries keeps the feedback, and under
// which a service stores the occurrence. It is the report's time in UTC,
// fixed width with nanoseconds, then "/" and its fingerprint, e.g.
// "20250808T122005.000000000Z/v1:3f9a…" (94 bytes).
//
// The time comes first so that keys sort by time: reports arrive roughly
// in their timestamps' order, and a store indexing its deliveries by key
// inserts each new one at the end of the index (its right-most leaf,
// written once for a commit's reports) instead of at a random place (a
// leaf of its own per report). The key was formerly the fingerprint, "@"
// and the time in RFC 3339 with nanoseconds (trailing zeros dropped); the
// SQLite and PostgreSQL stores rewrite the keys they hold to this form
// when they migrate (SQLite migration 0023, PostgreSQL 0024), so that a
// report delivered before the upgrade is still a repeat after it. A State
// of another kind keeping keys across an upgrade holds the old form: a
// report delivered before and again after is a new delivery to it.
func DeliveryKey(r *Report) string { return deliveryKey(Fingerprint(r), r.Timestamp) }
