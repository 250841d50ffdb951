package negotiate

import (
	"mime"
	"strings"
)

// Best returns the offer (a media type, "type/subtype") the Accept header
// values prefer, or "" when the request accepts none of them. An absent or
// empty header accepts anything: Best returns the first offer.
//
// Each offer's quality is the q of the most specific media range that
// matches it — the type itself, then "type/*", then "*/*"; the first of
// equally specific ranges — so that "text/*;q=0, text/html" takes HTML and
// refuses text/plain. q=0 refuses. The offer with the highest quality
// above 0 wins; of equal qualities the first offer, the server's
// preference. Types and parameter names are case-insensitive (RFC 9110);
// parameters other than q are not matched (an offer is served with the
// parameters its handler writes). Elements are separated by commas outside
// quoted strings. An element that does not parse, or whose
// q is not a qvalue (0 to 1, at most three decimals), is left out.
func Best(header []string, offers ...string) string {
	ranges := parse(header, true)
	if len(ranges) == 0 && empty(header) {
		if len(offers) == 0 {
			return ""
		}
		return offers[0]
	}
	best, bestQ := "", 0
	for _, offer := range offers {
		if q := quality(ranges, strings.ToLower(offer), true); q > bestQ {
			best, bestQ = offer, q
		}
	}
	return best
}

// Encoding reports whether the Accept-Encoding header values take the
// content coding (gzip, say), by the same rules as Best: the coding's own
// element, else "*", decides its q, and q=0 refuses. Codings are
// case-insensitive. An absent header takes no coding here (a server may
// send identity, which is always acceptable unless refused).
func Encoding(header []string, coding string) bool {
	return quality(parse(header, false), strings.ToLower(coding), false) > 0
}

// Coding returns the content coding of offers (gzip, br) the
// Accept-Encoding header values prefer, or "" when they take none of them
// (the answer is then sent as it is, identity). Each coding's q is read as
// Encoding reads it; the highest above 0 wins, and of equal qualities the
// first offer, the server's preference (its smallest, say). An absent or
// empty header takes none here: a server may send identity, always
// acceptable unless refused (RFC 9110, section 12.5.3), and "identity;q=0"
// with no offer taken leaves the server nothing better than identity
// either, so "" is the answer then too.
func Coding(header []string, offers ...string) string {
	elements := parse(header, false)
	best, bestQ := "", 0
	for _, offer := range offers {
		if q := quality(elements, strings.ToLower(offer), false); q > bestQ {
			best, bestQ = offer, q
		}
	}
	return best
}

// element is one element of an Accept or Accept-Encoding header: a media
// range (or coding), lower case, and its q in thousandths.
type element struct {
	name string
	q    int
}

// parse reads the header's elements, leaving out those that do not parse.
// media says they are media ranges (type/subtype), not codings.
func parse(header []string, media bool) []element {
	var out []element
	for _, v := range header {
		for _, part := range split(v) {
			part = strings.TrimSpace(part)
			if part == "" {
				continue
			}
			name, params, err := mime.ParseMediaType(part)
			if err != nil || strings.Contains(name, "/") != media {
				continue
			}
			if media && strings.HasPrefix(name, "*/") && name != "*/*" {
				continue // "*/json" is not a range
			}
			q := 1000
			if s, ok := params["q"]; ok {
				if q, ok = qvalue(s); !ok {
					continue
				}
			}
			out = append(out, element{name: name, q: q})
		}
	}
	return out
}

// split cuts a header value at the commas outside quoted strings
// (RFC 9110's quoted-string, with its backslash escapes).
func split(v string) []string {
	var parts []string
	start, quoted, escaped := 0, false, false
	for i := 0; i < len(v); i++ {
		switch c := v[i]; {
		case escaped:
			escaped = false
		case quoted && c == '\\':
			escaped = true
		case c == '"':
			quoted = !quoted
		case c == ',' && !quoted:
			parts = append(parts, v[start:i])
			start = i + 1
		}
	}
	return append(parts, v[start:])
}

// empty reports whether the header has no element at all.
func empty(header []string) bool {
	for _, v := range header {
		if strings.Trim(v, " \t,") != "" {
			return false
		}
	}
	return true
}

// qvalue reads RFC 9110's qvalue, ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "."
// 0*3("0") ] ), in thousandths.
func qvalue(s string) (int, bool) {
	if s == "" || (s[0] != '0' && s[0] != '1') {
		return 0, false
	}
	whole := int(s[0]-'0') * 1000
	rest := s[1:]
	if rest == "" {
		return whole, true
	}
	if rest[0] != '.' || len(rest) > 4 {
		return 0, false
	}
	frac, scale := 0, 100
	for _, c := range rest[1:] {
		if c < '0' || c > '9' {
			return 0, false
		}
		frac += int(c-'0') * scale
		scale /= 10
	}
	if whole == 1000 && frac != 0 {
		return 0, false
	}
	return whole + frac, true
}

// quality is the q of name (a media type or a coding) under the most
// specific element that matches it, 0 when none does.
func quality(elements []element, name string, media bool) int {
	typ, _, _ := strings.Cut(name, "/")
	best, q := 0, 0
	for _, e := range elements {
		spec := 0
		switch {
		case e.name == name:
			spec = 3
		case media && e.name == typ+"/*":
			spec = 2
		case e.name == "*/*" || (!media && e.name == "*"):
			spec = 1
		}
		if spec > best {
			best, q = spec, e.q
		}
	}
	return q
}
