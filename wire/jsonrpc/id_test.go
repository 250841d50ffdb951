package jsonrpc_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/triage-go/triage/wire/jsonrpc"
)

func TestExactID(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		id   string
		want bool
	}{
		{"", true}, {"null", true}, {`"a string"`, true}, {`""`, true}, {"0", true}, {"42", true}, {"-42", true},
		{"9007199254740991", true}, {"-9007199254740991", true},
		{"9007199254740992", false}, {"-9007199254740992", false}, {"99999999999999999999", false},
		{"1.5", false}, {"1.0", false}, {"1e3", false}, {"1.5e300", false}, {"-0", false}, {"01", false},
		{"true", false}, {"{}", false}, {"[1]", false},
	} {
		if got := jsonrpc.ExactID(json.RawMessage(c.id)); got != c.want {
			t.Errorf("ExactID(%s) = %v, want %v", c.id, got, c.want)
		}
	}
}

// A request id a peer reading numbers as float64 would answer altered is
// refused, never answered with another id.
func ExampleExactID() {
	for _, id := range []string{`"req-1"`, "7", "1.5e300"} {
		if !jsonrpc.ExactID(json.RawMessage(id)) {
			out, _ := json.Marshal(jsonrpc.NewErrorResponse(nil, jsonrpc.NewInvalidRequest(jsonrpc.IDRule)))
			fmt.Printf("%s: %s\n", id, out)
			continue
		}
		fmt.Printf("%s: answered as it came\n", id)
	}
	// Output:
	// "req-1": answered as it came
	// 7: answered as it came
	// 1.5e300: {"jsonrpc":"2.0","id":null,"error":{"code":-32600,"message":"Invalid Request: the id must be a string, null or an integer of at most 2^53-1 written without a fraction or an exponent","data":{"type":"PROTOCOL","code":"INVALID_REQUEST","retryable":false,"sessionValid":true,"httpStatus":400,"domain":"client","details":{}}}}
}
