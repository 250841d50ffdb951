package cli

import (
	"encoding/json"
	"testing"
)

// FuzzSplitReports checks how triage handle splits its input: never a
// panic, and every report it passes on is one whole JSON value.
func FuzzSplitReports(f *testing.F) {
	f.Add([]byte(`{"agent_id":"a"}`))
	f.Add([]byte("{\"a\":1}\n{\"b\":\n{\"c\":3}\n"))
	f.Add([]byte("[{\"a\":1}, 2]"))
	f.Add([]byte("{\n  \"a\": 1\n}\n{\"b\": 2}"))
	f.Fuzz(func(t *testing.T, data []byte) {
		items, shape, err := splitReports(data)
		if err != nil {
			if items != nil {
				t.Fatal("items with an error")
			}
			return
		}
		if shape == shapeOne && len(items) != 1 {
			t.Fatalf("shape one with %d items", len(items))
		}
		for i, it := range items {
			if (it.err == nil) == (it.raw == nil) {
				t.Fatalf("item %d: raw %q, err %v", i, it.raw, it.err)
			}
			if it.raw != nil && !json.Valid(it.raw) {
				t.Fatalf("item %d is not valid JSON: %q", i, it.raw)
			}
		}
	})
}
