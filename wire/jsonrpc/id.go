package jsonrpc

import (
	"bytes"
	"encoding/json"
	"regexp"
	"strconv"
)

// IDRule says which request ids ExactID takes, for the error that refuses
// another.
const IDRule = "the id must be a string, null or an integer of at most 2^53-1 written without a fraction or an exponent"

// integerID is a JSON number written as an integer, at most 16 digits.
var integerID = regexp.MustCompile(`^(0|-?[1-9][0-9]{0,15})$`)

// maxExactID is 2^53-1: a larger integer does not survive a float64.
const maxExactID = 1<<53 - 1

// ExactID reports whether raw, a request's id, comes back unchanged from
// a peer that reads numbers as float64 (as the MCP go-sdk does, converting
// them to int64: 1.5 became 1, 1.5e300 -9223372036854775808, and digits
// past 2^53 were lost): absent, null, a string, or an integer within
// ±(2^53-1) written without a fraction or an exponent. JSON-RPC 2.0 says
// numeric ids SHOULD NOT have fractional parts; an id that cannot come back
// as it was sent is to be refused (-32600, NewInvalidRequest(IDRule)),
// never altered.
func ExactID(raw json.RawMessage) bool {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || string(raw) == "null" || raw[0] == '"' {
		return true
	}
	if !integerID.Match(raw) {
		return false
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	return err == nil && n >= -maxExactID && n <= maxExactID
}
