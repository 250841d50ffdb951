// Package jsonmember is the module's one home of strict JSON decoding: it
// decodes the members of JSON documents strictly, for the wire packages that
// read other programs' errors and requests (wire/jsonrpc, wire/present,
// wire/agui) and for the root's reports, and decodes the service's PUT
// bodies into Go types (Strict). What is wrong is a *ValidationError, the
// module's one validation error, listing every member at fault as a
// fault.FieldError named by its path ("error.code", "messages[2].id").
//
// Strict decodes with encoding/json after a walk of the JSON Schema that
// github.com/google/jsonschema-go infers for the type (jsonschema.For),
// which names every unknown member and wrong type by its full path. (The
// schema's own validator, Resolved.Validate, is not used: it stops at the
// first error and names schema paths, not the instance's members.)
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
// A decoder that reports every invalid member at once collects them in an
// Errors. A *ValidationError lists its members as field errors, so
// fault.From turns it into an INVALID_REQUEST fault.
package jsonmember
