package agui

import (
	"bytes"
	"os"
	"testing"
)

// BenchmarkParse is the cost of reading every event of the golden stream
// (testdata/events.golden): one of each type the package models, with
// timestamps, metadata, an echoed input, messages, content parts and a
// JSON Patch.
func BenchmarkParse(b *testing.B) {
	golden, err := os.ReadFile("testdata/events.golden")
	if err != nil {
		b.Fatal(err)
	}
	var events [][]byte
	for line := range bytes.Lines(golden) {
		if data, ok := bytes.CutPrefix(bytes.TrimSpace(line), []byte("data: ")); ok {
			if _, err := Parse(data); err != nil {
				b.Fatalf("Parse(%s): %v", data, err)
			}
			events = append(events, data)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		for _, data := range events {
			if _, err := Parse(data); err != nil {
				b.Fatal(err)
			}
		}
	}
}
