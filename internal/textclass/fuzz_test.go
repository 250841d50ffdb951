package textclass_test

import (
	"bytes"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/triage-go/triage/internal/textclass"
)

// FuzzTokenize: any text tokenizes to at most one token per byte, each
// non-empty valid UTF-8 without spaces, and a word token has no capital
// (only codes keep theirs); numbers do not matter (turning every digit
// into another changes no token but the codes' own text); and Predict
// gives a known label with a posterior in [1/6, 1], or none at all when
// the text has no token it knows.
func FuzzTokenize(f *testing.F) {
	for _, s := range []string{
		"", "DB_TIMEOUT: query exceeded 30000 ms while aggregating 48M rows",
		`column "product_id" does not exist`, "ORA-01652 42P01 2025-08-08T12:01:00Z",
		"3f2b9c1e-1d2a-4b3c-9d8e-0123456789ab", "couldn't ‘pie’ “x y” user's", "\xff\xfe'\"`",
		"HTTPServer totalRevenue 10.0.0.1:5432 2,400,000", "Größe ÜBER_1 İstanbul ǅ",
	} {
		f.Add(s)
	}
	m := textclass.Default()
	labels := m.Labels()
	f.Fuzz(func(t *testing.T, text string) {
		toks := textclass.Tokenize(text)
		if len(toks) > len(text) {
			t.Fatalf("%d tokens from %d bytes", len(toks), len(text))
		}
		for _, tok := range toks {
			if tok == "" || !utf8.ValidString(tok) || strings.IndexFunc(tok, unicode.IsSpace) >= 0 {
				t.Fatalf("bad token %q in %q", tok, toks)
			}
		}
		other := textclass.Tokenize(strings.Map(func(r rune) rune {
			if '0' <= r && r <= '9' {
				return '0' + (r-'0'+7)%10
			}
			return r
		}, text))
		if len(other) != len(toks) {
			t.Fatalf("changing digits changed the tokens:\n%q\n%q", toks, other)
		}
		for i := range toks {
			if isCode(toks[i]) != isCode(other[i]) || !isCode(toks[i]) && toks[i] != other[i] {
				t.Fatalf("changing digits changed the tokens:\n%q\n%q", toks, other)
			}
		}

		label, conf := m.Predict(text)
		switch {
		case label == "" && conf == 0:
		case !slices.Contains(labels, label), math.IsNaN(conf), conf < 1.0/float64(len(labels))-1e-12, conf > 1:
			t.Fatalf("Predict(%q) = %q, %v", text, label, conf)
		}
		if len(toks) == 0 && label != "" {
			t.Fatalf("Predict(%q) = %q without tokens", text, label)
		}
	})
}

// isCode reports whether tok is an error code: word tokens are lower case
// and placeholders have no letter in upper case.
func isCode(tok string) bool {
	return strings.ContainsFunc(tok, func(r rune) bool { return 'A' <= r && r <= 'Z' })
}

// FuzzReadExamples: the corpus loader never panics, returns examples or an
// error, never both, and what it accepts survives a round trip.
func FuzzReadExamples(f *testing.F) {
	for _, s := range []string{
		`{"text":"Pie chart cannot display time-series data","label":"chart_error"}` + "\n",
		`{"text":"a","label":"b"}` + "\r\n\n" + `{"label":"d","text":"c \u00e9 \ud83d\ude42"}`,
		`{"text":"a"}`, `{"text":"a","label":"b","x":1}`, `{"text":"a","label":"b"}{}`, "[]", "{", "\xff",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		examples, err := textclass.ReadExamples(bytes.NewReader(data))
		if err != nil {
			if examples != nil {
				t.Fatal("examples returned with an error")
			}
			return
		}
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		for _, ex := range examples {
			if strings.TrimSpace(ex.Text) == "" || strings.TrimSpace(ex.Label) == "" {
				t.Fatalf("accepted a blank example: %+v", ex)
			}
			if err := enc.Encode(ex); err != nil {
				t.Fatal(err)
			}
		}
		if b.Len() > textclass.MaxLineBytes {
			return // a long line may have grown past the limit
		}
		back, err := textclass.ReadExamples(&b)
		if err != nil || !slices.Equal(back, examples) {
			t.Fatalf("round trip: %v\n%q\n%q", err, examples, back)
		}
	})
}

// FuzzUnmarshalModel: the model decoder never panics; a model it accepts
// encodes to a canonical form it accepts again unchanged, and predicts
// known labels with finite posteriors.
func FuzzUnmarshalModel(f *testing.F) {
	small, err := textclass.Train([]textclass.Example{
		{Text: "DB_TIMEOUT: query timed out", Label: "query_error"},
		{Text: "service unavailable", Label: "system_error"},
	}).MarshalJSON()
	if err != nil {
		f.Fatal(err)
	}
	for _, s := range []string{
		string(small), `{"version":1,"alpha":1,"labels":[],"docs":[],"features":{}}`,
		`{"version":1,"alpha":0.5,"labels":["a","b"],"docs":[1,2],"features":{"x":[0,3],"x y":[2,0]}}`,
		`{"version":1,"alpha":1e-300,"labels":["a"],"docs":[2147483647],"features":{"x":[2147483647]}}`,
		`{"version":1,"alpha":1,"labels":["b","a"],"docs":[1,1]}`, `{"version":1}`, `null`, `{`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var m textclass.Model
		if err := m.UnmarshalJSON(data); err != nil {
			return
		}
		enc, err := m.MarshalJSON()
		if err != nil {
			t.Fatal(err)
		}
		var back textclass.Model
		if err := back.UnmarshalJSON(enc); err != nil {
			t.Fatalf("re-decoding %s: %v", enc, err)
		}
		if again, _ := back.MarshalJSON(); !bytes.Equal(again, enc) {
			t.Fatalf("not canonical:\n%s\n%s", enc, again)
		}
		labels := m.Labels()
		for _, text := range []string{"", "x", "x y", "query timed out", "DB_TIMEOUT service"} {
			label, conf := m.Predict(text)
			if label == "" && conf == 0 {
				continue
			}
			if !slices.Contains(labels, label) || math.IsNaN(conf) || conf < 1.0/float64(len(labels))-1e-12 || conf > 1 {
				t.Fatalf("Predict(%q) = %q, %v with labels %q", text, label, conf, labels)
			}
		}
	})
}
