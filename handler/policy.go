package handler

import (
	"bytes"
	"crypto/rand"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/template"
	"text/template/parse"
	"time"
	"unicode"
	"unicode/utf8"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"
	"cel.dev/cel-go/common/types/ref"
	"cel.dev/cel-go/ext"
	"cel.dev/cel-go/interpreter"
	"go.yaml.in/yaml/v3"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
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
	rules       []*policyRule
	actions     []string // every action the rules name, sorted
}

// policyRule is one compiled rule.
type policyRule struct {
	index    int // 1-based
	name     string
	always   bool        // default: true, or when: "true"
	whenOK   bool        // the condition compiled
	program  cel.Program // nil when always
	actions  []string
	next     triage.NextAction
	severity triage.Severity
	text     *policyText // the message, then the suggestions
}

// policyText is a rule's message and suggestions, compiled into one
// template so that the suggestions see the variables the message declares:
// its parts are joined by policyPartSep.
type policyText struct {
	tmpl   *template.Template // nil when the text has no actions
	fast   bool               // policyFast can execute tmpl
	static []string           // the parts, when it has none
	parts  int
	starts []int // the first line of each part in the template's source
	needs  policyNeeds
}

// policyPartSep separates the parts of a rule's text. It is random, so no
// value a template prints can forge it.
var policyPartSep = func() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return "\x00" + hex.EncodeToString(b[:]) + "\x00"
}()

// policyActions are the actions a policy may name, in the order a
// recovery usually tries them.
var policyActions = []string{"clarify", "map_synonym", "suggest_chart", "use_cache", "reduce_scope", "retry", "escalate"}

// policyDefaultMaxAttempts is max_attempts when a policy does not set it.
const policyDefaultMaxAttempts = 3

//go:embed default_policy.yaml
var policyDefaultYAML []byte

// policyDefaultName names the embedded policy in errors and decisions.
const policyDefaultName = "default_policy.yaml"

var policyDefault = sync.OnceValue(func() *Policy {
	p, err := ParsePolicy(policyDefaultName, policyDefaultYAML)
	if err != nil {
		panic("handler: the embedded default policy does not load: " + err.Error())
	}
	return p
})

// DefaultPolicy returns the embedded default policy (default_policy.yaml),
// which implements seed 004's scenario table. It is parsed once.
func DefaultPolicy() *Policy { return policyDefault() }

// LoadPolicy reads and compiles the policy file at path. Errors name the
// file; see ParsePolicy.
func LoadPolicy(path string, opts ...PolicyOption) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return ParsePolicy(path, data, opts...)
}

// PolicyOption configures how a policy is compiled.
type PolicyOption func(*policyCompiler)

// WithActions lets the policy name actions beyond the built-in ones: the
// custom actions the handler is given (Config.Actions).
func WithActions(names ...string) PolicyOption {
	return func(c *policyCompiler) { c.known = append(c.known, names...) }
}

// ParsePolicy compiles the YAML policy in data; name is the file it came
// from, for errors. Every problem found is reported: the error is a
// *PolicyError, or several joined with errors.Join, each naming the file,
// the line, the rule and the reason.
func ParsePolicy(name string, data []byte, opts ...PolicyOption) (*Policy, error) {
	doc, lines, err := policyDecode(name, data)
	if err != nil {
		return nil, err
	}
	c := policyCompiler{file: name, lines: lines, known: slices.Clone(policyActions)}
	for _, o := range opts {
		o(&c)
	}
	p := c.compile(doc)
	if len(c.errs) > 0 {
		slices.SortStableFunc(c.errs, func(a, b error) int { return policyErrLine(a) - policyErrLine(b) })
		return nil, policyJoinErrs(c.errs)
	}
	return p, nil
}

// policyJoinErrs returns the one error, or all of them joined.
func policyJoinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

func policyErrLine(err error) int {
	if e, ok := err.(*PolicyError); ok {
		return e.Line
	}
	return 0
}

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

// Decide evaluates the rules in order and returns the decision of the first
// that matches, its message and suggestions rendered from in. The last rule
// always matches; an error means a condition or a template failed on this
// input, and names the rule.
func (p *Policy) Decide(in *PolicyInput) (Decision, error) {
	if in == nil {
		return Decision{}, fmt.Errorf("policy %s: no input", p.name)
	}
	v := newPolicyVars(in, p.maxAttempts)
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
	return Decision{}, fmt.Errorf("policy %s: no rule matched", p.name) // ParsePolicy makes this impossible
}

func (r *policyRule) label() string { return fmt.Sprintf("rule %d (%s)", r.index, r.name) }

// decide renders the rule's templates.
func (r *policyRule) decide(data map[string]any) (Decision, error) {
	parts, err := r.text.render(data)
	if err != nil {
		return Decision{}, fmt.Errorf("%s: %w", r.label(), err)
	}
	d := Decision{
		Rule:        r.name,
		Actions:     append(make([]string, 0, len(r.actions)), r.actions...),
		NextAction:  r.next,
		Severity:    r.severity,
		Message:     policyCollapse(parts[0]),
		Suggestions: make([]string, 0, len(parts)-1),
	}
	for _, s := range parts[1:] {
		for s != "" {
			line, rest, _ := strings.Cut(s, "\n")
			if line = policyCollapse(line); line != "" && !slices.Contains(d.Suggestions, line) {
				d.Suggestions = append(d.Suggestions, line)
			}
			s = rest
		}
	}
	return d, nil
}

var policyBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// render executes the text and splits it into its parts. An error names
// the part ("message", "suggestions[1]") and the line in it.
func (t *policyText) render(data map[string]any) ([]string, error) {
	if t.tmpl == nil {
		return t.static, nil
	}
	buf := policyBuffers.Get().(*bytes.Buffer)
	defer policyBuffers.Put(buf)
	buf.Reset()
	if !t.fast || policyFastExecute(buf, t.tmpl.Root, data) != nil {
		buf.Reset()
		if err := t.tmpl.Execute(buf, data); err != nil {
			field, reason := t.locate(err)
			return nil, fmt.Errorf("%s: %s", field, reason)
		}
	}
	parts := strings.SplitN(buf.String(), policyPartSep, t.parts)
	if len(parts) != t.parts { // the template's control flow cannot skip a separator; a bug if it did
		return nil, fmt.Errorf("message: rendered %d parts, not %d", len(parts), t.parts)
	}
	return parts, nil
}

var policyTemplateErr = regexp.MustCompile(`^template: [^:]*:(\d+)(?::(\d+))?: (?s:(.*))$`)

// locate finds the part a template error is in, and its line there.
func (t *policyText) locate(err error) (field, reason string) {
	m := policyTemplateErr.FindStringSubmatch(err.Error())
	if m == nil {
		return "message", strings.TrimPrefix(err.Error(), "template: ")
	}
	line, _ := strconv.Atoi(m[1])
	part := 0
	for i, start := range t.starts {
		if line >= start {
			part = i
		}
	}
	reason = "line " + strconv.Itoa(line-t.starts[part]+1)
	if m[2] != "" {
		reason += ":" + m[2]
	}
	return policyPartName(part), reason + ": " + m[3]
}

func policyPartName(part int) string {
	if part == 0 {
		return "message"
	}
	return "suggestions[" + strconv.Itoa(part-1) + "]"
}

// policyCollapse trims s and turns every run of white space into one space,
// so that templates may be written across lines. It drops control
// characters and invalid UTF-8, and what text/template and fmt print for a
// missing value ("<no value>", "<nil>"), should a template print one past
// the str guard (with printf, say).
func policyCollapse(s string) string {
	if strings.IndexByte(s, '<') >= 0 {
		for _, junk := range []string{"<no value>", "<nil>"} {
			s = strings.ReplaceAll(s, junk, "")
		}
	}
	if policyCollapsed(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	space := false
	for i := 0; i < len(s); {
		c, n := s[i], 1
		drop, white := false, false
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f':
			white = true
		case c < ' ' || c == 0x7f:
			drop = true
		case c >= utf8.RuneSelf:
			var r rune
			r, n = utf8.DecodeRuneInString(s[i:])
			white = unicode.IsSpace(r)
			drop = unicode.IsControl(r) || r == utf8.RuneError && n == 1
		}
		switch {
		case white:
			space = b.Len() > 0
		case !drop:
			if space {
				b.WriteByte(' ')
				space = false
			}
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// policyCollapsed reports whether s has no white space but single spaces
// between words.
func policyCollapsed(s string) bool {
	if s == "" {
		return true
	}
	if s[0] == ' ' || s[len(s)-1] == ' ' {
		return false
	}
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if s[i+1] == ' ' {
				return false
			}
		case c < ' ' || c == 0x7f:
			return false // a tab, a newline, a control character
		case c >= utf8.RuneSelf:
			r, n := utf8.DecodeRuneInString(s[i:])
			if unicode.IsSpace(r) || unicode.IsControl(r) || r == utf8.RuneError {
				return false
			}
			i += n - 1
		}
	}
	return true
}

// PolicyError is a policy that does not load: where, and why.
type PolicyError struct {
	// File is the file name given to ParsePolicy, or LoadPolicy's path.
	File string
	// Line is the line in the file, from 1; 0 when the problem has none.
	Line int
	// Rule is the rule's position, from 1; 0 for the policy as a whole.
	Rule int
	// RuleName is the rule's name, when it has one.
	RuleName string
	// Field is the setting at fault ("when", "actions", "max_attempts"),
	// when there is one.
	Field string
	// Reason says what is wrong.
	Reason string
}

// Error reads "FILE:LINE: rule N (NAME): FIELD: REASON".
func (e *PolicyError) Error() string {
	var b strings.Builder
	b.WriteString(e.File)
	if e.Line > 0 {
		b.WriteString(":" + strconv.Itoa(e.Line))
	}
	b.WriteString(": ")
	if e.Rule > 0 {
		b.WriteString("rule " + strconv.Itoa(e.Rule))
		if e.RuleName != "" {
			b.WriteString(" (" + e.RuleName + ")")
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Reason)
	return b.String()
}

// The YAML document.

type policyDoc struct {
	Version     *int            `yaml:"version"`
	MaxAttempts *int            `yaml:"max_attempts"`
	Rules       []policyRuleDoc `yaml:"rules"`
}

type policyRuleDoc struct {
	Name        string   `yaml:"name"`
	When        *string  `yaml:"when"`
	Default     bool     `yaml:"default"`
	Actions     []string `yaml:"actions"`
	NextAction  string   `yaml:"next_action"`
	Severity    string   `yaml:"severity"`
	Message     *string  `yaml:"message"`
	Suggestions []string `yaml:"suggestions"`
}

// policyLines knows where things are in the YAML file.
type policyLines struct {
	top   map[string]int   // top-level key → line
	rules []map[string]int // per rule: key (and "key[i]" in a list) → line of its value; "" → the rule's
	names []string         // per rule: its name, when it is a string
	end   int              // the first line after the rules
}

// rule returns the line of rule i's setting ("when", "actions[1]"), of
// the setting's list when the item is not there, or of the rule itself.
func (l policyLines) rule(i int, key string) int {
	if i < 0 || i >= len(l.rules) {
		return l.top["rules"]
	}
	for {
		if n, ok := l.rules[i][key]; ok {
			return n
		}
		k, _, indexed := strings.Cut(key, "[")
		if !indexed {
			return l.rules[i][""]
		}
		key = k
	}
}

// ruleAt returns the index of the rule that holds line, or -1.
func (l policyLines) ruleAt(line int) int {
	if line >= l.end {
		return -1
	}
	at := -1
	for i, r := range l.rules {
		if r[""] <= line {
			at = i
		}
	}
	return at
}

var (
	policyYAMLLine     = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	policyYAMLTypeLine = regexp.MustCompile(`^line (\d+): (.*)$`)
	policyUnknownField = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// policyDecode parses data twice: into nodes, for syntax errors and for
// the line of every rule and setting; then into policyDoc with KnownFields,
// for unknown fields and wrong types.
func policyDecode(file string, data []byte) (doc policyDoc, lines policyLines, err error) {
	defer func() {
		// The YAML decoder reports errors by panicking internally; should
		// one ever escape, it is a bad file, not a crash.
		if v := recover(); v != nil {
			err = &PolicyError{File: file, Reason: fmt.Sprintf("invalid YAML: %v", v)}
		}
	}()
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	switch err := dec.Decode(&root); {
	case errors.Is(err, io.EOF):
		return doc, lines, &PolicyError{File: file, Reason: "the policy is empty"}
	case err != nil:
		return doc, lines, policyYAMLError(file, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return doc, lines, &PolicyError{File: file, Line: extra.Line, Reason: "more than one YAML document"}
	case !errors.Is(err, io.EOF):
		return doc, lines, policyYAMLError(file, data, err)
	}
	lines = policyNodeLines(&root)

	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&doc); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return doc, lines, policyYAMLError(file, data, err)
		}
		errs := make([]error, 0, len(te.Errors))
		for _, msg := range te.Errors {
			errs = append(errs, policyTypeError(file, lines, msg))
		}
		return doc, lines, policyJoinErrs(errs)
	}
	return doc, lines, nil
}

// policyYAMLError reports a YAML syntax error at its line. The YAML parser
// counts some of its lines from 0: when the lines before the one it names
// parse cleanly, the error is on the next one.
func policyYAMLError(file string, data []byte, err error) error {
	msg := err.Error()
	if m := policyYAMLLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		var n yaml.Node
		if yaml.Unmarshal(policyFirstLines(data, line), &n) == nil {
			line++
		}
		return &PolicyError{File: file, Line: line, Reason: "invalid YAML: " + m[2]}
	}
	return &PolicyError{File: file, Reason: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// policyFirstLines returns the first n lines of data.
func policyFirstLines(data []byte, n int) []byte {
	end := 0
	for ; n > 0 && end < len(data); n-- {
		i := bytes.IndexByte(data[end:], '\n')
		if i < 0 {
			return data
		}
		end += i + 1
	}
	return data[:end]
}

// policyTypeError turns one of yaml.TypeError's messages ("line 7: field
// whn not found in type handler.policyRuleDoc") into a PolicyError that
// names the rule and the setting, and speaks of the policy, not of Go.
func policyTypeError(file string, lines policyLines, msg string) error {
	e := &PolicyError{File: file, Reason: msg}
	if m := policyYAMLTypeLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Reason = m[2]
	}
	rule := -1
	if e.Line > 0 {
		rule = lines.ruleAt(e.Line)
	}
	keys := lines.top
	if rule >= 0 {
		e.Rule, e.RuleName = rule+1, lines.names[rule]
		keys = lines.rules[rule]
	}
	// The setting whose value is on the line, when only one is.
	for k, line := range keys {
		if k != "" && k != "rules" && line == e.Line {
			if e.Field != "" {
				e.Field = ""
				break
			}
			e.Field = k
		}
	}
	switch m := policyUnknownField.FindStringSubmatch(e.Reason); {
	case m != nil && rule >= 0:
		e.Field, e.Reason = "", fmt.Sprintf("unknown field %q; a rule has name, when, default, actions, next_action, severity, message and suggestions", m[1])
	case m != nil:
		e.Field, e.Reason = "", fmt.Sprintf("unknown field %q; a policy has version, max_attempts and rules", m[1])
	default:
		if m := policyGoType.FindStringSubmatch(e.Reason); m != nil {
			if want, ok := policyGoTypeNames[m[1]]; ok {
				e.Reason = strings.TrimSuffix(e.Reason, m[0]) + " into " + want
			}
		}
	}
	return e
}

var (
	policyGoType      = regexp.MustCompile(` into (\S+)$`)
	policyGoTypeNames = map[string]string{
		"[]string": "a list of strings", "string": "a string", "*string": "a string",
		"int": "an integer", "*int": "an integer", "bool": "true or false",
		"handler.policyRuleDoc": "a rule (a mapping)", "[]handler.policyRuleDoc": "a list of rules",
		"handler.policyDoc": "a policy (a mapping)",
	}
)

func policyNodeLines(root *yaml.Node) policyLines {
	l := policyLines{top: map[string]int{}, end: math.MaxInt}
	n := root
	if n.Kind == yaml.DocumentNode && len(n.Content) > 0 {
		n = n.Content[0]
	}
	if n.Kind != yaml.MappingNode {
		return l
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		l.top[k.Value] = k.Line
		if k.Value != "rules" || v.Kind != yaml.SequenceNode {
			continue
		}
		for _, item := range v.Content {
			keys, name := map[string]int{"": item.Line}, ""
			if item.Kind == yaml.MappingNode {
				for j := 0; j+1 < len(item.Content); j += 2 {
					k, v := item.Content[j], item.Content[j+1]
					keys[k.Value] = v.Line
					if v.Kind == yaml.SequenceNode {
						for n, e := range v.Content {
							keys[k.Value+"["+strconv.Itoa(n)+"]"] = e.Line
						}
					}
					if k.Value == "name" && v.Kind == yaml.ScalarNode {
						name = v.Value
					}
				}
			}
			l.rules = append(l.rules, keys)
			l.names = append(l.names, name)
		}
	}
	if at, ok := l.top["rules"]; ok {
		for _, line := range l.top {
			if line > at && line < l.end {
				l.end = line
			}
		}
	}
	return l
}

// Compilation.

type policyCompiler struct {
	file  string
	lines policyLines
	known []string // the actions a rule may name
	errs  []error
}

func (c *policyCompiler) fail(rule int, name, field, format string, args ...any) {
	line := c.lines.top[field]
	if rule > 0 {
		line = c.lines.rule(rule-1, field)
	}
	c.errs = append(c.errs, &PolicyError{File: c.file, Line: line, Rule: rule, RuleName: name, Field: field,
		Reason: fmt.Sprintf(format, args...)})
}

var policyRuleName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`)

func (c *policyCompiler) compile(doc policyDoc) *Policy {
	p := &Policy{name: c.file, maxAttempts: policyDefaultMaxAttempts}
	switch {
	case doc.Version == nil:
		c.fail(0, "", "version", "missing; this format is version 1")
	case *doc.Version != 1:
		c.fail(0, "", "version", "version %d is not supported; this format is version 1", *doc.Version)
	}
	if doc.MaxAttempts != nil {
		if *doc.MaxAttempts < 1 {
			c.fail(0, "", "max_attempts", "must be at least 1, not %d", *doc.MaxAttempts)
		} else {
			p.maxAttempts = *doc.MaxAttempts
		}
	}
	env, err := policyEnv()
	if err != nil { // a bug in this file, not in the policy
		c.errs = append(c.errs, fmt.Errorf("policy: the CEL environment: %w", err))
		return nil
	}
	if len(doc.Rules) == 0 {
		c.fail(0, "", "rules", "no rules; a policy needs at least a final catch-all rule (default: true)")
		return nil
	}
	seen := map[string]int{}
	used := map[string]bool{}
	for i, rd := range doc.Rules {
		r, ok := c.rule(env, i+1, rd, seen)
		last := i+1 == len(doc.Rules)
		switch {
		case r.always && !last:
			c.fail(r.index, r.name, c.alwaysField(rd), "always matches, so the %d rule(s) after it would never run; make it the last rule", len(doc.Rules)-i-1)
		case last && !r.always && r.whenOK:
			c.fail(r.index, r.name, "when",
				"the last rule must always match (default: true, or when: \"true\"), so that every report gets a decision")
		}
		if !ok {
			continue
		}
		for _, a := range r.actions {
			used[a] = true
		}
		p.rules = append(p.rules, r)
	}
	for a := range used {
		p.actions = append(p.actions, a)
	}
	slices.Sort(p.actions)
	return p
}

func (c *policyCompiler) alwaysField(rd policyRuleDoc) string {
	if rd.Default {
		return "default"
	}
	return "when"
}

// rule compiles one rule. It reports false, having recorded why, when the
// rule has errors; whether the rule always matches is known even then.
func (c *policyCompiler) rule(env *cel.Env, index int, rd policyRuleDoc, seen map[string]int) (*policyRule, bool) {
	before := len(c.errs)
	r := &policyRule{index: index, name: rd.Name}
	fail := func(field, format string, args ...any) { c.fail(index, rd.Name, field, format, args...) }

	switch {
	case rd.Name == "":
		fail("name", "missing")
	case !policyRuleName.MatchString(rd.Name):
		fail("name", "%q: use letters, digits, '_', '-' and '.', at most 64", rd.Name)
	case seen[rd.Name] > 0:
		fail("name", "%q is already the name of rule %d", rd.Name, seen[rd.Name])
	default:
		seen[rd.Name] = index
	}

	switch {
	case rd.When != nil && rd.Default:
		fail("when", "set when or default: true, not both")
	case rd.Default:
		r.always, r.whenOK = true, true
	case rd.When == nil:
		fail("when", "missing; give a CEL condition, or default: true for the catch-all rule")
	case strings.TrimSpace(*rd.When) == "":
		fail("when", "empty; give a CEL condition, or default: true for the catch-all rule")
	default:
		r.always, r.program, r.whenOK = c.when(env, *rd.When, fail)
	}

	for i, a := range rd.Actions {
		switch {
		case !slices.Contains(c.known, a):
			fail(fmt.Sprintf("actions[%d]", i), "unknown action %q; the actions are %s", a, strings.Join(c.known, ", "))
		case slices.Contains(r.actions, a):
			fail(fmt.Sprintf("actions[%d]", i), "%q is listed twice", a)
		default:
			r.actions = append(r.actions, a)
		}
	}

	r.next = triage.NextAction(rd.NextAction)
	switch {
	case rd.NextAction == "":
		fail("next_action", "missing; one of resume, await_user, escalate")
	case !r.next.Valid():
		fail("next_action", "%q is not one of resume, await_user, escalate", rd.NextAction)
	}
	r.severity = triage.Severity(rd.Severity)
	switch {
	case rd.Severity == "":
		fail("severity", "missing; one of low, medium, high, critical")
	case !r.severity.Valid():
		fail("severity", "%q is not one of low, medium, high, critical", rd.Severity)
	}

	if rd.Message == nil || strings.TrimSpace(*rd.Message) == "" {
		fail("message", "missing; every rule tells the user something")
	} else {
		r.text = c.text(append([]string{*rd.Message}, rd.Suggestions...), fail)
	}
	return r, len(c.errs) == before
}

// when compiles a condition: it must type-check and be a bool. It reports
// whether the condition is the literal true.
func (c *policyCompiler) when(env *cel.Env, src string, fail func(field, format string, args ...any)) (always bool, prg cel.Program, ok bool) {
	ast, iss := env.Compile(src)
	if iss.Err() != nil {
		for _, e := range iss.Errors() {
			msg := strings.ReplaceAll(e.Message, " (in container '')", "")
			fail("when", "%d:%d: %s", e.Location.Line(), e.Location.Column()+1, msg)
		}
		return false, nil, false
	}
	if t := ast.OutputType(); !t.IsExactType(cel.BoolType) {
		fail("when", "must be a bool expression, not %s", t)
		return false, nil, false
	}
	if e := ast.NativeRep().Expr(); e.Kind() == celast.LiteralKind && e.AsLiteral() == types.True {
		return true, nil, true
	}
	prg, err := env.Program(ast, cel.EvalOptions(cel.OptOptimize))
	if err != nil {
		fail("when", "%v", err)
		return false, nil, false
	}
	return false, prg, true
}

// text compiles a rule's message and suggestions into one template. It
// parses them one at a time first, so that an error names its part; then
// guards the output and tries the template on an empty report, so that a
// template that cannot work fails at load rather than on the first report.
func (c *policyCompiler) text(parts []string, fail func(field, format string, args ...any)) *policyText {
	t := &policyText{parts: len(parts)}
	var src strings.Builder
	line := 1
	for i, p := range parts {
		if i > 0 {
			// The comment prints nothing and starts the part on a line of
			// its own, so that an error's line tells the part.
			src.WriteString(policyPartSep + "{{/*\n*/}}")
			line++
		}
		t.starts = append(t.starts, line)
		line += strings.Count(p, "\n")
		src.WriteString(p)
		if _, err := policyTemplate(src.String()); err != nil {
			field, reason := t.locate(err)
			fail(field, "%s", reason)
			return nil
		}
	}
	tmpl, _ := policyTemplate(src.String())
	if len(tmpl.Templates()) == 1 && policyStatic(tmpl.Root) {
		// Plain text (comments and trim markers aside): render it once.
		var out strings.Builder
		_ = tmpl.Execute(&out, nil)
		t.static = strings.SplitN(out.String(), policyPartSep, t.parts)
		return t
	}
	t.tmpl, t.needs = tmpl, policyNeedsOf(tmpl)
	t.fast = len(tmpl.Templates()) == 1 && policyFastOK(tmpl.Root)
	empty := newPolicyVars(&PolicyInput{Report: &triage.Report{}, Attempt: 1}, 1).templateData(policyNeedAll)
	if _, err := t.render(empty); err != nil {
		field, reason, _ := strings.Cut(err.Error(), ": ")
		fail(field, "fails on a report with an empty context: %s", reason)
		return nil
	}
	return t
}

// policyStatic reports whether a template is plain text.
func policyStatic(root *parse.ListNode) bool {
	for _, n := range root.Nodes {
		if n.Type() != parse.NodeText {
			return false
		}
	}
	return true
}

func policyTemplate(src string) (*template.Template, error) {
	t, err := template.New("policy").Funcs(policyFuncs).Option("missingkey=default").Parse(src)
	if err != nil {
		return nil, err
	}
	for _, tt := range t.Templates() {
		if tt.Tree != nil {
			policyGuardPrints(tt.Root)
		}
	}
	return t, nil
}

// policyGuardPrints ends the pipeline of every printing action with str,
// as html/template adds its escapers, so that a missing key, nil, a map or
// a Go value prints as nothing, never as "<no value>" or "map[…]". A
// pipeline that ends in a function returning text needs no guard.
func policyGuardPrints(n parse.Node) {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return
		}
		for _, c := range n.Nodes {
			policyGuardPrints(c)
		}
	case *parse.ActionNode:
		if len(n.Pipe.Decl) > 0 {
			return // an assignment prints nothing
		}
		if last := n.Pipe.Cmds[len(n.Pipe.Cmds)-1]; len(last.Args) > 0 {
			if id, ok := last.Args[0].(*parse.IdentifierNode); ok && policyPrintsText[id.Ident] {
				return
			}
		}
		n.Pipe.Cmds = append(n.Pipe.Cmds, &parse.CommandNode{
			NodeType: parse.NodeCommand,
			Pos:      n.Pos,
			Args:     []parse.Node{parse.NewIdentifier("str").SetPos(n.Pos)},
		})
	case *parse.IfNode:
		policyGuardPrints(n.List)
		policyGuardPrints(n.ElseList)
	case *parse.RangeNode:
		policyGuardPrints(n.List)
		policyGuardPrints(n.ElseList)
	case *parse.WithNode:
		policyGuardPrints(n.List)
		policyGuardPrints(n.ElseList)
	}
}

// Rendering without reflection.
//
// text/template calls every function by reflection, which costs a rich
// message several microseconds. policyFastExecute walks a template's parse
// tree itself, for the subset of text/template the policies use (text,
// actions, if, with, range over a list, variables, fields of maps, the
// policy functions, string, bool and integer literals) and with its
// semantics: what is true, what a missing key gives, what prints. A
// template outside the subset always runs on text/template; so does any
// execution the fast path cannot finish exactly as text/template would (a
// field of a string, an argument of the wrong type, printing a non-string):
// it stops, and text/template runs instead, giving the same output or its
// own error. FuzzPolicyFastPath checks that the two agree.

// policyNoValueT is text/template's invalid value: what a missing key
// gives, and what a nil becomes at the end of a pipeline.
type policyNoValueT struct{}

var policyNoValue any = policyNoValueT{}

// errPolicySlow says text/template must run instead.
var errPolicySlow = errors.New("policy: template needs text/template")

// A policyParam is the type of a function's parameter, as text/template
// checks it: anything (a missing value becomes nil), or exactly a string,
// an int or a bool.
type policyParam uint8

const (
	policyAny policyParam = iota
	policyString
	policyInt
	policyBool
)

// policyFastFunc is a template function called directly: its parameters
// (the last repeated when variadic) and the call.
type policyFastFunc struct {
	params   []policyParam
	variadic bool
	call     func(args []any) any
}

var policyFastFuncs = map[string]policyFastFunc{
	"str":        {[]policyParam{policyAny}, false, func(a []any) any { return policyStr(a[0]) }},
	"list":       {[]policyParam{policyAny}, true, func(a []any) any { return policyList(a...) }},
	"first":      {[]policyParam{policyAny}, true, func(a []any) any { return policyFirst(a...) }},
	"pick":       {[]policyParam{policyAny, policyString}, false, func(a []any) any { return policyPick(a[0], a[1].(string)) }},
	"pickList":   {[]policyParam{policyAny, policyString}, false, func(a []any) any { return policyPickList(a[0], a[1].(string)) }},
	"default":    {[]policyParam{policyAny, policyAny}, true, func(a []any) any { return policyDefaultValue(a[0], a[1:]...) }},
	"join":       {[]policyParam{policyAny, policyString}, false, func(a []any) any { return policyJoin(a[0], a[1].(string)) }},
	"choices":    {[]policyParam{policyAny, policyString}, false, func(a []any) any { return policyChoices(a[0], a[1].(string)) }},
	"take":       {[]policyParam{policyInt, policyAny}, false, func(a []any) any { return policyTake(a[0].(int), a[1]) }},
	"quote":      {[]policyParam{policyAny}, false, func(a []any) any { return policyQuote(a[0]) }},
	"human":      {[]policyParam{policyAny}, false, func(a []any) any { return policyHuman(a[0]) }},
	"capitalize": {[]policyParam{policyAny}, false, func(a []any) any { return policyCapitalize(a[0]) }},
	"lower":      {[]policyParam{policyAny}, false, func(a []any) any { return policyLower(a[0]) }},
	"oneOf": {[]policyParam{policyAny, policyString}, true, func(a []any) any {
		opts := make([]string, len(a)-1)
		for i, o := range a[1:] {
			opts[i] = o.(string)
		}
		return policyOneOf(a[0], opts...)
	}},
	"timeLike":  {[]policyParam{policyAny}, true, func(a []any) any { return policyTimeLike(a...) }},
	"altChart":  {[]policyParam{policyAny, policyBool}, false, func(a []any) any { return policyAltChart(a[0], a[1].(bool)) }},
	"frequency": {[]policyParam{policyAny}, false, func(a []any) any { return policyFrequency(a[0]) }},
	"duration":  {[]policyParam{policyAny}, false, func(a []any) any { return policyDuration(a[0]) }},
}

// policyFastOK reports whether policyFastExecute can execute a tree.
func policyFastOK(n parse.Node) bool {
	switch n := n.(type) {
	case *parse.ListNode:
		if n == nil {
			return true
		}
		for _, c := range n.Nodes {
			if !policyFastOK(c) {
				return false
			}
		}
		return true
	case *parse.TextNode, *parse.CommentNode:
		return true
	case *parse.ActionNode:
		return policyFastPipeOK(n.Pipe, 1)
	case *parse.IfNode:
		return policyFastPipeOK(n.Pipe, 1) && policyFastOK(n.List) && policyFastOK(n.ElseList)
	case *parse.WithNode:
		return policyFastPipeOK(n.Pipe, 1) && policyFastOK(n.List) && policyFastOK(n.ElseList)
	case *parse.RangeNode:
		return (len(n.Pipe.Decl) == 0 || !n.Pipe.IsAssign) && policyFastPipeOK(n.Pipe, 2) &&
			policyFastOK(n.List) && policyFastOK(n.ElseList)
	}
	return false // template, break, continue
}

func policyFastPipeOK(p *parse.PipeNode, maxDecl int) bool {
	if p == nil || len(p.Decl) > maxDecl || len(p.Cmds) == 0 {
		return false
	}
	for i, c := range p.Cmds {
		if len(c.Args) == 0 {
			return false
		}
		if id, ok := c.Args[0].(*parse.IdentifierNode); ok {
			if _, known := policyFastFuncs[id.Ident]; !known {
				return false // a builtin (eq, printf, …) or an unknown function
			}
		} else if len(c.Args) > 1 || i > 0 {
			return false // arguments to a non-function: text/template's error
		}
		for j, a := range c.Args {
			if j == 0 {
				if _, ok := a.(*parse.IdentifierNode); ok {
					continue
				}
			}
			if !policyFastArgOK(a) {
				return false
			}
		}
	}
	return true
}

func policyFastArgOK(a parse.Node) bool {
	switch a := a.(type) {
	case *parse.FieldNode, *parse.VariableNode, *parse.DotNode, *parse.StringNode, *parse.BoolNode:
		return true
	case *parse.NumberNode:
		return a.IsInt && strings.Trim(a.Text, "0123456789") == "" && int64(int(a.Int64)) == a.Int64
	case *parse.PipeNode:
		return len(a.Decl) == 0 && policyFastPipeOK(a, 0)
	}
	return false // a chain, nil, a function called without arguments
}

// policyFastState is one execution.
type policyFastState struct {
	w     *bytes.Buffer
	vars  []policyFastVar
	stack []any // the arguments of the calls under way
}

type policyFastVar struct {
	name  string
	value any
}

// policyFastExecute executes root on data into w, or returns errPolicySlow
// (having written part of the output) when text/template must run instead.
func policyFastExecute(w *bytes.Buffer, root *parse.ListNode, data map[string]any) error {
	var vars [8]policyFastVar
	s := policyFastState{w: w, vars: append(vars[:0], policyFastVar{"$", data}), stack: make([]any, 0, 16)}
	return s.walk(data, root)
}

func (s *policyFastState) walk(dot any, n parse.Node) error {
	switch n := n.(type) {
	case *parse.ListNode:
		for _, c := range n.Nodes {
			if err := s.walk(dot, c); err != nil {
				return err
			}
		}
	case *parse.TextNode:
		s.w.Write(n.Text)
	case *parse.CommentNode:
	case *parse.ActionNode:
		v, err := s.pipeline(dot, n.Pipe)
		if err != nil || len(n.Pipe.Decl) > 0 {
			return err
		}
		switch v := v.(type) {
		case string:
			s.w.WriteString(v)
		case policyNoValueT:
			s.w.WriteString("<no value>")
		default:
			return errPolicySlow // fmt's formatting: text/template's job
		}
	case *parse.IfNode:
		return s.ifOrWith(dot, n.Pipe, n.List, n.ElseList, false)
	case *parse.WithNode:
		return s.ifOrWith(dot, n.Pipe, n.List, n.ElseList, true)
	case *parse.RangeNode:
		return s.rangeList(dot, n)
	default:
		return errPolicySlow
	}
	return nil
}

func (s *policyFastState) ifOrWith(dot any, p *parse.PipeNode, list, elseList *parse.ListNode, with bool) error {
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	v, err := s.pipeline(dot, p)
	if err != nil {
		return err
	}
	truth, ok := policyTruth(v)
	switch {
	case !ok:
		return errPolicySlow
	case truth && with:
		return s.walk(v, list)
	case truth:
		return s.walk(dot, list)
	case elseList != nil:
		return s.walk(dot, elseList)
	}
	return nil
}

func (s *policyFastState) rangeList(dot any, r *parse.RangeNode) error {
	mark := len(s.vars)
	defer func() { s.vars = s.vars[:mark] }()
	v, err := s.pipeline(dot, r.Pipe)
	if err != nil {
		return err
	}
	var n int
	var item func(int) any
	switch v := v.(type) {
	case []string:
		n, item = len(v), func(i int) any { return v[i] }
	case []any:
		n, item = len(v), func(i int) any { return v[i] }
	case policyNoValueT:
	default:
		return errPolicySlow // a map, an integer, a string: text/template's job
	}
	if n == 0 {
		if r.ElseList != nil {
			return s.walk(dot, r.ElseList)
		}
		return nil
	}
	top := len(s.vars)
	for i := range n {
		elem := item(i)
		switch len(r.Pipe.Decl) {
		case 2:
			s.vars[top-2].value, s.vars[top-1].value = i, elem
		case 1:
			s.vars[top-1].value = elem
		}
		err := s.walk(elem, r.List)
		s.vars = s.vars[:top]
		if err != nil {
			return err
		}
	}
	return nil
}

// pipeline evaluates p, as text/template's evalPipeline: each command's
// value is the next one's final argument; nil becomes no value.
func (s *policyFastState) pipeline(dot any, p *parse.PipeNode) (any, error) {
	v, final := policyNoValue, false
	for _, c := range p.Cmds {
		var err error
		if v, err = s.command(dot, c, v, final); err != nil {
			return nil, err
		}
		final = true
	}
	if v == nil {
		v = policyNoValue
	}
	for _, d := range p.Decl {
		if !p.IsAssign {
			s.vars = append(s.vars, policyFastVar{d.Ident[0], v})
			continue
		}
		i := s.lookup(d.Ident[0])
		if i < 0 {
			return nil, errPolicySlow
		}
		s.vars[i].value = v
	}
	return v, nil
}

func (s *policyFastState) command(dot any, c *parse.CommandNode, final any, hasFinal bool) (any, error) {
	id, ok := c.Args[0].(*parse.IdentifierNode)
	if !ok {
		return s.arg(dot, c.Args[0])
	}
	f := policyFastFuncs[id.Ident]
	n := len(c.Args) - 1
	if hasFinal {
		n++
	}
	if f.variadic && n < len(f.params)-1 || !f.variadic && n != len(f.params) {
		return nil, errPolicySlow // text/template's arity error
	}
	// The arguments go on the stack; an argument's own calls use the
	// stack above them. No function keeps its arguments.
	base := len(s.stack)
	defer func() { s.stack = s.stack[:base] }()
	for i, a := range c.Args[1:] {
		v, err := s.arg(dot, a)
		if err != nil {
			return nil, err
		}
		s.stack = append(s.stack[:base+i], v)
	}
	if hasFinal {
		s.stack = append(s.stack[:base+n-1], final)
	}
	args := s.stack[base : base+n]
	for i, a := range args {
		param := f.params[min(i, len(f.params)-1)]
		if args[i], ok = policyFastConvert(a, param); !ok {
			return nil, errPolicySlow // text/template's type error
		}
	}
	return f.call(args), nil
}

// policyFastConvert checks an argument against its parameter as
// text/template does: no value is nil for an interface, an error for
// anything else; a string, an int or a bool must be exactly that.
func policyFastConvert(v any, p policyParam) (any, bool) {
	if p == policyAny {
		if _, none := v.(policyNoValueT); none {
			return nil, true
		}
		return v, true
	}
	var ok bool
	switch p {
	case policyString:
		_, ok = v.(string)
	case policyInt:
		_, ok = v.(int)
	case policyBool:
		_, ok = v.(bool)
	}
	return v, ok
}

func (s *policyFastState) arg(dot any, a parse.Node) (any, error) {
	switch a := a.(type) {
	case *parse.FieldNode:
		return policyFastFields(dot, a.Ident)
	case *parse.VariableNode:
		i := s.lookup(a.Ident[0])
		if i < 0 {
			return nil, errPolicySlow
		}
		return policyFastFields(s.vars[i].value, a.Ident[1:])
	case *parse.DotNode:
		return dot, nil
	case *parse.StringNode:
		return a.Text, nil
	case *parse.BoolNode:
		return a.True, nil
	case *parse.NumberNode:
		return int(a.Int64), nil
	case *parse.PipeNode:
		return s.pipeline(dot, a)
	}
	return nil, errPolicySlow
}

func (s *policyFastState) lookup(name string) int {
	for i := len(s.vars) - 1; i >= 0; i-- {
		if s.vars[i].name == name {
			return i
		}
	}
	return -1
}

// policyFastFields follows a chain of fields through maps, as text/template
// does with missingkey=default: a missing key gives no value, and a field
// of no value is no value; a field of anything but a map[string]any (a
// string, nil) is text/template's error.
func policyFastFields(v any, names []string) (any, error) {
	for _, name := range names {
		switch m := v.(type) {
		case policyNoValueT:
			return v, nil
		case map[string]any:
			var ok bool
			if v, ok = m[name]; !ok {
				v = policyNoValue
			}
		default:
			return nil, errPolicySlow
		}
	}
	return v, nil
}

// policyTruth is text/template's truth: the zero value of a type, an empty
// string, list or map, nil and no value are false; a struct is true.
func policyTruth(v any) (truth, ok bool) {
	switch v := v.(type) {
	case nil, policyNoValueT:
		return false, true
	case string:
		return v != "", true
	case bool:
		return v, true
	case int:
		return v != 0, true
	case float64:
		return v != 0, true
	case []string:
		return len(v) > 0, true
	case []any:
		return len(v) > 0, true
	case map[string]any:
		return len(v) > 0, true
	}
	rv := reflect.ValueOf(v) // text/template's isTrue, for the rest
	switch rv.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return rv.Len() > 0, true
	case reflect.Bool:
		return rv.Bool(), true
	case reflect.Complex64, reflect.Complex128:
		return rv.Complex() != 0, true
	case reflect.Chan, reflect.Func, reflect.Pointer, reflect.Interface:
		return !rv.IsNil(), true
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return rv.Int() != 0, true
	case reflect.Float32, reflect.Float64:
		return rv.Float() != 0, true
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return rv.Uint() != 0, true
	case reflect.Struct:
		return true, true
	}
	return false, false
}

// The CEL environment: the variables a condition sees. The report, the
// classification, the cause and the fault are typed objects, so a
// misspelt field (cause.cuase) fails at load; the context is a map of
// dyn, as agents send it.

type policyCELReport struct {
	AgentID   string         `cel:"agent_id"`
	ErrorType string         `cel:"error_type"`
	ErrorCode string         `cel:"error_code"`
	Message   string         `cel:"message"`
	QueryID   string         `cel:"query_id"`
	Context   map[string]any `cel:"context"`
}

type policyCELClassification struct {
	Type       string  `cel:"type"`
	Confidence float64 `cel:"confidence"`
	Method     string  `cel:"method"`
	Rule       string  `cel:"rule"`
}

type policyCELCause struct {
	Cause      string   `cel:"cause"`
	Confidence float64  `cel:"confidence"`
	Evidence   []string `cel:"evidence"`
}

type policyCELFault struct {
	Code         string `cel:"code"`
	Retryable    bool   `cel:"retryable"`
	RetryAfter   int64  `cel:"retry_after"` // whole seconds, rounded up
	HTTPStatus   int64  `cel:"http_status"`
	Category     string `cel:"category"`
	Domain       string `cel:"domain"`
	SessionValid bool   `cel:"session_valid"`
}

var policyEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		ext.NativeTypes(
			ext.ParseStructTags(true),
			cel.NativeTypeFor[policyCELReport](cel.NativeTypeAlias("triage.Report")),
			cel.NativeTypeFor[policyCELClassification](cel.NativeTypeAlias("triage.Classification")),
			cel.NativeTypeFor[policyCELCause](cel.NativeTypeAlias("triage.Cause")),
			cel.NativeTypeFor[policyCELFault](cel.NativeTypeAlias("triage.Fault")),
		),
		ext.Strings(),
		cel.OptionalTypes(),
		cel.CrossTypeNumericComparisons(true),
		cel.Variable("report", cel.ObjectType("triage.Report")),
		cel.Variable("error_type", cel.StringType),
		cel.Variable("error_code", cel.StringType),
		cel.Variable("message", cel.StringType),
		cel.Variable("context", cel.MapType(cel.StringType, cel.DynType)),
		cel.Variable("classification", cel.ObjectType("triage.Classification")),
		cel.Variable("cause", cel.ObjectType("triage.Cause")),
		cel.Variable("attempt", cel.IntType),
		cel.Variable("max_attempts", cel.IntType),
		cel.Variable("fault", cel.ObjectType("triage.Fault")),
	)
})

// policyVars is one input, as the conditions and the templates see it.
type policyVars struct {
	in          *PolicyInput
	maxAttempts int
	context     map[string]any
	report      policyCELReport
	class       policyCELClassification
	cause       policyCELCause
	fault       policyCELFault
	act         policyActivation
}

// policyNoContext stands in for a report without a context. Nothing writes
// to it.
var policyNoContext = map[string]any{}

func newPolicyVars(in *PolicyInput, maxAttempts int) *policyVars {
	v := &policyVars{in: in, maxAttempts: maxAttempts}
	r := in.Report
	if r == nil {
		r = &triage.Report{}
	}
	v.context = r.Data.Context
	if v.context == nil {
		v.context = policyNoContext
	}
	v.report = policyCELReport{AgentID: r.AgentID, ErrorType: string(r.Data.ErrorType), ErrorCode: r.Data.ErrorCode,
		Message: r.Data.Message, QueryID: r.Data.QueryID, Context: v.context}
	v.class = policyCELClassification{Type: string(in.Classification.Type), Confidence: in.Classification.Confidence,
		Method: in.Classification.Method, Rule: in.Classification.Rule}
	if v.class.Type == "" {
		v.class.Type = string(r.Data.ErrorType)
	}
	evidence := in.Cause.Evidence
	if evidence == nil {
		evidence = []string{}
	}
	v.cause = policyCELCause{Cause: in.Cause.Cause, Confidence: in.Cause.Confidence, Evidence: evidence}
	if f := in.Fault; f != nil {
		v.fault = policyCELFault{Code: string(f.Code), Retryable: f.Retryable, RetryAfter: fault.Seconds(f.RetryAfter),
			HTTPStatus: int64(f.HTTPStatus()), Category: string(f.Category), Domain: string(f.Domain), SessionValid: f.SessionValid}
	}
	v.act = policyActivation{v: v}
	return v
}

// policyActivation resolves the variables of a condition, adapting each to
// CEL once per Decide however many rules read it.
type policyActivation struct {
	v                                    *policyVars
	report, context, class, cause, fault ref.Val
	errorType, errorCode, message        ref.Val
	attempt, maxAttempts                 ref.Val
}

func (a *policyActivation) ResolveName(name string) (any, bool) {
	var slot *ref.Val
	switch name {
	case "report":
		slot = &a.report
	case "error_type":
		slot = &a.errorType
	case "error_code":
		slot = &a.errorCode
	case "message":
		slot = &a.message
	case "context":
		slot = &a.context
	case "classification":
		slot = &a.class
	case "cause":
		slot = &a.cause
	case "attempt":
		slot = &a.attempt
	case "max_attempts":
		slot = &a.maxAttempts
	case "fault":
		slot = &a.fault
	default:
		return nil, false
	}
	if *slot == nil {
		*slot = a.adapt(name)
	}
	return *slot, true
}

func (a *policyActivation) adapt(name string) ref.Val {
	v := a.v
	switch name {
	case "error_type":
		return types.String(v.class.Type)
	case "error_code":
		return types.String(v.report.ErrorCode)
	case "message":
		return types.String(v.report.Message)
	case "attempt":
		return types.Int(v.in.Attempt)
	case "max_attempts":
		return types.Int(v.maxAttempts)
	}
	env, _ := policyEnv() // built, or no policy would have compiled
	adapter := env.CELTypeAdapter()
	switch name {
	case "report":
		return adapter.NativeToValue(&v.report)
	case "context":
		return adapter.NativeToValue(v.context)
	case "classification":
		return adapter.NativeToValue(&v.class)
	case "cause":
		return adapter.NativeToValue(&v.cause)
	default: // "fault"
		return adapter.NativeToValue(&v.fault)
	}
}

func (a *policyActivation) Parent() interpreter.Activation { return nil }

// policyNeeds says which variables a template reads, so that Decide
// builds only those: one bit per variable, or policyNeedAll.
type policyNeeds uint16

// policyVarNames are the variables, in the order of their bits.
var policyVarNames = [...]string{"report", "error_type", "error_code", "message", "context", "classification",
	"cause", "attempt", "max_attempts", "fault"}

const policyNeedAll policyNeeds = 1<<len(policyVarNames) - 1

func (n *policyNeeds) add(name string) {
	if i := slices.Index(policyVarNames[:], name); i >= 0 {
		*n |= 1 << i
	}
}

// policyNeedsOf finds the variables a template reads: the fields of dot
// where dot is the data, and of $ anywhere. When it cannot tell (dot passed
// on whole, or templates defined within), it needs them all.
func policyNeedsOf(t *template.Template) policyNeeds {
	if len(t.Templates()) > 1 {
		return policyNeedAll
	}
	var n policyNeeds
	var walk func(node parse.Node, root bool)
	var pipe func(p *parse.PipeNode, root bool)
	arg := func(a parse.Node, root bool) {
		switch a := a.(type) {
		case *parse.FieldNode:
			if root {
				n.add(a.Ident[0])
			}
		case *parse.VariableNode:
			switch {
			case a.Ident[0] != "$":
			case len(a.Ident) > 1:
				n.add(a.Ident[1])
			default:
				n = policyNeedAll
			}
		case *parse.DotNode:
			if root {
				n = policyNeedAll
			}
		case *parse.ChainNode:
			walk(a.Node, root)
		case *parse.PipeNode:
			pipe(a, root)
		}
	}
	pipe = func(p *parse.PipeNode, root bool) {
		if p == nil {
			return
		}
		for _, c := range p.Cmds {
			for _, a := range c.Args {
				arg(a, root)
			}
		}
	}
	walk = func(node parse.Node, root bool) {
		switch x := node.(type) {
		case *parse.ListNode:
			if x != nil {
				for _, c := range x.Nodes {
					walk(c, root)
				}
			}
		case *parse.ActionNode:
			pipe(x.Pipe, root)
		case *parse.IfNode:
			pipe(x.Pipe, root)
			walk(x.List, root)
			walk(x.ElseList, root)
		case *parse.WithNode: // dot is the pipeline's value inside, unchanged in else
			pipe(x.Pipe, root)
			walk(x.List, false)
			walk(x.ElseList, root)
		case *parse.RangeNode:
			pipe(x.Pipe, root)
			walk(x.List, false)
			walk(x.ElseList, root)
		case *parse.TemplateNode:
			n = policyNeedAll
		default:
			arg(node, root)
		}
	}
	walk(t.Root, true)
	return n
}

// templateData is what a template sees, under the same names as the
// conditions; only the variables in needs are filled in.
func (v *policyVars) templateData(needs policyNeeds) map[string]any {
	data := make(map[string]any, 4)
	for i, name := range policyVarNames {
		if needs&(1<<i) == 0 {
			continue
		}
		switch name {
		case "report":
			data[name] = map[string]any{
				"agent_id": v.report.AgentID, "error_type": v.report.ErrorType, "error_code": v.report.ErrorCode,
				"message": v.report.Message, "query_id": v.report.QueryID, "context": v.context,
			}
		case "error_type":
			data[name] = v.class.Type
		case "error_code":
			data[name] = v.report.ErrorCode
		case "message":
			data[name] = v.report.Message
		case "context":
			data[name] = v.context
		case "classification":
			data[name] = map[string]any{
				"type": v.class.Type, "confidence": v.class.Confidence, "method": v.class.Method, "rule": v.class.Rule,
			}
		case "cause":
			data[name] = map[string]any{"cause": v.cause.Cause, "confidence": v.cause.Confidence, "evidence": v.cause.Evidence}
		case "attempt":
			data[name] = v.in.Attempt
		case "max_attempts":
			data[name] = v.maxAttempts
		case "fault":
			data[name] = map[string]any{
				"code": v.fault.Code, "retryable": v.fault.Retryable, "retry_after": v.fault.RetryAfter,
				"http_status": v.fault.HTTPStatus, "category": v.fault.Category, "domain": v.fault.Domain,
				"session_valid": v.fault.SessionValid,
			}
		}
	}
	return data
}

// policyPrintsText are the functions whose result needs no str guard:
// they return a string (or a number) that is fit to print.
var policyPrintsText = map[string]bool{
	"str": true, "first": true, "pick": true, "default": true, "join": true, "choices": true, "quote": true, "human": true,
	"capitalize": true, "lower": true, "frequency": true, "duration": true, "altChart": true,
	"len": true, "print": true, "printf": true, "println": true, "html": true, "js": true, "urlquery": true,
}

// The template functions. Each takes any value an agent's context may
// hold (a string, a number, a list, a map, nothing) and never fails.
var policyFuncs = template.FuncMap{
	"str":        policyStr,
	"list":       policyList,
	"first":      policyFirst,
	"pick":       policyPick,
	"pickList":   policyPickList,
	"default":    policyDefaultValue,
	"join":       policyJoin,
	"choices":    policyChoices,
	"take":       policyTake,
	"quote":      policyQuote,
	"human":      policyHuman,
	"capitalize": policyCapitalize,
	"lower":      policyLower,
	"oneOf":      policyOneOf,
	"timeLike":   policyTimeLike,
	"altChart":   policyAltChart,
	"frequency":  policyFrequency,
	"duration":   policyDuration,
}

// policyStr is v as text for a user: a list is joined with ", "; nil, a
// map, a struct or an error is nothing.
func policyStr(v any) string {
	switch x := v.(type) {
	case nil:
		return ""
	case string:
		return x
	case float64:
		return policyNumber(x)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case bool:
		return strconv.FormatBool(x)
	case []string, []any:
		return strings.Join(policyItems(x), ", ")
	case error:
		return "" // an error's text is internal
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.String:
		return rv.String()
	case reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return fmt.Sprint(v)
	case reflect.Float32, reflect.Float64:
		return policyNumber(rv.Float())
	case reflect.Slice, reflect.Array:
		return strings.Join(policyItems(v), ", ")
	}
	return ""
}

func policyNumber(f float64) string {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return ""
	}
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// policyItems is v as a list of non-empty strings: a list's items, or a
// single value as a list of one.
func policyItems(v any) []string {
	var out []string
	add := func(s string) {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	switch x := v.(type) {
	case nil:
		return nil
	case string:
		add(x)
		return out
	case []string:
		for _, s := range x {
			add(s)
		}
		return out
	case []any:
		for _, e := range x {
			if !policyIsList(e) {
				add(policyStr(e))
			}
		}
		return out
	}
	rv := reflect.ValueOf(v)
	if k := rv.Kind(); k == reflect.Slice || k == reflect.Array {
		if rv.Type().Elem().Kind() == reflect.Uint8 {
			return nil // bytes are not text
		}
		for i := range rv.Len() {
			if e := rv.Index(i).Interface(); !policyIsList(e) {
				add(policyStr(e))
			}
		}
		return out
	}
	add(policyStr(v))
	return out
}

func policyIsList(v any) bool {
	if v == nil {
		return false
	}
	k := reflect.TypeOf(v).Kind()
	return k == reflect.Slice || k == reflect.Array
}

// policyList returns the first of vs that is a non-empty list (a single
// value counts as a list of one): list .context.candidates .context.options.
func policyList(vs ...any) []string {
	for _, v := range vs {
		if items := policyItems(v); len(items) > 0 {
			return items
		}
	}
	return []string{}
}

// policyFirst returns the first of vs that is not empty, as text.
func policyFirst(vs ...any) string {
	for _, v := range vs {
		if s := strings.TrimSpace(policyStr(v)); s != "" {
			return s
		}
	}
	return ""
}

// policyPick returns the value in m of the first of keys, which are
// separated by "|", that is not empty, as text: pick .context
// "field|missing_field". (One string of keys, not several arguments: a
// template calls a function with fewer arguments faster.)
func policyPick(m any, keys string) string {
	c, _ := m.(map[string]any)
	for keys != "" {
		var k string
		k, keys, _ = strings.Cut(keys, "|")
		if s := strings.TrimSpace(policyStr(c[k])); s != "" {
			return s
		}
	}
	return ""
}

// policyPickList returns the value in m of the first of keys, which are
// separated by "|", that is a non-empty list (a single value counts as a
// list of one).
func policyPickList(m any, keys string) []string {
	c, _ := m.(map[string]any)
	for keys != "" {
		var k string
		k, keys, _ = strings.Cut(keys, "|")
		if items := policyItems(c[k]); len(items) > 0 {
			return items
		}
	}
	return []string{}
}

// policyDefaultValue is sprig's default: {{.context.x | default "it"}}.
func policyDefaultValue(def any, vs ...any) string {
	if s := policyFirst(vs...); s != "" {
		return s
	}
	return policyStr(def)
}

func policyJoin(v any, sep string) string { return strings.Join(policyItems(v), sep) }

// policyTake returns at most n items of the list v.
func policyTake(n int, v any) []string {
	items := policyItems(v)
	return items[:max(0, min(n, len(items)))]
}

// policyChoices lists alternatives for a question: "a, b or c". When every
// item starts with the same words, the later items drop all but the last
// of them: "revenue by month, by product or by region".
func policyChoices(v any, conj string) string {
	var items []string
	for _, s := range policyItems(v) {
		if !slices.ContainsFunc(items, func(o string) bool { return strings.EqualFold(o, s) }) {
			items = append(items, s)
		}
	}
	switch len(items) {
	case 0:
		return ""
	case 1:
		return items[0]
	}
	// The words all items start with, each item keeping one of its own.
	prefix := items[0]
	for _, s := range items[1:] {
		n := 0
		for n < len(prefix) && n < len(s) && prefix[n] == s[n] {
			n++
		}
		prefix = prefix[:n]
	}
	if i := strings.LastIndexByte(prefix, ' '); i >= 0 {
		prefix = prefix[:i+1] // whole words, and the space after them
	} else {
		prefix = ""
	}
	if strings.Count(strings.TrimSpace(prefix), " ") >= 1 { // two words or more
		// Keep the last shared word: "by product", not "product".
		cut := strings.LastIndexByte(strings.TrimRight(prefix, " "), ' ') + 1
		for i := 1; i < len(items); i++ {
			items[i] = items[i][cut:]
		}
	}
	var b strings.Builder
	for i, s := range items {
		switch {
		case i == len(items)-1:
			b.WriteString(" " + conj + " ")
		case i > 0:
			b.WriteString(", ")
		}
		b.WriteString(s)
	}
	return b.String()
}

// policyQuote puts v in typographic quotes, or returns nothing for nothing.
func policyQuote(v any) string {
	s := strings.Trim(policyStr(v), " \t\"'“”‘’")
	if s == "" {
		return ""
	}
	return "“" + s + "”"
}

// policyHuman makes an identifier readable: "date_range" → "date range".
func policyHuman(v any) string {
	return strings.Join(strings.FieldsFunc(policyStr(v), func(r rune) bool { return r == '_' || unicode.IsSpace(r) }), " ")
}

func policyLower(v any) string { return strings.ToLower(policyStr(v)) }

func policyCapitalize(v any) string {
	s := policyStr(v)
	r, n := utf8.DecodeRuneInString(s)
	if n == 0 {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}

// policyOneOf reports whether v is one of opts, ignoring case.
func policyOneOf(v any, opts ...string) bool {
	s := strings.TrimSpace(policyStr(v))
	return s != "" && slices.ContainsFunc(opts, func(o string) bool { return strings.EqualFold(o, s) })
}

var policyTimeWords = []string{"date", "time", "hour", "day", "week", "month", "quarter", "year"}

// policyTimeLike reports whether any of vs names a time dimension or grain
// ("date", "order_month", "weekly").
func policyTimeLike(vs ...any) bool {
	for _, v := range vs {
		s := strings.ToLower(policyStr(v))
		for _, w := range policyTimeWords {
			if strings.Contains(s, w) {
				return true
			}
		}
	}
	return false
}

// policyAltChart is the chart to offer instead of chart: for a time
// dimension line, area or bar; otherwise bar, pie or table; the first that
// is not chart.
func policyAltChart(chart any, timeDimension bool) string {
	alts := []string{"bar", "pie", "table"}
	if timeDimension {
		alts = []string{"line", "area", "bar"}
	}
	c := strings.ToLower(strings.TrimSpace(policyStr(chart)))
	for _, a := range alts {
		if a != c {
			return a
		}
	}
	return alts[0]
}

// policyFrequency is the adjective of a time grain: "month" → "monthly".
func policyFrequency(v any) string {
	switch strings.ToLower(strings.TrimSpace(policyStr(v))) {
	case "hour", "hourly":
		return "hourly"
	case "day", "daily", "date":
		return "daily"
	case "week", "weekly":
		return "weekly"
	case "month", "monthly":
		return "monthly"
	case "quarter", "quarterly":
		return "quarterly"
	case "year", "yearly", "annual":
		return "yearly"
	}
	return ""
}

// policyDuration says a number of seconds (or a time.Duration) in words,
// rounded up: 45 → "45 seconds", 90 → "2 minutes".
func policyDuration(v any) string {
	var secs float64
	switch x := v.(type) {
	case time.Duration:
		secs = x.Seconds()
	default:
		f, err := strconv.ParseFloat(policyStr(v), 64)
		if err != nil {
			return ""
		}
		secs = f
	}
	if !(secs > 0) || math.IsInf(secs, 0) {
		return ""
	}
	unit := func(n float64, name string) string {
		k := int64(math.Min(math.Ceil(n), 1e9))
		if k == 1 {
			return "1 " + name
		}
		return strconv.FormatInt(k, 10) + " " + name + "s"
	}
	switch {
	case secs < 60:
		return unit(secs, "second")
	case secs < 3600:
		return unit(secs/60, "minute")
	case secs < 2*86400:
		return unit(secs/3600, "hour")
	}
	return unit(secs/86400, "day")
}
