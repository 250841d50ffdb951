package textclass_test

import (
	"testing"

	"github.com/triage-go/triage/internal/textclass"
)

// typicalMessage is a message of ordinary length (90 bytes, 15 tokens).
const typicalMessage = `QUERY_TIMEOUT: statement on fct_orders cancelled after 30000 ms while aggregating 48M rows`

func BenchmarkPredict(b *testing.B) {
	m := textclass.Default()
	b.ReportAllocs()
	b.SetBytes(int64(len(typicalMessage)))
	for b.Loop() {
		m.Predict(typicalMessage)
	}
}

// BenchmarkPredictLong is a 1 KiB log excerpt, as an agent might put in
// a message.
func BenchmarkPredictLong(b *testing.B) {
	m := textclass.Default()
	var text string
	for len(text) < 1024 {
		text += `pq: canceling statement due to statement timeout (query_id=q_456, user "svc_triage", 2025-08-08T12:01:00Z) `
	}
	b.ReportAllocs()
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		m.Predict(text)
	}
}

func BenchmarkTokenize(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		textclass.Tokenize(typicalMessage)
	}
}

// BenchmarkDecode is the one-time cost of Default: decoding model.json.
func BenchmarkDecode(b *testing.B) {
	data, err := textclass.Default().MarshalJSON()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		var m textclass.Model
		if err := m.UnmarshalJSON(data); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkTrain(b *testing.B) {
	train := readCorpus(b, "train.jsonl")
	b.ReportAllocs()
	for b.Loop() {
		textclass.Train(train)
	}
}
