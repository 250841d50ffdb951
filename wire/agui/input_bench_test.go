package agui

import "testing"

// BenchmarkParseRunAgentInput is the cost of reading the body of a run
// request: a short conversation with a tool call, a tool and context.
func BenchmarkParseRunAgentInput(b *testing.B) {
	raw := []byte(`{"threadId":"t-1","runId":"r-1","state":{"step":2},"messages":[` +
		`{"id":"m1","role":"system","content":"You are helpful."},` +
		`{"id":"m2","role":"user","content":"What is the weather in Paris?"},` +
		`{"id":"m3","role":"assistant","content":"","toolCalls":[{"id":"c1","type":"function","function":{"name":"weather","arguments":"{\"city\":\"Paris\"}"}}]},` +
		`{"id":"m4","role":"tool","toolCallId":"c1","content":"18 C, cloudy"},` +
		`{"id":"m5","role":"user","content":[{"type":"text","text":"And tomorrow?"}]}],` +
		`"tools":[{"name":"weather","description":"the weather in a city","parameters":{"type":"object","properties":{"city":{"type":"string"}}}}],` +
		`"context":[{"description":"locale","value":"fr-FR"}],"forwardedProps":{}}`)
	if _, err := ParseRunAgentInput(raw); err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseRunAgentInput(raw); err != nil {
			b.Fatal(err)
		}
	}
}
