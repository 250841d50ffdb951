package jsonrpc

import (
	"errors"

	sdkjsonrpc "github.com/modelcontextprotocol/go-sdk/jsonrpc"

	"github.com/triage-go/triage/fault"
)

func init() {
	fault.Register(Classify)
}

// WireError returns err as the MCP Go SDK's JSON-RPC error
// (github.com/modelcontextprotocol/go-sdk/jsonrpc), for a handler on that
// SDK that answers with a protocol error rather than an isError result:
// Triage's code (see CodeFor), message and data, the same object From
// marshals. The SDK sends a *jsonrpc.Error returned by a handler as it is;
// any other error goes out with code 0 and its data dropped (from a
// Server.AddTool handler), or as an isError result whose text is
// err.Error() (from an mcp.AddTool handler).
//
// WireError returns nil for a nil error. Its result is a pointer: do not
// return WireError(err) as an error when err may be nil, since a nil
// pointer in an error interface is not a nil error.
func WireError(err error) *sdkjsonrpc.Error {
	e := From(err)
	if e == nil {
		return nil
	}
	return &sdkjsonrpc.Error{Code: int64(e.Code), Message: e.Message, Data: e.Data}
}

// Classify turns an error carrying the MCP Go SDK's JSON-RPC error into a
// fault: a *jsonrpc.Error of github.com/modelcontextprotocol/go-sdk/jsonrpc
// anywhere in err's chain (the SDK's client returns the error a server
// answered wrapped, `calling "tools/call": …`, and the SDK's type does not
// unwrap to a fault as this package's *Error does). It reads the error as
// (*Error).Fault does, so Triage's data (code, retryable, sessionValid,
// retryAfter, details, …) survives, and an error without it is mapped by
// its JSON-RPC code, the peer's message kept, redacted, for debug output
// only. The classification is fault.MethodWire (rule "jsonrpc_data" or
// "jsonrpc_code") and the cause is err. Source is left empty: the error
// does not say which server answered, and resilience.Do fills it in with
// the operation's source.
//
// Importing this package registers Classify with fault.Register, so
// fault.From applies it; call it directly to classify without that side
// effect. It reports false for any other error.
func Classify(err error) (*fault.Error, bool) {
	if err == nil {
		return nil, false
	}
	w, ok := errors.AsType[*sdkjsonrpc.Error](err)
	if !ok || w == nil {
		return nil, false
	}
	code := int(w.Code)
	if int64(code) != w.Code {
		// Out of int's range (on a 32-bit platform): no code Triage maps.
		code = fault.JSONRPCInternal
	}
	f := (&Error{Code: code, Message: w.Message, Data: w.Data}).Fault()
	f.Cause = err
	return f, true
}
