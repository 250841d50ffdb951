package server

import (
	"bytes"
	"encoding/json"
	"strconv"

	"github.com/triage-go/triage/wire/jsonrpc"
)

// mcpBody is what /mcp reads of a POST body before the go-sdk does: how
// many JSON-RPC messages it holds, whether as a batch, and the protocol
// version an initialize asks for.
type mcpBody struct {
	batch    bool
	messages int
	// initialize is set when a message is an initialize request, version
	// to the protocolVersion it asks for.
	initialize bool
	version    string
	// initialized is set when a message is notifications/initialized.
	initialized bool
}

// readMCPBody reads a POST body: one JSON-RPC message (an object) or a
// batch (an array of at least one). It refuses, as JSON-RPC errors, what
// the go-sdk would misread: malformed JSON (-32700), anything but an
// object or a non-empty array of objects, and an id that is not a string,
// null or an integer the go-sdk keeps exactly (-32600). The go-sdk reads a
// numeric id as a float64 and converts it to int64: 1.5 became 1 and
// 1.5e300 -9223372036854775808, and beyond 2^53 digits are lost. JSON-RPC
// 2.0 says ids SHOULD NOT have fractional parts; an id that cannot come
// back as it was sent is refused, never altered.
func readMCPBody(body []byte) (mcpBody, *jsonrpc.Error) {
	trimmed := bytes.TrimLeft(body, " \t\r\n")
	if !json.Valid(body) {
		return mcpBody{}, jsonrpc.NewParseError("the body is not JSON")
	}
	var raws []json.RawMessage
	out := mcpBody{}
	switch {
	case len(trimmed) > 0 && trimmed[0] == '[':
		if err := json.Unmarshal(body, &raws); err != nil {
			return mcpBody{}, jsonrpc.NewParseError("the body is not JSON")
		}
		if len(raws) == 0 {
			return mcpBody{}, jsonrpc.NewInvalidRequest("an empty batch")
		}
		out.batch = true
	case len(trimmed) > 0 && trimmed[0] == '{':
		raws = []json.RawMessage{body}
	default:
		return mcpBody{}, jsonrpc.NewInvalidRequest("the body is neither a JSON-RPC message (an object) nor a batch (an array)")
	}
	out.messages = len(raws)
	for i, raw := range raws {
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				ProtocolVersion string `json:"protocolVersion"`
			} `json:"params"`
		}
		if err := json.Unmarshal(raw, &m); err != nil {
			var probe map[string]json.RawMessage
			if json.Unmarshal(raw, &probe) != nil {
				return mcpBody{}, jsonrpc.NewInvalidRequest(position(out.batch, i) + "is not an object")
			}
			// A member of another type than expected (params not an
			// object, method not a string): the go-sdk answers that.
			if !jsonrpc.ExactID(probe["id"]) {
				return mcpBody{}, jsonrpc.NewInvalidRequest(position(out.batch, i) + jsonrpc.IDRule)
			}
			continue
		}
		if !jsonrpc.ExactID(m.ID) {
			return mcpBody{}, jsonrpc.NewInvalidRequest(position(out.batch, i) + jsonrpc.IDRule)
		}
		switch m.Method {
		case "initialize":
			out.initialize, out.version = true, m.Params.ProtocolVersion
		case "notifications/initialized":
			out.initialized = true
		}
	}
	return out, nil
}

func position(batch bool, i int) string {
	if !batch {
		return ""
	}
	return "message " + strconv.Itoa(i) + " of the batch: "
}
