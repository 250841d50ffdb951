package textclass_test

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/textclass"
)

// The least examples per label in each split.
const (
	minTrainPerLabel = 80
	minTestPerLabel  = 25
)

// nearDuplicate is the Jaccard similarity of token sets above which a test
// text counts as a near-duplicate of a training text.
const nearDuplicate = 0.8

func TestCorpusShape(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file string
		min  int
	}{{"train.jsonl", minTrainPerLabel}, {"test.jsonl", minTestPerLabel}} {
		t.Run(strings.TrimSuffix(c.file, ".jsonl"), func(t *testing.T) {
			t.Parallel()
			perLabel := map[string]int{}
			seen := map[string]string{}
			for _, ex := range readCorpus(t, c.file) {
				if !slices.Contains(canonical, ex.Label) {
					t.Errorf("label %q is not canonical: %s", ex.Label, ex.Text)
				}
				perLabel[ex.Label]++
				key := normalized(ex.Text)
				if key == "" {
					t.Errorf("no tokens in %q", ex.Text)
				}
				if prev, ok := seen[key]; ok {
					t.Errorf("duplicate after normalization:\n  %s\n  %s", prev, ex.Text)
				}
				seen[key] = ex.Text
			}
			for _, l := range canonical {
				if perLabel[l] < c.min {
					t.Errorf("%s has %d examples of %s, want %d at least", c.file, perLabel[l], l, c.min)
				}
			}
			t.Logf("%s: %v", c.file, perLabel)
		})
	}
}

// TestSplitHonest: no test text is in train after normalization, and none
// is a near-duplicate of a training text (Jaccard similarity of token sets
// above 0.8), so the held-out figure measures generalization, not recall.
func TestSplitHonest(t *testing.T) {
	t.Parallel()
	train, test := readCorpus(t, "train.jsonl"), readCorpus(t, "test.jsonl")
	inTrain := map[string]string{}
	trainSets := make([]map[string]bool, len(train))
	for i, ex := range train {
		inTrain[normalized(ex.Text)] = ex.Text
		trainSets[i] = tokenSet(ex.Text)
	}
	var nearest []float64
	for _, ex := range test {
		if prev, ok := inTrain[normalized(ex.Text)]; ok {
			t.Errorf("test text is in train after normalization:\n  test:  %s\n  train: %s", ex.Text, prev)
		}
		set, best, bestAt := tokenSet(ex.Text), 0.0, 0
		for i, ts := range trainSets {
			if j := jaccard(set, ts); j > best {
				best, bestAt = j, i
			}
		}
		if best > nearDuplicate {
			t.Errorf("near-duplicate across the split (Jaccard %.2f):\n  test:  %s\n  train: %s", best, ex.Text, train[bestAt].Text)
		} else if best >= 0.5 {
			t.Logf("closest pair (Jaccard %.2f):\n  test:  %s\n  train: %s", best, ex.Text, train[bestAt].Text)
		}
		nearest = append(nearest, best)
	}
	slices.Sort(nearest)
	t.Logf("Jaccard similarity of each test text to its nearest training text: median %.2f, 90th percentile %.2f, max %.2f; %d of %d above 0.5",
		nearest[len(nearest)/2], nearest[len(nearest)*9/10], nearest[len(nearest)-1],
		len(nearest)-countBelow(nearest, 0.5), len(nearest))
}

func normalized(text string) string { return strings.Join(textclass.Tokenize(text), " ") }

func tokenSet(text string) map[string]bool {
	set := map[string]bool{}
	for _, tok := range textclass.Tokenize(text) {
		set[tok] = true
	}
	return set
}

func jaccard(a, b map[string]bool) float64 {
	inter := 0
	for tok := range a {
		if b[tok] {
			inter++
		}
	}
	union := len(a) + len(b) - inter
	if union == 0 {
		return 1
	}
	return float64(inter) / float64(union)
}

// countBelow counts the values below th in sorted xs.
func countBelow(xs []float64, th float64) int {
	n, _ := slices.BinarySearch(xs, th)
	return n
}

func TestReadExamples(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, in string
		want     []textclass.Example
		err      string
	}{
		{name: "Empty", in: "", want: nil},
		{name: "Lines", in: `{"text":"a b","label":"x"}` + "\n\n  \r\n" + `{"label":"y","text":"c"}` + "\n",
			want: []textclass.Example{{Text: "a b", Label: "x"}, {Text: "c", Label: "y"}}},
		{name: "NoFinalNewline", in: `{"text":"t","label":"l"}`, want: []textclass.Example{{Text: "t", Label: "l"}}},
		{name: "UnknownMember", in: `{"text":"t","label":"l","weight":2}`, err: `line 1: json: unknown field "weight"`},
		{name: "MissingLabel", in: "\n" + `{"text":"t"}`, err: "line 2: label is missing or blank"},
		{name: "BlankText", in: `{"text":"  ","label":"l"}`, err: "line 1: text is missing or blank"},
		{name: "TwoValues", in: `{"text":"t","label":"l"} {}`, err: "line 1: more than one JSON value"},
		{name: "NotObject", in: `["t","l"]`, err: "line 1: not a JSON object"},
		{name: "WrongType", in: `{"text":1,"label":"l"}`, err: "line 1: json: cannot unmarshal number"},
		{name: "Truncated", in: `{"text":"t",`, err: "line 1: unexpected EOF"},
		{name: "TooLong", in: `{"text":"` + strings.Repeat("x", textclass.MaxLineBytes) + `","label":"l"}`,
			err: fmt.Sprintf("line longer than %d bytes", textclass.MaxLineBytes)},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got, err := textclass.ReadExamples(strings.NewReader(c.in))
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("err = %v, want one containing %q", err, c.err)
				}
				if got != nil {
					t.Fatalf("examples returned with an error: %v", got)
				}
				return
			}
			if err != nil || !slices.Equal(got, c.want) {
				t.Fatalf("ReadExamples = %v, %v; want %v", got, err, c.want)
			}
		})
	}
}

type failingReader struct{}

func (failingReader) Read([]byte) (int, error) { return 0, errors.New("disk on fire") }

func TestReadExamplesReadError(t *testing.T) {
	t.Parallel()
	if _, err := textclass.ReadExamples(failingReader{}); err == nil || !strings.Contains(err.Error(), "disk on fire") {
		t.Fatalf("err = %v", err)
	}
}
