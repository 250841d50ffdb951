package textclass_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/textclass"
)

// Quality floors, set under the measured figures (docs/text-classifier.md)
// so that a change that costs more than a few examples fails, and noise
// does not.
const (
	heldOutFloor = 0.85 // measured 0.8889 (160/180)
	cvFloor      = 0.80 // measured 0.8596 (2321/2700)
)

// canonical are the six error types of triage.ErrorTypes, the only labels
// the corpus may use.
var canonical = []string{"chart_error", "input_error", "query_error", "schema_error", "system_error", "validation_error"}

func readCorpus(t testing.TB, name string) []textclass.Example {
	t.Helper()
	f, err := os.Open("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	examples, err := textclass.ReadExamples(f)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return examples
}

// evaluation is a confusion matrix: n[want][got], labels in canonical
// order, and a column "" for texts that get no label.
type evaluation struct {
	n     map[string]map[string]int
	total int
	right int
	// Confidence of right and wrong answers, for calibration.
	confRight, confWrong []float64
	misses               []string
}

func evaluate(m *textclass.Model, examples []textclass.Example) *evaluation {
	e := &evaluation{n: map[string]map[string]int{}}
	for _, ex := range examples {
		got, conf := m.Predict(ex.Text)
		if e.n[ex.Label] == nil {
			e.n[ex.Label] = map[string]int{}
		}
		e.n[ex.Label][got]++
		e.total++
		if got == ex.Label {
			e.right++
			e.confRight = append(e.confRight, conf)
		} else {
			e.confWrong = append(e.confWrong, conf)
			e.misses = append(e.misses, fmt.Sprintf("%s → %s (%.2f): %s", ex.Label, got, conf, ex.Text))
		}
	}
	return e
}

func (e *evaluation) accuracy() float64 { return float64(e.right) / float64(e.total) }

// String renders the confusion matrix as a Markdown table with recall and
// precision per label.
func (e *evaluation) String() string {
	var b strings.Builder
	cols := append(slices.Clone(canonical), "")
	b.WriteString("| true \\ predicted |")
	for _, c := range cols {
		if c == "" {
			c = "(none)"
		}
		fmt.Fprintf(&b, " %s |", strings.TrimSuffix(c, "_error"))
	}
	b.WriteString(" recall |\n|---|")
	for range cols {
		b.WriteString("---:|")
	}
	b.WriteString("---:|\n")
	for _, want := range canonical {
		fmt.Fprintf(&b, "| %s |", want)
		row := 0
		for _, got := range cols {
			row += e.n[want][got]
			fmt.Fprintf(&b, " %d |", e.n[want][got])
		}
		fmt.Fprintf(&b, " %.2f |\n", ratio(e.n[want][want], row))
	}
	b.WriteString("| precision |")
	for _, got := range canonical {
		col := 0
		for _, want := range canonical {
			col += e.n[want][got]
		}
		fmt.Fprintf(&b, " %.2f |", ratio(e.n[got][got], col))
	}
	b.WriteString(" |  |\n")
	return b.String()
}

// calibration summarizes confidence: its mean on right and wrong answers,
// and the accuracy and coverage above a few thresholds.
func (e *evaluation) calibration() string {
	var b strings.Builder
	fmt.Fprintf(&b, "mean confidence: right %.3f, wrong %.3f\n", mean(e.confRight), mean(e.confWrong))
	for _, th := range []float64{0.5, 0.8, 0.9, 0.99} {
		r, w := above(e.confRight, th), above(e.confWrong, th)
		fmt.Fprintf(&b, "confidence >= %.2f: %d of %d texts (%.0f%%), accuracy %.4f\n",
			th, r+w, e.total, 100*ratio(r+w, e.total), ratio(r, r+w))
	}
	return b.String()
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

func mean(xs []float64) float64 {
	var s float64
	for _, x := range xs {
		s += x
	}
	return s / float64(max(len(xs), 1))
}

func above(xs []float64, th float64) int {
	n := 0
	for _, x := range xs {
		if x >= th {
			n++
		}
	}
	return n
}

// TestHeldOut measures the embedded model, trained on train.jsonl only, on
// test.jsonl, which it never saw.
func TestHeldOut(t *testing.T) {
	t.Parallel()
	test := readCorpus(t, "test.jsonl")
	e := evaluate(textclass.Default(), test)
	t.Logf("held-out accuracy on test.jsonl: %.4f (%d/%d)\n%s\n%s\nmisclassified:\n%s",
		e.accuracy(), e.right, e.total, e, e.calibration(), strings.Join(e.misses, "\n"))
	if e.accuracy() < heldOutFloor {
		t.Errorf("held-out accuracy %.4f is below the floor %.2f", e.accuracy(), heldOutFloor)
	}
}

// TestCrossValidation is the second figure: stratified 10-fold
// cross-validation on train.jsonl, repeated over 5 fixed shuffles; the
// figure is the accuracy over all 5 × 540 predictions.
func TestCrossValidation(t *testing.T) {
	t.Parallel()
	const k, repeats = 10, 5
	train := readCorpus(t, "train.jsonl")
	total := &evaluation{n: map[string]map[string]int{}}
	var accs []float64
	for rep := range repeats {
		r := rand.New(rand.NewPCG(2025, uint64(rep)))
		fold := make([]int, len(train))
		dealt := map[string]int{}
		for _, i := range r.Perm(len(train)) {
			fold[i] = dealt[train[i].Label] % k
			dealt[train[i].Label]++
		}
		right := 0
		for f := range k {
			var in, out []textclass.Example
			for i, ex := range train {
				if fold[i] == f {
					out = append(out, ex)
				} else {
					in = append(in, ex)
				}
			}
			e := evaluate(textclass.Train(in), out)
			right += e.right
			for want, row := range e.n {
				if total.n[want] == nil {
					total.n[want] = map[string]int{}
				}
				for got, n := range row {
					total.n[want][got] += n
				}
			}
			total.total += e.total
			total.right += e.right
		}
		accs = append(accs, float64(right)/float64(len(train)))
	}
	t.Logf("%d-fold cross-validation on train.jsonl, %d shuffles: %.4f (%d/%d); per shuffle %.4f to %.4f\n%s",
		k, repeats, total.accuracy(), total.right, total.total, slices.Min(accs), slices.Max(accs), total)
	if total.accuracy() < cvFloor {
		t.Errorf("cross-validated accuracy %.4f is below the floor %.2f", total.accuracy(), cvFloor)
	}
}
