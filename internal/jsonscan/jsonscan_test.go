package jsonscan

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzEachMember holds EachMember to encoding/json: for every object json
// accepts, the members in order with their values as json.RawMessage
// compacted the same way.
func FuzzEachMember(f *testing.F) {
	for _, s := range []string{`{}`, ` { "a" : 1 , "b":[1,{"c":"}"}] } `, `{"\u0041\"":"x\\"}`, `{"a":{},"a":null}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want map[string]json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got := map[string]json.RawMessage{}
		EachMember(data, func(name string, val []byte) { got[name] = json.RawMessage(val) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: EachMember %q, encoding/json %q", data, got, want)
		}
	})
}

// FuzzEachItem holds EachItem to encoding/json for every array it accepts.
func FuzzEachItem(f *testing.F) {
	for _, s := range []string{`[]`, ` [ 1 , "]" , [ ] , {"a":[1]} ] `, `[null,true,-1.5e3]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var want []json.RawMessage
		if json.Unmarshal(data, &want) != nil || want == nil {
			return
		}
		got := []json.RawMessage{}
		EachItem(data, func(item []byte) { got = append(got, item) })
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: EachItem %q, encoding/json %q", data, got, want)
		}
	})
}
