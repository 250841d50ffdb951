package textclass

import (
	_ "embed"
	"sync"
)

//go:generate go run ./gen -train testdata/train.jsonl -out model.json

// modelJSONBytes is the model trained on testdata/train.jsonl.
//
//go:embed model.json
var modelJSONBytes []byte

var defaultModel = sync.OnceValue(func() *Model {
	m := new(Model)
	if err := m.UnmarshalJSON(modelJSONBytes); err != nil {
		panic(err) // TestDefaultUpToDate keeps model.json valid
	}
	return m
})

// Default returns the model trained on the corpus in testdata/train.jsonl,
// embedded in the binary as model.json; it is decoded on the first call
// and shared after. go generate ./internal/textclass retrains it.
func Default() *Model { return defaultModel() }
