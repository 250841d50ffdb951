package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// committed is the document the server embeds and serves.
var committed = filepath.Join("..", "..", "server", "openapi.json")

// The committed document is what the generator writes: a change to the
// API's Go types or to the operations' table regenerates it.
func TestCommittedDocumentIsGenerated(t *testing.T) {
	want, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatalf("server/openapi.json is not what the generator writes from the Go types: run\n\tgo generate ./server\nand commit the result (%s)", firstDifference(got, want))
	}
}

// firstDifference says where two documents part.
func firstDifference(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range min(len(la), len(lb)) {
		if la[i] != lb[i] {
			return fmt.Sprintf("line %d: committed %q, generated %q", i+1, la[i], lb[i])
		}
	}
	return fmt.Sprintf("committed %d lines, generated %d", len(la), len(lb))
}

// Every object the document describes says what it holds: its members,
// or, for a free-form one, additionalProperties (a bare "type": "object"
// is Record<string, never> to openapi-typescript). Every reference
// resolves.
func TestEveryObjectSaysWhatItHolds(t *testing.T) {
	data, err := Document()
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(data, &doc); err != nil {
		t.Fatal(err)
	}
	schemas := doc["components"].(map[string]any)["schemas"].(map[string]any)
	responses := doc["components"].(map[string]any)["responses"].(map[string]any)
	var walk func(v any, path string)
	walk = func(v any, path string) {
		switch x := v.(type) {
		case map[string]any:
			if x["type"] == "object" && x["properties"] == nil && x["additionalProperties"] == nil {
				t.Errorf("%s: an object that does not say what it holds", path)
			}
			if r, ok := x["$ref"].(string); ok {
				name := r[strings.LastIndex(r, "/")+1:]
				switch {
				case strings.HasPrefix(r, "#/components/schemas/") && schemas[name] != nil:
				case strings.HasPrefix(r, "#/components/responses/") && responses[name] != nil:
				default:
					t.Errorf("%s: $ref %s resolves to nothing", path, r)
				}
			}
			for _, k := range sortedKeys(x) {
				walk(x[k], path+"/"+k)
			}
		case []any:
			for i, e := range x {
				walk(e, fmt.Sprint(path, "/", i))
			}
		}
	}
	walk(doc, "#")
}

// The schemas inferred from Go types require the members their types
// always write (no omitempty), and only those.
func TestInferredRequiredMembers(t *testing.T) {
	g, err := newGenerator()
	if err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string][]string{
		"Report":     {"agent_id", "timestamp", "status", "data"},
		"Run":        {"run_id", "thread_id", "agent_id", "outcome", "started_at", "answer_bytes"},
		"JobAttempt": {"attempt", "at"},
		"FaultInput": {"code"},
	} {
		s := g.schemas[name].(obj)
		var got []string
		for _, m := range s["required"].([]any) {
			got = append(got, m.(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s requires %v, want %v", name, got, want)
		}
	}
}
