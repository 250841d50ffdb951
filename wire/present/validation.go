package present

import "github.com/triage-go/triage/internal/jsonmember"

// ValidationError reports why a packet, an event, a user_error or a stream
// error is not valid, whether it was decoded or built: the member at fault
// (in Fields), as a dotted path ("p.data.domain", "severity"; "(root)" for the
// document itself), and the rule it breaks. Its text begins "present: ".
//
// It lists that member as a field error, so fault.From turns it into an
// INVALID_REQUEST fault. It is the module's one validation error
// (internal/jsonmember's), which wire/agui returns too.
type ValidationError = jsonmember.ValidationError

// dec decodes and validates members strictly; its errors name this package.
var dec = jsonmember.Decoder{Package: "present"}
