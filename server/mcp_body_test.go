package server

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/triage-go/triage/fault"
)

// readMCPBody accepts what the go-sdk reads as it was sent, and refuses
// the rest with JSON-RPC's standard errors. Seeds live in
// testdata/fuzz/FuzzMCPBody.
func FuzzMCPBody(f *testing.F) {
	for _, s := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"ping"}`,
		`[{"jsonrpc":"2.0","id":1,"method":"ping"},{"jsonrpc":"2.0","method":"notifications/initialized"}]`,
		`{"jsonrpc":"2.0","id":1.5e300,"method":"ping"}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, rpcErr := readMCPBody(body)
		if rpcErr != nil {
			if rpcErr.Code != fault.JSONRPCParseError && rpcErr.Code != fault.JSONRPCInvalidReq {
				t.Fatalf("code %d", rpcErr.Code)
			}
			return
		}
		var raws []json.RawMessage
		if got.batch {
			if err := json.Unmarshal(body, &raws); err != nil || len(raws) == 0 {
				t.Fatalf("a batch that is not a non-empty array: %v", err)
			}
		} else {
			raws = []json.RawMessage{body}
		}
		if got.messages != len(raws) {
			t.Fatalf("%d messages, counted %d", len(raws), got.messages)
		}
		for _, raw := range raws {
			var m map[string]json.RawMessage
			if err := json.Unmarshal(raw, &m); err != nil {
				t.Fatalf("a message that is not an object: %s", raw)
			}
			id := strings.TrimSpace(string(m["id"]))
			if id == "" || id == "null" || id[0] == '"' {
				continue
			}
			// The go-sdk's reading of a numeric id: float64, then int64.
			f, err := strconv.ParseFloat(id, 64)
			if err != nil || strconv.FormatInt(int64(f), 10) != id {
				t.Fatalf("id %s accepted, and the go-sdk sends back %d", id, int64(f))
			}
		}
	})
}

func TestMCPBodyIDs(t *testing.T) {
	t.Parallel()
	for id, ok := range map[string]bool{
		"0": true, "-1": true, "9007199254740991": true, "-9007199254740991": true, `"x"`: true, "null": true,
		"-0": false, "01": false, "1.0": false, "1e3": false, "9007199254740992": false, "1.5e300": false,
		"true": false, "[]": false, "{}": false,
	} {
		_, err := readMCPBody([]byte(`{"jsonrpc":"2.0","id":` + id + `,"method":"ping"}`))
		if (err == nil) != ok {
			t.Errorf("id %s: %v", id, err)
		}
	}
}
