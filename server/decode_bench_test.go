package server

import (
	"testing"
	"time"
)

// BenchmarkDecodeStrict is the cost of reading the bodies of the PUT
// routes: a schema and a cached result.
func BenchmarkDecodeStrict(b *testing.B) {
	schema := []byte(`{"fields":["month","region","sales","units"],"synonyms":{"revenue":"sales","area":"region"}}`)
	cached := []byte(`{"summary":"sales by month","stored_at":"2025-08-08T10:15:00Z","data":{"rows":3,"cols":["a","b"]}}`)
	now := time.Date(2025, 8, 8, 12, 0, 0, 0, time.UTC)
	b.Run("schema", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeSchema(schema); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("cached", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := decodeCached(cached, now); err != nil {
				b.Fatal(err)
			}
		}
	})
}
