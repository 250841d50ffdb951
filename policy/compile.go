package policy

import (
	_ "embed"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"sync"

	"cel.dev/cel-go/cel"
	celast "cel.dev/cel-go/common/ast"
	"cel.dev/cel-go/common/types"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/classify"
	"github.com/triage-go/triage/fault"
)

// Compilation.

type compiler struct {
	file  string
	lines lineMap
	known []string // the actions a rule may name
	errs  []error
}

func (c *compiler) fail(rule int, name, field, format string, args ...any) {
	line := c.lines.top[field]
	if rule > 0 {
		line = c.lines.rule(rule-1, field)
	}
	c.errs = append(c.errs, &Error{File: c.file, Line: line, Rule: rule, RuleName: name, Field: field,
		Reason: fmt.Sprintf(format, args...)})
}

var ruleNamePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$`) })

func (c *compiler) compile(doc document) *Policy {
	p := &Policy{name: c.file, maxAttempts: defaultMaxAttempts}
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
	p.codes = c.codes(doc.Codes)
	env, err := celEnv()
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

var codePattern = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_.:-]{0,63}$`) })

// codes checks the codes: section and returns the default agent codes
// with its entries merged over them.
func (c *compiler) codes(docs map[string]codeDoc) classify.Codes {
	if len(docs) == 0 {
		return classify.DefaultCodes()
	}
	fail := func(code, key, format string, args ...any) {
		field := "codes." + code
		if key != "" {
			field += "." + key
		}
		c.errs = append(c.errs, &Error{File: c.file, Line: c.lines.code(code, key), Field: field,
			Reason: fmt.Sprintf(format, args...)})
	}
	names := slices.Sorted(maps.Keys(docs))
	over := make(classify.Codes, len(docs))
	seen := map[string]string{}
	for _, code := range names {
		d := docs[code]
		upper := strings.ToUpper(code)
		switch {
		case !codePattern().MatchString(code):
			fail(code, "", "%q: use letters, digits, '_', '-', '.' and ':', at most 64", code)
			continue
		case seen[upper] != "":
			fail(code, "", "%q repeats %q: codes are matched in any case", code, seen[upper])
			continue
		}
		seen[upper] = code
		spec := classify.CodeSpec{Type: triage.ErrorType(d.Type), Fault: fault.Code(d.Fault)}
		ok := true
		switch {
		case d.Type == "":
			fail(code, "type", "missing; one of %s", typeNames())
			ok = false
		case !spec.Type.Valid():
			fail(code, "type", "%q is not one of %s", d.Type, typeNames())
			ok = false
		}
		switch {
		case d.Fault == "":
			fail(code, "fault", "missing; a code of the taxonomy (docs/taxonomy.md), such as TIMEOUT")
			ok = false
		case !spec.Fault.Known():
			fail(code, "fault", "%q is not a code of the taxonomy (docs/taxonomy.md)", d.Fault)
			ok = false
		}
		if ok {
			over[upper] = spec
		}
	}
	return classify.DefaultCodes().Merge(over)
}

// typeNames lists the canonical types, for errors.
func typeNames() string {
	var names []string
	for _, t := range triage.ErrorTypes() {
		names = append(names, string(t))
	}
	return strings.Join(names, ", ")
}

func (c *compiler) alwaysField(rd ruleDoc) string {
	if rd.Default {
		return "default"
	}
	return "when"
}

// rule compiles one rule. It reports false, having recorded why, when the
// rule has errors; whether the rule always matches is known even then.
func (c *compiler) rule(env *cel.Env, index int, rd ruleDoc, seen map[string]int) (*rule, bool) {
	before := len(c.errs)
	r := &rule{index: index, name: rd.Name}
	fail := func(field, format string, args ...any) { c.fail(index, rd.Name, field, format, args...) }

	switch {
	case rd.Name == "":
		fail("name", "missing")
	case !ruleNamePattern().MatchString(rd.Name):
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
func (c *compiler) when(env *cel.Env, src string, fail func(field, format string, args ...any)) (always bool, prg cel.Program, ok bool) {
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
