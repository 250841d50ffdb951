package jsonmember_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/jsonmember"
)

// A package's Decoder names the package in every error, and the member at
// fault by its dotted path.
func ExampleDecoder() {
	dec := jsonmember.Decoder{Package: "jsonrpc"}
	m, err := dec.Object([]byte(`{"error":{"code":"-32000"}}`), "")
	if err != nil {
		fmt.Println(err)
		return
	}
	e, err := dec.Object(m["error"], "error")
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = dec.Int(e["code"], jsonmember.Path("error", "code"))
	fmt.Println(err)
	_, err = dec.Object([]byte(`{"code":`), "")
	fmt.Println(err)
	// Output:
	// jsonrpc: member "error.code": must be an integer, got string
	// jsonrpc: invalid JSON: unexpected end of JSON input
}

// A decoder that reports every invalid member collects them in an Errors.
func ExampleErrors() {
	var errs jsonmember.Errors
	errs.Add("threadId", "is required")
	errs.Add("messages[0].id", "must be a string, not %s", "a number")
	fmt.Println(errs.Err("agui", "RunAgentInput", nil))
	// Output:
	// agui: invalid RunAgentInput: member "threadId" is required; member "messages[0].id" must be a string, not a number
}

// A Strict decoder refuses members its type does not have and values of
// the wrong type, each by its path.
func ExampleStrict() {
	type schema struct {
		Fields   []string          `json:"fields"`
		Synonyms map[string]string `json:"synonyms"`
	}
	dec := jsonmember.NewStrict[schema]()
	_, err := dec.Decode([]byte(`{"fields":["month",3],"synonyms":{"revenue":"sales"},"owner":"me"}`))
	if ve, ok := err.(*jsonmember.ValidationError); ok {
		for _, f := range ve.FieldErrors() {
			fmt.Println(f.Field, f.Message)
		}
	}
	// Output:
	// fields[1] must be a string, got number
	// owner is not a member of this document
}
