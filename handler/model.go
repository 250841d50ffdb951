package handler

import (
	"github.com/triage-go/triage"
	"github.com/triage-go/triage/internal/textclass"
)

// DefaultModel is the small text classifier Triage ships: multinomial
// naive Bayes over word unigrams and bigrams, trained on a labelled corpus
// of pipeline error messages (docs/text-classifier.md has its held-out
// accuracy). Its first use decodes the embedded model (about 10 ms); New
// does that, so no report pays for it.
func DefaultModel() Predictor {
	m := textclass.Default()
	return func(text string) (triage.ErrorType, float64) {
		label, p := m.Predict(text)
		return triage.ErrorType(label), p
	}
}
