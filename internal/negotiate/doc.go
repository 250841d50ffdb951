// Package negotiate is the one reading of HTTP's Accept and
// Accept-Encoding headers (RFC 9110, section 12.5) the module's handlers
// share: which of the media types a handler can write a request prefers
// (Best), whether it takes a content coding (Encoding), and which of the
// codings a handler can write it prefers (Coding), with one rule for
// q-values everywhere — the most specific matching element decides, q=0
// refuses, a malformed q leaves its element out.
//
// It is small on purpose: github.com/munnerz/goautoneg, already in the
// module graph, does not honour q=0 (its Negotiate returns a refused
// type), matches case-sensitively, reads only spaces as whitespace, and
// cannot read Accept-Encoding.
package negotiate
