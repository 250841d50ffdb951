package textclass

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// Alpha is the additive smoothing Train applies: 1, Laplace smoothing.
const Alpha = 1.0

// formatVersion is the version of the model's JSON form.
const formatVersion = 1

// maxAlpha bounds a decoded model's smoothing, so that every weight is
// finite.
const maxAlpha = 1000

// Model is a multinomial naive Bayes classifier over the features of a
// text: its Tokenize tokens and the bigrams of consecutive word tokens
// (error codes take no part in bigrams). A Model is immutable; Predict is
// safe for concurrent use. The zero Model knows no label and predicts
// nothing.
type Model struct {
	alpha  float64
	labels []string // sorted
	docs   []int    // training examples per label

	// Feature f has row index[f]; counts[row*len(labels)+c] is the number
	// of times f occurs in the examples of label c, and weights at the
	// same place is log P(f | c).
	index   map[string]int32
	feats   []string // by row; sorted
	counts  []int32
	weights []float64
	prior   []float64 // log P(c)
}

// Train returns the model of examples: one label per distinct Label
// (examples with a blank label are ignored), feature counts summed over
// all examples, Laplace smoothing (Alpha). It never fails; with no
// examples the model predicts nothing.
func Train(examples []Example) *Model {
	var labels []string
	for _, ex := range examples {
		if strings.TrimSpace(ex.Label) != "" {
			labels = append(labels, ex.Label)
		}
	}
	slices.Sort(labels)
	labels = slices.Compact(labels)
	nl := len(labels)

	docs := make([]int, nl)
	byFeature := map[string][]int32{}
	var buf []byte
	var spans []span
	for _, ex := range examples {
		c, ok := slices.BinarySearch(labels, ex.Label)
		if !ok {
			continue
		}
		docs[c]++
		buf, spans = appendFeatures(buf[:0], spans[:0], ex.Text)
		for _, sp := range spans {
			f := buf[sp.start:sp.end]
			row := byFeature[string(f)]
			if row == nil {
				row = make([]int32, nl)
				byFeature[string(f)] = row
			}
			row[c]++
		}
	}
	feats := make([]string, 0, len(byFeature))
	for f := range byFeature {
		feats = append(feats, f)
	}
	slices.Sort(feats)
	counts := make([]int32, 0, len(feats)*nl)
	for _, f := range feats {
		counts = append(counts, byFeature[f]...)
	}
	return build(Alpha, labels, docs, feats, counts)
}

// build derives the index, priors and weights from the counts.
func build(alpha float64, labels []string, docs []int, feats []string, counts []int32) *Model {
	nl := len(labels)
	m := &Model{
		alpha:   alpha,
		labels:  labels,
		docs:    docs,
		index:   make(map[string]int32, len(feats)),
		feats:   feats,
		counts:  counts,
		weights: make([]float64, len(counts)),
		prior:   make([]float64, nl),
	}
	for row, f := range feats {
		m.index[f] = int32(row)
	}
	var n float64
	for _, d := range docs {
		n += float64(d)
	}
	totals := make([]float64, nl)
	for i, k := range counts {
		totals[i%nl] += float64(k)
	}
	v := float64(len(feats))
	for c := range labels {
		m.prior[c] = math.Log(float64(docs[c]) / n)
		totals[c] = math.Log(totals[c] + alpha*v)
	}
	for i, k := range counts {
		m.weights[i] = math.Log(float64(k)+alpha) - totals[i%nl]
	}
	return m
}

// Labels returns the labels the model knows, sorted.
func (m *Model) Labels() []string { return slices.Clone(m.labels) }

// Predict returns the most probable label of text (of its first
// MaxTextBytes) and its posterior probability: the log probabilities of
// all labels normalized with log-sum-exp, between 1/len(Labels) and 1.
// Features the model never saw are ignored, and a text with none it knows
// (an empty one, say) has no label: Predict returns "" and 0.
//
// Naive Bayes posteriors are over-confident: treat the confidence as a
// ranking, not a calibrated probability.
func (m *Model) Predict(text string) (label string, confidence float64) {
	nl := len(m.labels)
	if nl == 0 {
		return "", 0
	}
	var stack [8]float64
	var scores []float64
	if nl <= len(stack) {
		scores = stack[:nl]
	} else {
		scores = make([]float64, nl)
	}
	// Features fit on the stack for texts of a few hundred bytes.
	var bufStack [1024]byte
	var spanStack [128]span
	buf, spans := appendFeatures(bufStack[:0], spanStack[:0], text)
	known := false
	for _, sp := range spans {
		row, ok := m.index[string(buf[sp.start:sp.end])]
		if !ok {
			continue
		}
		known = true
		w := m.weights[int(row)*nl : int(row)*nl+nl]
		for i := range scores {
			scores[i] += w[i]
		}
	}
	if !known {
		return "", 0
	}
	best := 0
	for i := range scores {
		scores[i] += m.prior[i]
		if scores[i] > scores[best] {
			best = i
		}
	}
	var sum float64
	for _, x := range scores {
		sum += math.Exp(x - scores[best])
	}
	return m.labels[best], 1 / sum
}

// modelJSON is the JSON form of a Model: its counts, from which everything
// else derives.
type modelJSON struct {
	Version  int                `json:"version"`
	Alpha    float64            `json:"alpha"`
	Labels   []string           `json:"labels"`
	Docs     []int              `json:"docs"`
	Features map[string][]int32 `json:"features"`
}

// MarshalJSON encodes the model's counts, one feature a line in sorted
// order, so that the same training data always gives the same bytes:
//
//	{"version":1,"alpha":1,"labels":[…],"docs":[…],"features":{
//	"not found":[0,0,0,0,21,0],
//	…}}
func (m *Model) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	value := func(v any) error { // v without the Encoder's newline
		if err := enc.Encode(v); err != nil {
			return err
		}
		b.Truncate(b.Len() - 1)
		return nil
	}
	labels, docs, alpha := m.labels, m.docs, m.alpha
	if labels == nil {
		labels, docs = []string{}, []int{}
	}
	if alpha == 0 { // the zero Model
		alpha = Alpha
	}
	fmt.Fprintf(&b, `{"version":%d,"alpha":%s,"labels":`, formatVersion, strconv.FormatFloat(alpha, 'g', -1, 64))
	if err := value(labels); err != nil {
		return nil, err
	}
	b.WriteString(`,"docs":`)
	if err := value(docs); err != nil {
		return nil, err
	}
	b.WriteString(`,"features":{`)
	nl := len(m.labels)
	for row, f := range m.feats {
		if row > 0 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
		if err := value(f); err != nil {
			return nil, err
		}
		b.WriteString(":[")
		for c, k := range m.counts[row*nl : row*nl+nl] {
			if c > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.FormatInt(int64(k), 10))
		}
		b.WriteByte(']')
	}
	b.WriteString("}}\n")
	return b.Bytes(), nil
}

// UnmarshalJSON decodes a model MarshalJSON encoded, and checks it: the
// version is known, alpha is in (0, 1000], labels are sorted, distinct and
// not blank, every label has at least one example, and every feature has
// one non-negative count per label.
func (m *Model) UnmarshalJSON(data []byte) error {
	var j modelJSON
	if err := json.Unmarshal(data, &j); err != nil {
		return fmt.Errorf("textclass: decoding model: %w", err)
	}
	if err := j.check(); err != nil {
		return fmt.Errorf("textclass: invalid model: %w", err)
	}
	nl := len(j.Labels)
	feats := make([]string, 0, len(j.Features))
	for f := range j.Features {
		feats = append(feats, f)
	}
	slices.Sort(feats)
	counts := make([]int32, 0, len(feats)*nl)
	for _, f := range feats {
		counts = append(counts, j.Features[f]...)
	}
	*m = *build(j.Alpha, j.Labels, j.Docs, feats, counts)
	return nil
}

func (j *modelJSON) check() error {
	switch {
	case j.Version != formatVersion:
		return fmt.Errorf("version %d, want %d", j.Version, formatVersion)
	case !(j.Alpha > 0 && j.Alpha <= maxAlpha):
		return fmt.Errorf("alpha %v is not in (0, %d]", j.Alpha, maxAlpha)
	case len(j.Docs) != len(j.Labels):
		return fmt.Errorf("%d labels but %d document counts", len(j.Labels), len(j.Docs))
	case len(j.Labels) == 0 && len(j.Features) > 0:
		return errors.New("features without labels")
	}
	for i, l := range j.Labels {
		if strings.TrimSpace(l) == "" {
			return fmt.Errorf("label %d is blank", i)
		}
		if i > 0 && j.Labels[i-1] >= l {
			return fmt.Errorf("labels are not sorted and distinct at %q", l)
		}
		if j.Docs[i] < 1 {
			return fmt.Errorf("label %q has %d examples", l, j.Docs[i])
		}
	}
	for f, row := range j.Features {
		if f == "" {
			return errors.New("empty feature")
		}
		if len(row) != len(j.Labels) {
			return fmt.Errorf("feature %q has %d counts for %d labels", f, len(row), len(j.Labels))
		}
		for _, k := range row {
			if k < 0 {
				return fmt.Errorf("feature %q has a negative count", f)
			}
		}
	}
	return nil
}
