package triage

import "testing"

// BenchmarkDecodeReport is the cost of decoding and validating seed 004's
// report (testdata/report.json), the body of every POST /v1/errors.
func BenchmarkDecodeReport(b *testing.B) {
	raw := []byte(validReport)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := DecodeReport(raw); err != nil {
			b.Fatal(err)
		}
	}
}
