package textclass

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
)

// Example is one labelled text of a corpus.
type Example struct {
	Text  string `json:"text"`
	Label string `json:"label"`
}

// MaxLineBytes is the longest line ReadExamples accepts.
const MaxLineBytes = 64 << 10

// ReadExamples reads a corpus in JSON lines: one {"text": …, "label": …}
// object per line, blank lines skipped. A line that is not exactly such an
// object (an unknown member, a missing or blank text or label, a second
// value, a line over MaxLineBytes) is an error naming the line; nothing is
// returned with it.
func ReadExamples(r io.Reader) ([]Example, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 4096), MaxLineBytes)
	var out []Example
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		ex, err := decodeExample(line)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, ex)
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("line longer than %d bytes: %w", MaxLineBytes, err)
		}
		return nil, err
	}
	return out, nil
}

func decodeExample(line []byte) (Example, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var ex Example
	if line[0] != '{' {
		return ex, errors.New("not a JSON object")
	}
	if err := dec.Decode(&ex); err != nil {
		return ex, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return ex, errors.New("more than one JSON value")
	}
	switch {
	case strings.TrimSpace(ex.Text) == "":
		return ex, errors.New("text is missing or blank")
	case strings.TrimSpace(ex.Label) == "":
		return ex, errors.New("label is missing or blank")
	}
	return ex, nil
}
