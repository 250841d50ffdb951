package policy

import (
	_ "embed"
	"sync"
)

//go:embed default_policy.yaml
var defaultYAML []byte

// defaultName names the embedded policy in errors and decisions.
const defaultName = "default_policy.yaml"

var defaultPolicy = sync.OnceValue(func() *Policy {
	p, err := Parse(defaultName, defaultYAML, nil)
	if err != nil {
		panic("handler: the embedded default policy does not load: " + err.Error())
	}
	return p
})

// Default returns the embedded default policy (default_policy.yaml),
// which implements seed 004's scenario table. It is parsed once.
func Default() *Policy { return defaultPolicy() }
