package render_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/triage-go/triage/internal/tsgen/render"
)

// The TypeScript a code becomes: a member of AGUIErrorCode, and its row in CODES.
func ExampleCodes() {
	var b bytes.Buffer
	if err := render.Codes(&b); err != nil {
		panic(err)
	}
	out := b.String()
	start := strings.Index(out, "  /** A rate limit was exceeded")
	member, _, _ := strings.Cut(out[start:], ",\n")
	fmt.Println(member + ",")
	start = strings.Index(out, "  [AGUIErrorCode.RATE_LIMITED]")
	row, _, _ := strings.Cut(out[start:], "  }),\n")
	fmt.Print(row)
	// Output:
	//   /** A rate limit was exceeded; retry after retry_after. */
	//   RATE_LIMITED: "RATE_LIMITED",
	//   [AGUIErrorCode.RATE_LIMITED]: Object.freeze({
	//     code: AGUIErrorCode.RATE_LIMITED,
	//     httpStatus: 429,
	//     category: "UPSTREAM",
	//     domain: "client",
	//     retryable: true,
	//     sessionValid: true,
	//     jsonrpc: -32002,
	//     type: "/errors/rate-limited",
	//     title: "Rate Limited",
	//     message: "Request rate limit exceeded. Please wait before retrying.",
	//     summary: "A rate limit was exceeded; retry after retry_after.",
}
