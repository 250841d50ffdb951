package jsonscan

import (
	"encoding/json"
	"unicode/utf8"
)

// SkipSpace returns the index of the first byte at or after i that is
// not JSON white space.
func SkipSpace[T ~string | ~[]byte](data T, i int) int {
	for i < len(data) && (data[i] == ' ' || data[i] == '\t' || data[i] == '\n' || data[i] == '\r') {
		i++
	}
	return i
}

// StringEnd returns the index after the string that opens at i.
func StringEnd[T ~string | ~[]byte](data T, i int) int {
	for i++; i < len(data); i++ {
		switch data[i] {
		case '\\':
			i++
		case '"':
			return i + 1
		}
	}
	return i
}

// ValueEnd returns the index after the valid value that begins at i.
func ValueEnd[T ~string | ~[]byte](data T, i int) int {
	switch data[i] {
	case '"':
		return StringEnd(data, i)
	case '{', '[':
		depth := 0
		for ; i < len(data); i++ {
			switch data[i] {
			case '"':
				i = StringEnd(data, i) - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
		}
		return i
	}
	for i < len(data) {
		switch data[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// EachMember calls do with each member of a valid JSON object, in
// document order: its name, decoded, and its value without the space
// around it (a slice of data whose capacity ends with it).
func EachMember(data []byte, do func(name string, val []byte)) {
	i := SkipSpace(data, 0) + 1 // past '{'
	for {
		i = SkipSpace(data, i)
		if data[i] == '}' {
			return
		}
		end := StringEnd(data, i)
		name, _ := String(data[i:end])              // a valid document's: it decodes
		i = SkipSpace(data, SkipSpace(data, end)+1) // past ':'
		vend := ValueEnd(data, i)
		do(name, data[i:vend:vend])
		i = SkipSpace(data, vend)
		if data[i] == ',' {
			i++
		}
	}
}

// EachItem calls do with each item of a valid JSON array, in order.
func EachItem(data []byte, do func(item []byte)) {
	i := SkipSpace(data, SkipSpace(data, 0)+1) // past '['
	if data[i] == ']' {
		return
	}
	for {
		end := ValueEnd(data, i)
		do(data[i:end:end])
		i = SkipSpace(data, end)
		if data[i] == ']' {
			return
		}
		i = SkipSpace(data, i+1) // past ','
	}
}

// Plain returns the text of a JSON string without escapes, control
// characters or invalid UTF-8, which is its bytes as they are, without
// the cost of a decoder; ok is false for any other string, which String
// hands to encoding/json.
func Plain(raw []byte) (string, bool) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", false
	}
	body := raw[1 : len(raw)-1]
	for _, c := range body {
		if c == '\\' || c == '"' || c < 0x20 {
			return "", false
		}
	}
	if !utf8.Valid(body) {
		return "", false
	}
	return string(body), true
}

// String decodes a JSON string: its bytes when Plain, else through
// encoding/json.
func String(raw []byte) (string, error) {
	if s, ok := Plain(raw); ok {
		return s, nil
	}
	var s string
	err := json.Unmarshal(raw, &s)
	return s, err
}
