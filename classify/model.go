package classify

import (
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/textclass"
)

// modelThreshold is the probability from which the model's answer is
// taken.
const modelThreshold = 0.6

// Predictor is a statistical text classifier: the canonical type a text
// most likely has, and the probability of that.
type Predictor func(text string) (triage.ErrorType, float64)

// DefaultModel is the small text classifier Triage ships: multinomial
// naive Bayes over word unigrams and bigrams, trained on a labelled corpus
// of pipeline error messages (docs/text-classifier.md has its held-out
// accuracy). Its first use decodes the embedded model (about 10 ms).
func DefaultModel() Predictor {
	m := textclass.Default()
	return func(text string) (triage.ErrorType, float64) {
		label, p := m.Predict(text)
		return triage.ErrorType(label), p
	}
}
