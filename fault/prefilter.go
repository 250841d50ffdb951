package fault

import (
	"regexp"
	"regexp/syntax"
	"strings"
)

// A prefilter is a necessary condition for a regular expression to match:
// one of its literals appears in the text (both lowered). Go's regexp runs
// the large alternations of the text rules in tens of microseconds; a few
// strings.Contains calls rule most of them out first.
type prefilter struct {
	lits []string // lower-case; nil means the expression cannot be filtered
}

func newPrefilter(re *regexp.Regexp) prefilter {
	parsed, err := syntax.Parse(re.String(), syntax.Perl)
	if err != nil {
		return prefilter{}
	}
	lits := required(parsed)
	for _, l := range lits {
		if len(l) < 2 || !isASCII(l) {
			return prefilter{} // too weak to be worth it, or not comparable
		}
	}
	return prefilter{lits: lits}
}

// mayMatch reports whether the expression may match text whose lower-case
// form is lower.
func (p prefilter) mayMatch(lower string) bool {
	if p.lits == nil {
		return true
	}
	for _, l := range p.lits {
		if strings.Contains(lower, l) {
			return true
		}
	}
	return false
}

// required returns literals one of which every match of re contains, lower
// cased, or nil when no such set can be found.
func required(re *syntax.Regexp) []string {
	switch re.Op {
	case syntax.OpLiteral:
		return []string{strings.ToLower(string(re.Rune))}
	case syntax.OpCapture, syntax.OpPlus:
		return required(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return required(re.Sub[0])
		}
	case syntax.OpAlternate:
		// A match matches one branch: every branch must be filterable.
		var all []string
		for _, sub := range re.Sub {
			l := required(sub)
			if l == nil {
				return nil
			}
			all = append(all, l...)
		}
		return all
	case syntax.OpConcat:
		// A match contains every part: the part with the longest shortest
		// literal filters best.
		var best []string
		for _, sub := range re.Sub {
			if l := required(sub); l != nil && shortest(l) > shortest(best) {
				best = l
			}
		}
		return best
	}
	return nil
}

func shortest(lits []string) int {
	if len(lits) == 0 {
		return 0
	}
	n := len(lits[0])
	for _, l := range lits[1:] {
		n = min(n, len(l))
	}
	return n
}

// hasStatusLike reports whether s holds a three-digit run starting with 4
// or 5, which statusInText needs.
func hasStatusLike(s string) bool {
	for i := 0; i+3 <= len(s); i++ {
		if (s[i] == '4' || s[i] == '5') && isDigit(s[i+1]) && isDigit(s[i+2]) {
			return true
		}
	}
	return false
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

func isDigit(c byte) bool { return '0' <= c && c <= '9' }
