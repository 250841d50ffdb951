package oneline

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Join returns strings.Join(strings.Fields(s), " "): s's words separated
// by single spaces, without space at either end. It returns s itself when
// s is that already.
func Join(s string) string {
	if Is(s) {
		return s
	}
	return strings.Join(strings.Fields(s), " ")
}

// Is reports whether s is Join(s): no space (as unicode.IsSpace says)
// other than ' ', no two in a row, none at either end. Bytes that are not
// UTF-8 are words to strings.Fields, and to Is.
func Is(s string) bool {
	space := true // a space here would lead the text
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			switch c {
			case ' ':
				if space {
					return false
				}
				space = true
			case '\t', '\n', '\v', '\f', '\r':
				return false
			default:
				space = false
			}
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		if unicode.IsSpace(r) {
			return false
		}
		space = false
		i += n
	}
	return !space || s == ""
}
