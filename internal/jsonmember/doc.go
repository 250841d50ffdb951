// Package jsonmember decodes the members of JSON documents strictly, for the
// wire packages that read other programs' errors (wire/jsonrpc,
// wire/present), and reports what is wrong as a *ValidationError naming the
// member at fault by its dotted path.
//
// A wire package keeps one Decoder that carries its name, so that every
// error it returns says where it comes from:
//
//	var dec = jsonmember.Decoder{Package: "jsonrpc"}
//
//	m, err := dec.Object(data, "")
//	if err != nil {
//		return err
//	}
//	code, err := dec.Int(m["code"], jsonmember.Path("error", "code"))
//	// err: jsonrpc: member "error.code": must be an integer, got string
//
// Member names match exactly, as JSON-RPC and the presentation protocol
// define them (encoding/json alone matches them case-insensitively); of
// duplicate members the last wins. Integers are exact within ±(2^53-1), the
// range every JSON peer represents.
//
// A *ValidationError lists its member as a field error, so fault.From turns
// it into an INVALID_REQUEST fault.
package jsonmember
