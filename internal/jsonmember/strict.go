package jsonmember

import (
	"encoding/json"
	"errors"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/triage-go/triage/internal/jsonscan"
)

// Strict decodes JSON documents into a T, a struct, strictly: what
// encoding/json does, and also refuses, each as a field error naming the
// member by its path ("fields[1]", "synonyms.revenue"; "(root)" for the
// document itself):
//
//   - a string that is not Unicode text (TextErrors);
//   - a member T does not have, at any depth ("is not a member of this
//     document"), matching names exactly (encoding/json matches them
//     case-insensitively and names only the first unknown one, without
//     its path);
//   - a value of the wrong JSON type ("must be a string, got number"),
//     with the path down to the array item or map entry that is wrong
//     (encoding/json stops at the struct field).
//
// T's members and their types come from the JSON Schema that
// github.com/google/jsonschema-go infers for T (jsonschema.For): a struct's
// schema lists its members and refuses others. null is accepted wherever
// encoding/json accepts it (it leaves the zero value). Duplicate members
// are not refused: the last wins, as in encoding/json. What the schema does
// not say (a time that does not parse, an integer given 1.5) is
// encoding/json's error, on the member it names.
//
// The caller bounds the document's size. A Strict is safe for concurrent
// use.
type Strict[T any] struct {
	schema *jsonschema.Schema
}

// NewStrict returns the Strict decoder of T. It panics if T has no JSON
// Schema (a channel, a func, a cycle): T is the caller's type, so that is
// a programming error, found by the caller's first test.
func NewStrict[T any]() *Strict[T] {
	s, err := jsonschema.For[T](nil)
	if err != nil {
		panic("jsonmember: NewStrict: " + err.Error())
	}
	return &Strict[T]{schema: s}
}

// Decode decodes data, one JSON document, into a T. It fails with a
// *ValidationError listing every member at fault (up to MaxFieldErrors),
// whose Err is the *json.SyntaxError when data is not JSON.
func (s *Strict[T]) Decode(data []byte) (T, error) {
	var v T
	if !json.Valid(data) {
		return v, Decoder{}.syntaxError(data, "")
	}
	var errs Errors
	for _, f := range TextErrors(data) {
		errs.Add(f.Field, "%s", f.Message)
	}
	if errs.Len() == 0 {
		check(s.schema, data, "", &errs)
	}
	if errs.Len() == 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			field, msg := "(root)", strings.TrimPrefix(err.Error(), "json: ")
			if te, ok := errors.AsType[*json.UnmarshalTypeError](err); ok {
				field, msg = te.Field, "must be "+goKind(te.Type.Kind())+", got "+te.Value
			}
			errs.Add(field, "%s", msg)
		}
	}
	if err := errs.Err("", "", nil); err != nil {
		var zero T
		return zero, err
	}
	return v, nil
}

// check records the members of the valid value raw, at path, that the
// schema s refuses: unknown members and wrong types.
func check(s *jsonschema.Schema, raw []byte, path string, errs *Errors) {
	k := Kind(raw)
	if s == nil || k == "null" {
		return
	}
	if want, ok := typeOf(s, k); !ok {
		errs.Add(cut(path), "must be %s, got %s", article(want), k)
		return
	}
	switch k {
	case "object":
		jsonscan.EachMember(raw, func(name string, val []byte) {
			p := Path(path, name)
			if sub, ok := s.Properties[name]; ok {
				check(sub, val, p, errs)
				return
			}
			switch add := s.AdditionalProperties; {
			case add == nil:
			case add.Not != nil && reflect.ValueOf(*add.Not).IsZero(): // false: no other member
				errs.Add(cut(p), "is not a member of this document")
			default:
				check(add, val, p, errs)
			}
		})
	case "array":
		if s.Items == nil {
			return
		}
		i := 0
		jsonscan.EachItem(raw, func(item []byte) {
			check(s.Items, item, path+"["+itoa(i)+"]", errs)
			i++
		})
	}
}

// typeOf reports whether a value of JSON kind k has a type the schema
// allows (any, when it names none), and else the first type it names.
func typeOf(s *jsonschema.Schema, k string) (string, bool) {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	first := ""
	for _, t := range types {
		if t == k || t == "integer" && k == "number" {
			return "", true
		}
		if first == "" && t != "null" {
			first = t
		}
	}
	return first, first == ""
}

// article names a JSON Schema type as a message says it.
func article(t string) string {
	switch t {
	case "object", "array":
		return "an " + t
	case "integer", "number":
		return "a number"
	}
	return "a " + t
}

// goKind names the JSON type of a Go kind as a message says it.
func goKind(k reflect.Kind) string {
	switch k {
	case reflect.Slice, reflect.Array:
		return "an array"
	case reflect.Map, reflect.Struct, reflect.Pointer:
		return "an object"
	case reflect.String:
		return "a string"
	case reflect.Bool:
		return "a boolean"
	}
	return "a number"
}
