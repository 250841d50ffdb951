package textclass_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/textclass"
)

// TestDefaultUpToDate fails when model.json is not what training on
// train.jsonl gives, or when Default does not decode it.
func TestDefaultUpToDate(t *testing.T) {
	t.Parallel()
	want, err := textclass.Train(readCorpus(t, "train.jsonl")).MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	have, err := os.ReadFile("model.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(have, want) {
		t.Fatal("model.json is stale: run go generate ./internal/textclass")
	}
	got, err := textclass.Default().MarshalJSON()
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("Default does not re-encode to model.json (err %v)", err)
	}
	if got := textclass.Default().Labels(); !slices.Equal(got, canonical) {
		t.Fatalf("Default().Labels() = %v, want %v", got, canonical)
	}
}

// TestTrainOrderIndependent: the model, and so model.json, does not depend
// on the order of the examples.
func TestTrainOrderIndependent(t *testing.T) {
	t.Parallel()
	train := readCorpus(t, "train.jsonl")
	want, _ := textclass.Train(train).MarshalJSON()
	shuffled := slices.Clone(train)
	rand.New(rand.NewPCG(1, 2)).Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
	if got, _ := textclass.Train(shuffled).MarshalJSON(); !bytes.Equal(got, want) {
		t.Fatal("training on shuffled examples gave another model")
	}
}

// TestPredictSeedScenarios: the messages of seed 004's scenario table.
func TestPredictSeedScenarios(t *testing.T) {
	t.Parallel()
	m := textclass.Default()
	for _, c := range []struct{ text, want string }{
		{`Input ambiguous: "Show revenue"`, "input_error"},
		{"Schema missing field: product_id not found", "schema_error"},
		{"DB timeout during large aggregation", "query_error"},
		{"Pie chart cannot display time-series data", "chart_error"},
		{"Downstream service outage", "system_error"},
		{"Date range end 2025-01-01 is before its start 2025-06-30", "validation_error"},
	} {
		got, conf := m.Predict(c.text)
		if got != c.want || conf < 0.5 {
			t.Errorf("Predict(%q) = %s, %.3f; want %s with confidence 0.5 at least", c.text, got, conf, c.want)
		}
	}
}

func TestPredictNoEvidence(t *testing.T) {
	t.Parallel()
	for _, text := range []string{"", "   ", "!!! ??? …", "\xff\xfe", "zzqx wvvk", "🙂"} {
		if label, conf := textclass.Default().Predict(text); label != "" || conf != 0 {
			t.Errorf("Predict(%q) = %q, %v; want no label", text, label, conf)
		}
	}
}

func TestTrainEdgeCases(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name     string
		examples []textclass.Example
		labels   []string
	}{
		{"Nil", nil, nil},
		{"Empty", []textclass.Example{}, nil},
		{"BlankLabels", []textclass.Example{{Text: "a b", Label: " "}, {Text: "c d"}}, nil},
		{"OneLabel", []textclass.Example{{Text: "disk full", Label: "system_error"}}, []string{"system_error"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			m := textclass.Train(c.examples)
			if got := m.Labels(); !slices.Equal(got, c.labels) {
				t.Fatalf("Labels() = %v, want %v", got, c.labels)
			}
			label, conf := m.Predict("disk full")
			if len(c.labels) == 0 && (label != "" || conf != 0) || len(c.labels) == 1 && (label != c.labels[0] || conf != 1) {
				t.Fatalf("Predict = %q, %v", label, conf)
			}
			data, err := m.MarshalJSON()
			if err != nil {
				t.Fatal(err)
			}
			var back textclass.Model
			if err := back.UnmarshalJSON(data); err != nil {
				t.Fatalf("decoding %s: %v", data, err)
			}
		})
	}
}

// TestConfidenceIsPosterior: on a model small enough to work out by hand,
// the confidence is the normalized posterior.
func TestConfidenceIsPosterior(t *testing.T) {
	t.Parallel()
	m := textclass.Train([]textclass.Example{
		{Text: "timeout", Label: "query_error"},
		{Text: "outage", Label: "system_error"},
	})
	// Features: "timeout", "outage" (V = 2); each label has one token.
	// P(timeout | query) = (1+1)/(1+2), P(timeout | system) = (0+1)/(1+2);
	// equal priors, so the posterior of query_error is 2/3.
	label, conf := m.Predict("timeout")
	if label != "query_error" || math.Abs(conf-2.0/3) > 1e-12 {
		t.Fatalf("Predict = %s, %v; want query_error, 2/3", label, conf)
	}
	// Repeated evidence multiplies: (2/3)^3 / ((2/3)^3 + (1/3)^3) = 8/9,
	// plus the bigrams "timeout timeout", which the model never saw.
	if _, conf := m.Predict("timeout timeout timeout"); math.Abs(conf-8.0/9) > 1e-12 {
		t.Fatalf("confidence %v, want 8/9", conf)
	}
}

func TestMarshalRoundTrip(t *testing.T) {
	t.Parallel()
	m := textclass.Default()
	data, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	var back textclass.Model
	if err := back.UnmarshalJSON(data); err != nil {
		t.Fatal(err)
	}
	for _, ex := range readCorpus(t, "test.jsonl") {
		l1, c1 := m.Predict(ex.Text)
		l2, c2 := back.Predict(ex.Text)
		if l1 != l2 || c1 != c2 {
			t.Fatalf("%q: %s %v before, %s %v after", ex.Text, l1, c1, l2, c2)
		}
	}
}

func TestUnmarshalRejects(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, err string }{
		{"NotJSON", `{`, "decoding model"},
		{"Version", `{"version":2,"alpha":1,"labels":[],"docs":[]}`, "version 2"},
		{"AlphaZero", `{"version":1,"alpha":0,"labels":[],"docs":[]}`, "alpha 0"},
		{"AlphaHuge", `{"version":1,"alpha":1e300,"labels":[],"docs":[]}`, "alpha 1e+300"},
		{"DocsLength", `{"version":1,"alpha":1,"labels":["a"],"docs":[]}`, "1 labels but 0 document counts"},
		{"BlankLabel", `{"version":1,"alpha":1,"labels":[""],"docs":[1]}`, "label 0 is blank"},
		{"Unsorted", `{"version":1,"alpha":1,"labels":["b","a"],"docs":[1,1]}`, "not sorted"},
		{"Twice", `{"version":1,"alpha":1,"labels":["a","a"],"docs":[1,1]}`, "not sorted and distinct"},
		{"NoExamples", `{"version":1,"alpha":1,"labels":["a"],"docs":[0]}`, `"a" has 0 examples`},
		{"RowLength", `{"version":1,"alpha":1,"labels":["a"],"docs":[1],"features":{"x":[1,2]}}`, "2 counts for 1 labels"},
		{"Negative", `{"version":1,"alpha":1,"labels":["a"],"docs":[1],"features":{"x":[-1]}}`, "negative count"},
		{"EmptyFeature", `{"version":1,"alpha":1,"labels":["a"],"docs":[1],"features":{"":[1]}}`, "empty feature"},
		{"FeaturesNoLabels", `{"version":1,"alpha":1,"labels":[],"docs":[],"features":{"x":[]}}`, "features without labels"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			var m textclass.Model
			err := m.UnmarshalJSON([]byte(c.in))
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Fatalf("err = %v, want one containing %q", err, c.err)
			}
		})
	}
}

// TestPredictAllocs: Predict allocates nothing for a message of ordinary
// length.
func TestPredictAllocs(t *testing.T) {
	m := textclass.Default()
	if n := testing.AllocsPerRun(100, func() { m.Predict(typicalMessage) }); n != 0 {
		t.Fatalf("Predict allocates %v times", n)
	}
}

func TestZeroModel(t *testing.T) {
	t.Parallel()
	var m textclass.Model
	if label, conf := m.Predict("query timed out"); label != "" || conf != 0 || m.Labels() != nil {
		t.Fatalf("zero Model: %q, %v, %v", label, conf, m.Labels())
	}
	data, err := m.MarshalJSON()
	if err != nil {
		t.Fatal(err)
	}
	if err := new(textclass.Model).UnmarshalJSON(data); err != nil {
		t.Fatalf("decoding the zero Model's %s: %v", data, err)
	}
}

// TestPredictLongText: only the first MaxTextBytes count, so a huge text
// costs no more than that.
func TestPredictLongText(t *testing.T) {
	t.Parallel()
	head := "Pie chart cannot display time-series data. "
	text := head + strings.Repeat("x", textclass.MaxTextBytes) + " connection refused, service unavailable"
	if label, _ := textclass.Default().Predict(text); label != "chart_error" {
		t.Fatalf("Predict = %s; the text after MaxTextBytes counted", label)
	}
	if toks := textclass.Tokenize(text); toks[len(toks)-1] == "unavailable" {
		t.Fatal("Tokenize read past MaxTextBytes")
	}
}
