package jsonrpc

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/jsonmember/jsonmembertest"
	"github.com/triage-go/triage/internal/testkit/golden"
)

func TestParse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want Error
	}{
		{"Minimal", `{"code":-32601,"message":"Method not found"}`, Error{Code: -32601, Message: "Method not found"}},
		{"EmptyMessage", `{"code":1,"message":""}`, Error{Code: 1}},
		{"IntegralFloatCode", `{"code":-32000.0,"message":"x"}`, Error{Code: -32000, Message: "x"}},
		{"ExponentCode", `{"code":-3.2e4,"message":"x"}`, Error{Code: -32000, Message: "x"}},
		{"NullData", `{"code":1,"message":"x","data":null}`, Error{Code: 1, Message: "x"}},
		{"StringData", `{"code":1,"message":"x","data":"oops"}`, Error{Code: 1, Message: "x", Data: json.RawMessage(`"oops"`)}},
		{"ObjectDataCompacted", `{"code":1,"message":"x","data": { "a" : [1, 2] } }`, Error{Code: 1, Message: "x", Data: json.RawMessage(`{"a":[1,2]}`)}},
		{"UnknownMembersIgnored", `{"code":1,"message":"x","stack":"at foo.js:1:2"}`, Error{Code: 1, Message: "x"}},
		{"Whitespace", " \n{\"code\":2,\"message\":\"y\"}\n", Error{Code: 2, Message: "y"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if got.Code != tt.want.Code || got.Message != tt.want.Message || string(got.Data) != string(tt.want.Data) {
				t.Errorf("Parse = %+v (data %s), want %+v (data %s)", got, got.Data, tt.want, tt.want.Data)
			}
		})
	}
}

func TestParseInvalid(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		field  string
		reason string
	}{
		{"Empty", ``, "", "invalid JSON"},
		{"Truncated", `{"code":1`, "", "invalid JSON"},
		{"TrailingGarbage", `{"code":1,"message":"x"} x`, "", "invalid JSON"},
		{"Array", `[]`, "", "must be an object, got array"},
		{"Null", `null`, "", "must be an object, got null"},
		{"String", `"error"`, "", "must be an object, got string"},
		{"MissingCode", `{"message":"x"}`, "code", "is required"},
		{"CodeString", `{"code":"-32000","message":"x"}`, "code", "must be an integer, got string"},
		{"CodeNull", `{"code":null,"message":"x"}`, "code", "must be an integer, got null"},
		{"CodeFraction", `{"code":1.5,"message":"x"}`, "code", "must be an integer, got 1.5"},
		{"CodeHuge", `{"code":1e300,"message":"x"}`, "code", "out of range"},
		{"CodeOverflow", `{"code":1e400,"message":"x"}`, "code", "out of range"},
		{"MissingMessage", `{"code":1}`, "message", "is required"},
		{"MessageNumber", `{"code":1,"message":3}`, "message", "must be a string, got number"},
		{"MessageNull", `{"code":1,"message":null}`, "message", "must be a string, got null"},
		{"NamesMatchExactly", `{"Code":1,"Message":"x"}`, "code", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, err := Parse([]byte(tt.in))
			if got != nil {
				t.Errorf("Parse = %+v, want nil", got)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}
}

func TestParseResponse(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		in     string
		id     string
		result string
		code   int // of the error; 0 for a result
	}{
		{"StringID", `{"jsonrpc":"2.0","id":"abc","error":{"code":-32002,"message":"x"}}`, `"abc"`, "", -32002},
		{"NumberID", `{"jsonrpc":"2.0","id":42,"error":{"code":-32601,"message":"x"}}`, `42`, "", -32601},
		{"FractionalID", `{"jsonrpc":"2.0","id":1.5,"error":{"code":1,"message":"x"}}`, `1.5`, "", 1},
		{"NullID", `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"Parse error"}}`, `null`, "", -32700},
		{"Result", `{"jsonrpc":"2.0","id":1,"result":{"content":[],"isError":true}}`, `1`, `{"content":[],"isError":true}`, 0},
		{"NullResult", `{"jsonrpc":"2.0","id":1,"result":null}`, `1`, `null`, 0},
		{"MembersInAnyOrder", `{"error":{"message":"x","code":7},"id":"a","jsonrpc":"2.0"}`, `"a"`, "", 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseResponse([]byte(tt.in))
			if err != nil {
				t.Fatal(err)
			}
			if string(r.ID) != tt.id || string(r.Result) != tt.result {
				t.Errorf("id %s result %s, want %s %s", r.ID, r.Result, tt.id, tt.result)
			}
			if (r.Error == nil) != (tt.code == 0) || (r.Error != nil && r.Error.Code != tt.code) {
				t.Errorf("error = %+v, want code %d", r.Error, tt.code)
			}
			// And it goes out again as it came.
			if b := golden.Marshal(t, r); !golden.SameJSON(b, []byte(tt.in)) {
				t.Errorf("re-encoded %s, want %s", b, tt.in)
			}
		})
	}
}

func TestParseResponseInvalid(t *testing.T) {
	t.Parallel()
	const e = `{"code":1,"message":"x"}`
	tests := []struct {
		name   string
		in     string
		field  string
		reason string
	}{
		{"NotJSON", `{"jsonrpc":`, "", "invalid JSON"},
		{"NotObject", `[{"jsonrpc":"2.0"}]`, "", "must be an object, got array"},
		{"MissingVersion", `{"id":1,"error":` + e + `}`, "jsonrpc", "is required"},
		{"WrongVersion", `{"jsonrpc":"1.0","id":1,"error":` + e + `}`, "jsonrpc", `must be "2.0", got "1.0"`},
		{"NumberVersion", `{"jsonrpc":2.0,"id":1,"error":` + e + `}`, "jsonrpc", "must be a string, got number"},
		{"MissingID", `{"jsonrpc":"2.0","error":` + e + `}`, "id", "is required"},
		{"ObjectID", `{"jsonrpc":"2.0","id":{},"error":` + e + `}`, "id", "must be a string, a number or null, got object"},
		{"BoolID", `{"jsonrpc":"2.0","id":true,"error":` + e + `}`, "id", "got boolean"},
		{"Both", `{"jsonrpc":"2.0","id":1,"result":1,"error":` + e + `}`, "", "not both"},
		{"Neither", `{"jsonrpc":"2.0","id":1}`, "", "needs result or error"},
		{"ErrorNotObject", `{"jsonrpc":"2.0","id":1,"error":"boom"}`, "error", "must be an object, got string"},
		{"ErrorNull", `{"jsonrpc":"2.0","id":1,"error":null}`, "error", "must be an object, got null"},
		{"ErrorCode", `{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}`, "error.code", "must be an integer"},
		{"ErrorMessage", `{"jsonrpc":"2.0","id":1,"error":{"code":1}}`, "error.message", "is required"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r, err := ParseResponse([]byte(tt.in))
			if r != nil {
				t.Errorf("ParseResponse = %+v, want nil", r)
			}
			jsonmembertest.WantInvalid(t, err, tt.field, tt.reason)
		})
	}
}

func TestResponseMarshal(t *testing.T) {
	t.Parallel()
	e := &Error{Code: 1, Message: "x"}
	tests := []struct {
		name string
		resp Response
		want string // "" when marshaling must fail
	}{
		{"NilIDIsNull", Response{Error: e}, `{"jsonrpc":"2.0","id":null,"error":{"code":1,"message":"x"}}`},
		{"StringID", Response{ID: json.RawMessage(`"r-1"`), Error: e}, `{"jsonrpc":"2.0","id":"r-1","error":{"code":1,"message":"x"}}`},
		{"NilResultIsNull", Response{ID: json.RawMessage(`3`)}, `{"jsonrpc":"2.0","id":3,"result":null}`},
		{"Result", Response{ID: json.RawMessage(`3`), Result: json.RawMessage(`{"ok":true}`)}, `{"jsonrpc":"2.0","id":3,"result":{"ok":true}}`},
		{"Both", Response{ID: json.RawMessage(`3`), Result: json.RawMessage(`1`), Error: e}, ""},
		{"ObjectID", Response{ID: json.RawMessage(`{}`), Error: e}, ""},
		{"InvalidResult", Response{ID: json.RawMessage(`1`), Result: json.RawMessage(`{`)}, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			b, err := json.Marshal(tt.resp)
			if tt.want == "" {
				if err == nil {
					t.Errorf("Marshal = %s, want an error", b)
				}
				return
			}
			if err != nil || string(b) != tt.want {
				t.Errorf("Marshal = %s, %v; want %s", b, err, tt.want)
			}
			// A pointer marshals the same.
			if b2, _ := json.Marshal(&tt.resp); string(b2) != string(b) {
				t.Errorf("Marshal(&r) = %s", b2)
			}
		})
	}
}

func TestUnmarshalIntoStruct(t *testing.T) {
	t.Parallel()
	// Error and Response decode inside a caller's own struct with the
	// same rules.
	var v struct {
		Resp Response `json:"resp"`
	}
	err := json.Unmarshal([]byte(`{"resp":{"jsonrpc":"2.0","id":1,"error":{"code":"x","message":"m"}}}`), &v)
	if err == nil || !strings.Contains(err.Error(), `member "error.code"`) {
		t.Errorf("Unmarshal error = %v", err)
	}
}
