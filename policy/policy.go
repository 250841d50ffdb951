package policy

import (
	_ "embed"
	"fmt"
	"slices"
	"strings"

	"cel.dev/cel-go/cel"
	"cel.dev/cel-go/common/types"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
)

// A Policy is a compiled recovery policy: rules tried in order, each with a
// CEL condition, the actions to run, how the pipeline goes on, a severity
// and message templates. The last rule always matches, so every report gets
// a decision. The YAML format, the variables and the template functions are
// described in docs/policy.md.
//
// A Policy is immutable and safe for concurrent use.
type Policy struct {
	name        string
	maxAttempts int
	rules       []*rule
	actions     []string // every action the rules name, sorted
	codes       classify.Codes
}

// rule is one compiled rule.
type rule struct {
	index    int // 1-based
	name     string
	always   bool        // default: true, or when: "true"
	whenOK   bool        // the condition compiled
	program  cel.Program // nil when always
	actions  []string
	next     triage.NextAction
	severity triage.Severity
	text     *text // the message, then the suggestions
}

// builtinActions are the actions a policy may name, in the order a
// recovery usually tries them.
var builtinActions = []string{"clarify", "map_synonym", "suggest_chart", "use_cache", "reduce_scope", "retry", "escalate"}

// defaultMaxAttempts is max_attempts when a policy does not set it.
const defaultMaxAttempts = 3

// Name is the file the policy was loaded from ("default_policy.yaml" for
// the default).
func (p *Policy) Name() string { return p.name }

// MaxAttempts is how many times one failure (a query and an error code) is
// handled before the policy's repeated-failure rule takes over: the
// policy's max_attempts, 3 when it does not say.
func (p *Policy) MaxAttempts() int { return p.maxAttempts }

// Actions lists every action the policy's rules name, sorted, so that a
// handler can check that it has them all.
func (p *Policy) Actions() []string { return slices.Clone(p.actions) }

// Codes returns the agent error codes the policy's reports are classified
// by: classify.DefaultCodes with the policy's codes: section merged over
// them. The table is a copy.
func (p *Policy) Codes() classify.Codes { return p.codes.Merge(nil) }

// Decide evaluates the rules in order and returns the decision of the first
// that matches, its message and suggestions rendered from in. The last rule
// always matches; an error means a condition or a template failed on this
// input, and names the rule.
func (p *Policy) Decide(in *Input) (Decision, error) {
	if in == nil {
		return Decision{}, fmt.Errorf("policy %s: no input", p.name)
	}
	v := newVars(in, p.maxAttempts)
	for _, r := range p.rules {
		if !r.always {
			out, _, err := r.program.Eval(&v.act)
			if err != nil {
				return Decision{}, fmt.Errorf("policy %s: %s: when: %w", p.name, r.label(), err)
			}
			b, ok := out.(types.Bool)
			if !ok {
				return Decision{}, fmt.Errorf("policy %s: %s: when: got %s, not a bool", p.name, r.label(), out.Type().TypeName())
			}
			if !b {
				continue
			}
		}
		d, err := r.decide(v.templateData(r.text.needs))
		if err != nil {
			return Decision{}, fmt.Errorf("policy %s: %w", p.name, err)
		}
		return d, nil
	}
	return Decision{}, fmt.Errorf("policy %s: no rule matched", p.name) // Parse makes this impossible
}

func (r *rule) label() string { return fmt.Sprintf("rule %d (%s)", r.index, r.name) }

// decide renders the rule's templates.
func (r *rule) decide(data map[string]any) (Decision, error) {
	parts, err := r.text.render(data)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", r.label(), err)
	}
	d := Decision{
		Rule:        r.name,
		Actions:     append(make([]string, 0, len(r.actions)), r.actions...),
		NextAction:  r.next,
		Severity:    r.severity,
		Message:     collapse(parts[0]),
		Suggestions: make([]string, 0, len(parts)-1),
	}
	for _, s := range parts[1:] {
		for s != "" {
			line, rest, _ := strings.Cut(s, "\n")
			if line = collapse(line); line != "" && !slices.Contains(d.Suggestions, line) {
				d.Suggestions = append(d.Suggestions, line)
			}
			s = rest
		}
	}
	return d, nil
}
