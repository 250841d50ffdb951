package textclass

import (
	"unicode"
	"unicode/utf8"
)

// The placeholders that stand for the variable parts of a message.
const (
	placeholderNum  = "<num>"  // a number: 42, 1.5, 2,400,000, 10.0.0.1
	placeholderDate = "<date>" // a date or timestamp: 2024-03-01, 2025-08-08T12:01:00Z
	placeholderUUID = "<uuid>" // 8-4-4-4-12 hexadecimal digits
	placeholderHex  = "<hex>"  // a hash or id of 8 or more hex digits mixing digits and letters
	placeholderID   = "<id>"   // a quoted identifier: 'product_id', "pie", `orders.amount`
)

// MaxTextBytes is how much of a text Tokenize and Predict read: the rest
// of a longer text (a stack dump, say) is ignored, which bounds the cost
// of a prediction.
const MaxTextBytes = 64 << 10

// maxQuotedID is the longest quoted identifier, in bytes, that becomes
// placeholderID; longer quoted text is tokenized as it stands.
const maxQuotedID = 64

// Tokenize returns the normalized word tokens of text, the unigrams the
// model counts (it adds the bigrams of consecutive words itself):
//
//   - words are lowercased and split at snake_case, kebab-case, dotted and
//     camelCase boundaries and between letters and digits ("totalRevenue" →
//     total revenue); one-letter words are dropped; an apostrophe inside a
//     word is removed ("couldn't" → couldnt);
//   - numbers become <num>, dates and timestamps <date>, UUIDs <uuid>, long
//     hexadecimal ids <hex>, and quoted identifiers ('product_id', "pie")
//     <id>;
//   - an error code — a word with no lower-case letter that has an
//     underscore (DB_TIMEOUT), or starts with a capital and has a digit
//     (ORA-01652), or is a SQLSTATE (42P01) — is kept whole and as written,
//     followed by its lower-case parts (db, timeout); quantities such as
//     48M are not codes.
//
// Anything else (punctuation, symbols, invalid UTF-8) separates tokens.
// Only the first MaxTextBytes of text are read.
func Tokenize(text string) []string {
	buf, spans := appendTokens(nil, nil, text)
	out := make([]string, len(spans))
	for i, sp := range spans {
		out[i] = string(buf[sp.start:sp.end])
	}
	return out
}

// span is one token or feature, buf[start:end] of the buffer it was
// appended to; code marks an error code.
type span struct {
	start, end int32
	code       bool
}

// appendFeatures appends the features of text to buf and spans: its
// tokens, then the bigram "previous word" (a space between) of each pair
// of consecutive word tokens; error codes take no part in bigrams.
func appendFeatures(buf []byte, spans []span, text string) ([]byte, []span) {
	first := len(spans)
	buf, spans = appendTokens(buf, spans, text)
	prev := -1
	for i, n := first, len(spans); i < n; i++ {
		if spans[i].code {
			continue
		}
		if prev >= 0 {
			p, t := spans[prev], spans[i]
			start := len(buf)
			buf = append(buf, buf[p.start:p.end]...)
			buf = append(buf, ' ')
			buf = append(buf, buf[t.start:t.end]...)
			spans = append(spans, span{int32(start), int32(len(buf)), false})
		}
		prev = i
	}
	return buf, spans
}

// appendTokens appends the tokens of the first MaxTextBytes of text to buf
// and their spans to spans.
func appendTokens(buf []byte, spans []span, text string) ([]byte, []span) {
	if len(text) > MaxTextBytes {
		text = text[:MaxTextBytes]
	}
	for i := 0; i < len(text); {
		r, size := decodeRune(text[i:])
		if closer, ok := quoteCloser(r); ok && !wordBefore(text, i) {
			if n := quotedID(text[i+size:], closer); n > 0 {
				buf, spans = appendToken(buf, spans, placeholderID, false)
				i += size + n
				continue
			}
		}
		if !isWordRune(r) {
			i += size
			continue
		}
		end := runEnd(text, i)
		buf, spans = appendRun(buf, spans, text[i:end])
		i = end
	}
	return buf, spans
}

// decodeRune is utf8.DecodeRuneInString with a fast path for ASCII.
func decodeRune(s string) (rune, int) {
	if len(s) > 0 && s[0] < utf8.RuneSelf {
		return rune(s[0]), 1
	}
	return utf8.DecodeRuneInString(s)
}

// appendToken appends tok as it is.
func appendToken(buf []byte, spans []span, tok string, code bool) ([]byte, []span) {
	start := len(buf)
	buf = append(buf, tok...)
	return buf, append(spans, span{int32(start), int32(len(buf)), code})
}

// quoteCloser returns the quote that closes r, if r opens a quotation.
func quoteCloser(r rune) (rune, bool) {
	switch r {
	case '"', '\'', '`':
		return r, true
	case '‘':
		return '’', true
	case '“':
		return '”', true
	case '«':
		return '»', true
	}
	return 0, false
}

// wordBefore reports whether the rune before text[i] is part of a word, as
// in the apostrophe of "user's", which opens no quotation.
func wordBefore(text string, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRuneInString(text[:i])
	return isWordRune(r)
}

// quotedID returns the length of an identifier and its closing quote at the
// start of s (the text after an opening quote), or 0 when s does not start
// with one: the identifier starts with a letter or an underscore, has no
// space, quote or control character, and is at most maxQuotedID bytes; the
// closing quote is not followed by a word character.
func quotedID(s string, closer rune) int {
	for j, r := range s {
		if j > maxQuotedID {
			return 0
		}
		if r == closer {
			if j == 0 {
				return 0
			}
			k := j + utf8.RuneLen(r)
			if next, _ := utf8.DecodeRuneInString(s[k:]); k < len(s) && isWordRune(next) {
				return 0
			}
			return k
		}
		if j == 0 && !unicode.IsLetter(r) && r != '_' {
			return 0
		}
		if r == utf8.RuneError || unicode.IsSpace(r) || unicode.IsControl(r) {
			return 0
		}
		if _, ok := quoteCloser(r); ok || r == '’' || r == '”' || r == '»' {
			return 0
		}
	}
	return 0
}

// asciiWord marks the ASCII letters, digits and the underscore.
var asciiWord = func() (t [utf8.RuneSelf]bool) {
	for c := range t {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_'
	}
	return t
}()

// isWordRune reports whether r is a letter, a digit or an underscore.
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r >= 0 && asciiWord[r]
	}
	return r != utf8.RuneError && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// isDigit reports whether b is an ASCII digit.
func isDigit(b byte) bool { return '0' <= b && b <= '9' }

// runEnd returns the end of the run of word characters starting at
// text[start]. A run goes on through a connector between two word
// characters: '-' and '.' anywhere (ORA-01652, orders.amount, 1.5), an
// apostrophe between letters (couldn't), and ':', '/' and ',' between
// digits (12:01, 31/12/2024, 2,400,000).
func runEnd(text string, start int) int {
	i := start
	for i < len(text) {
		if c := text[i]; c < utf8.RuneSelf && asciiWord[c] {
			i++
			continue
		}
		r, size := decodeRune(text[i:])
		if isWordRune(r) {
			i += size
			continue
		}
		next, nsize := decodeRune(text[i+size:])
		if i+size >= len(text) || nsize == 0 || !isWordRune(next) {
			return i
		}
		prev, _ := utf8.DecodeLastRuneInString(text[:i])
		switch {
		case r == '-' || r == '.':
		case (r == '\'' || r == '’') && unicode.IsLetter(prev) && unicode.IsLetter(next):
		case (r == ':' || r == '/' || r == ',') && prev < utf8.RuneSelf && isDigit(byte(prev)) &&
			next < utf8.RuneSelf && isDigit(byte(next)):
		default:
			return i
		}
		i += size
	}
	return i
}

// appendRun appends the tokens of one run of word characters and
// connectors: a placeholder, or the code and its parts, or its parts.
func appendRun(buf []byte, spans []span, run string) ([]byte, []span) {
	switch {
	case isUUID(run):
		return appendToken(buf, spans, placeholderUUID, false)
	case isDate(run):
		return appendToken(buf, spans, placeholderDate, false)
	case isHex(run):
		return appendToken(buf, spans, placeholderHex, false)
	case isCode(run):
		buf, spans = appendToken(buf, spans, run, true)
	}
	// Split at the connectors '_', '-', '.', ':', '/' and ',' into
	// segments (apostrophes are no connector: appendLower drops them), and
	// segments into parts.
	lastNum := false
	segStart := 0
	for i := 0; i <= len(run); i++ {
		if i < len(run) && !isConnector(run[i]) {
			continue
		}
		seg := run[segStart:i]
		segStart = i + 1
		if seg == "" {
			continue
		}
		if isHex(seg) {
			buf, spans = appendToken(buf, spans, placeholderHex, false)
			lastNum = false
			continue
		}
		partStart := 0
		if isASCII(seg) {
			for j := 1; j < len(seg); j++ {
				var next byte
				if j+1 < len(seg) {
					next = seg[j+1]
				}
				if asciiBoundary(seg[j-1], seg[j], next) {
					buf, spans, lastNum = appendPart(buf, spans, seg[partStart:j], lastNum)
					partStart = j
				}
			}
			buf, spans, lastNum = appendPart(buf, spans, seg[partStart:], lastNum)
			continue
		}
		prev, j := decodeRune(seg)
		r, size := decodeRune(seg[j:])
		for j < len(seg) {
			next, nextSize := decodeRune(seg[j+size:])
			if boundary(prev, r, next) {
				buf, spans, lastNum = appendPart(buf, spans, seg[partStart:j], lastNum)
				partStart = j
			}
			prev, r = r, next
			j += size
			size = nextSize
		}
		buf, spans, lastNum = appendPart(buf, spans, seg[partStart:], lastNum)
	}
	return buf, spans
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func isConnector(c byte) bool {
	switch c {
	case '_', '-', '.', ':', '/', ',':
		return true
	}
	return false
}

// appendPart appends one part of a run: <num> for digits, unless the part
// before was a number too (1.5 and 10.0.0.1 are one number); nothing for a
// single letter; otherwise the part in lower case. It returns whether the
// last part appended is a number.
func appendPart(buf []byte, spans []span, part string, lastNum bool) ([]byte, []span, bool) {
	switch {
	case part == "":
		return buf, spans, lastNum
	case isDigit(part[0]):
		if !lastNum {
			buf, spans = appendToken(buf, spans, placeholderNum, false)
		}
		return buf, spans, true
	case utf8.RuneCountInString(part)-apostrophes(part) < 2:
		return buf, spans, lastNum
	}
	start := len(buf)
	buf = appendLower(buf, part)
	return buf, append(spans, span{int32(start), int32(len(buf)), false}), false
}

// apostrophes counts the apostrophes in s.
func apostrophes(s string) int {
	n := 0
	for _, r := range s {
		if r == '\'' || r == '’' {
			n++
		}
	}
	return n
}

// boundary reports whether a part ends between prev and r; next is the
// rune after r (utf8.RuneError at the end).
func boundary(prev, r, next rune) bool {
	if prev < utf8.RuneSelf && r < utf8.RuneSelf && next < utf8.RuneSelf {
		return asciiBoundary(byte(prev), byte(r), byte(next))
	}
	pd, rd := prev < utf8.RuneSelf && isDigit(byte(prev)), r < utf8.RuneSelf && isDigit(byte(r))
	if pd != rd {
		return true
	}
	if pd {
		return false
	}
	if unicode.IsLower(prev) && unicode.IsUpper(r) {
		return true
	}
	if unicode.IsUpper(prev) && unicode.IsUpper(r) {
		return unicode.IsLower(next)
	}
	return false
}

// asciiBoundary is boundary for ASCII.
func asciiBoundary(prev, r, next byte) bool {
	if isDigit(prev) != isDigit(r) {
		return true
	}
	upper := func(c byte) bool { return 'A' <= c && c <= 'Z' }
	lower := func(c byte) bool { return 'a' <= c && c <= 'z' }
	return lower(prev) && upper(r) || upper(prev) && upper(r) && lower(next)
}

// appendLower appends s to dst in lower case, without apostrophes.
func appendLower(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			if c != '\'' {
				dst = append(dst, c)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != '’' {
			dst = utf8.AppendRune(dst, unicode.ToLower(r))
		}
		i += size
	}
	return dst
}

// isCode reports whether run is an error code: no lower-case letter, and
// either an upper-case letter and an underscore (DB_TIMEOUT, 3 characters
// at least), or an upper-case letter first and a digit (ORA-01652,
// SQL0911N, E1001), or digits, capitals and digits (the SQLSTATE 42P01).
// Quantities such as 48M or 10GB are not codes.
func isCode(run string) bool {
	if len(run) < 3 {
		return false
	}
	upper, underscore, digit := false, false, false
	for _, r := range run {
		switch {
		case 'A' <= r && r <= 'Z':
			upper = true
		case r == '_':
			underscore = true
		case r < utf8.RuneSelf && isDigit(byte(r)):
			digit = true
		case unicode.IsLower(r):
			return false
		}
	}
	switch {
	case !upper:
		return false
	case underscore:
		return true
	case 'A' <= run[0] && run[0] <= 'Z':
		return digit
	}
	return sqlState(run)
}

// sqlState reports whether s is digits, capitals, then digits (42P01).
func sqlState(s string) bool {
	i := 0
	for i < len(s) && isDigit(s[i]) {
		i++
	}
	j := i
	for j < len(s) && 'A' <= s[j] && s[j] <= 'Z' {
		j++
	}
	k := j
	for k < len(s) && isDigit(s[k]) {
		k++
	}
	return i > 0 && j > i && k > j && k == len(s)
}

// isUUID reports whether run is a UUID: 8-4-4-4-12 hexadecimal digits.
func isUUID(run string) bool {
	if len(run) != 36 {
		return false
	}
	for i := 0; i < len(run); i++ {
		if i == 8 || i == 13 || i == 18 || i == 23 {
			if run[i] != '-' {
				return false
			}
		} else if !isHexDigit(run[i]) {
			return false
		}
	}
	return true
}

// isHex reports whether s is a hexadecimal id: at least 8 hex digits with
// both a decimal digit and a letter among them.
func isHex(s string) bool {
	if len(s) < 8 {
		return false
	}
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case isDigit(c):
			digit = true
		case 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F':
			letter = true
		default:
			return false
		}
	}
	return digit && letter
}

func isHexDigit(c byte) bool {
	return isDigit(c) || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

// isDate reports whether run is a date, YYYY-MM-DD, alone or followed by a
// time (2025-08-08T12:01:00Z, 2025-08-08T12:01:00.5+02:00).
func isDate(run string) bool {
	if len(run) < 10 {
		return false
	}
	for i := 0; i < 10; i++ {
		if i == 4 || i == 7 {
			if run[i] != '-' {
				return false
			}
		} else if !isDigit(run[i]) {
			return false
		}
	}
	if len(run) == 10 {
		return true
	}
	if run[10] != 'T' && run[10] != 't' {
		return false
	}
	for i := 11; i < len(run); i++ {
		switch c := run[i]; {
		case isDigit(c), c == ':', c == '.', c == '-', c == 'Z', c == 'z':
		default:
			return false
		}
	}
	return true
}
