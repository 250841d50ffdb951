package policy

import (
	"bytes"
	_ "embed"
	"errors"
	"fmt"
	"io"
	"math"
	"regexp"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
)

// Error is a policy that does not load: where, and why.
type Error struct {
	// File is the file name given to Parse, or Load's path.
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
func (e *Error) Error() string {
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

type document struct {
	Version     *int               `yaml:"version"`
	MaxAttempts *int               `yaml:"max_attempts"`
	Codes       map[string]codeDoc `yaml:"codes"`
	Rules       []ruleDoc          `yaml:"rules"`
}

// codeDoc is one entry of the codes: section: what an agent error code
// says.
type codeDoc struct {
	Type  string `yaml:"type"`
	Fault string `yaml:"fault"`
}

type ruleDoc struct {
	Name        string   `yaml:"name"`
	When        *string  `yaml:"when"`
	Default     bool     `yaml:"default"`
	Actions     []string `yaml:"actions"`
	NextAction  string   `yaml:"next_action"`
	Severity    string   `yaml:"severity"`
	Message     *string  `yaml:"message"`
	Suggestions []string `yaml:"suggestions"`
}

// lineMap knows where things are in the YAML file.
type lineMap struct {
	top   map[string]int   // top-level key → line
	rules []map[string]int // per rule: key (and "key[i]" in a list) → line of its value; "" → the rule's
	names []string         // per rule: its name, when it is a string
	end   int              // the first line after the rules
	// codes: per code of the codes: section, its line ("CODE") and the
	// lines of its settings ("CODE.type", "CODE.fault").
	codes    map[string]int
	codesEnd int // the first line after the codes: section
}

// code returns the line of a code's setting, of the code, or of the
// section.
func (l lineMap) code(code, key string) int {
	if n, ok := l.codes[code+"."+key]; ok {
		return n
	}
	if n, ok := l.codes[code]; ok {
		return n
	}
	return l.top["codes"]
}

// codeAt returns the code of the codes: section whose entry holds line, and
// whether line is in the section at all.
func (l lineMap) codeAt(line int) (string, bool) {
	start, ok := l.top["codes"]
	if !ok || line < start || line >= l.codesEnd {
		return "", false
	}
	at, best := "", 0
	for k, n := range l.codes {
		if !strings.Contains(k, ".") && n <= line && n > best {
			at, best = k, n
		}
	}
	return at, true
}

// rule returns the line of rule i's setting ("when", "actions[1]"), of
// the setting's list when the item is not there, or of the rule itself.
func (l lineMap) rule(i int, key string) int {
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
func (l lineMap) ruleAt(line int) int {
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
	yamlLine     = regexp.MustCompile(`^yaml: line (\d+): (.*)$`)
	yamlTypeLine = regexp.MustCompile(`^line (\d+): (.*)$`)
	unknownField = regexp.MustCompile(`^field (\S+) not found in type \S+$`)
)

// decode parses data twice: into nodes, for syntax errors and for
// the line of every rule and setting; then into document with KnownFields,
// for unknown fields and wrong types.
func decode(file string, data []byte) (doc document, lines lineMap, err error) {
	defer func() {
		// The YAML decoder reports errors by panicking internally; should
		// one ever escape, it is a bad file, not a crash.
		if v := recover(); v != nil {
			err = &Error{File: file, Reason: fmt.Sprintf("invalid YAML: %v", v)}
		}
	}()
	var root yaml.Node
	dec := yaml.NewDecoder(bytes.NewReader(data))
	switch err := dec.Decode(&root); {
	case errors.Is(err, io.EOF):
		return doc, lines, &Error{File: file, Reason: "the policy is empty"}
	case err != nil:
		return doc, lines, yamlError(file, data, err)
	}
	var extra yaml.Node
	switch err := dec.Decode(&extra); {
	case err == nil:
		return doc, lines, &Error{File: file, Line: extra.Line, Reason: "more than one YAML document"}
	case !errors.Is(err, io.EOF):
		return doc, lines, yamlError(file, data, err)
	}
	lines = nodeLines(&root)

	strict := yaml.NewDecoder(bytes.NewReader(data))
	strict.KnownFields(true)
	if err := strict.Decode(&doc); err != nil {
		var te *yaml.TypeError
		if !errors.As(err, &te) {
			return doc, lines, yamlError(file, data, err)
		}
		errs := make([]error, 0, len(te.Errors))
		for _, msg := range te.Errors {
			errs = append(errs, typeError(file, lines, msg))
		}
		return doc, lines, joinErrs(errs)
	}
	return doc, lines, nil
}

// yamlError reports a YAML syntax error at its line. The YAML parser
// counts some of its lines from 0: when the lines before the one it names
// parse cleanly, the error is on the next one.
func yamlError(file string, data []byte, err error) error {
	msg := err.Error()
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		line, _ := strconv.Atoi(m[1])
		var n yaml.Node
		if yaml.Unmarshal(firstLines(data, line), &n) == nil {
			line++
		}
		return &Error{File: file, Line: line, Reason: "invalid YAML: " + m[2]}
	}
	return &Error{File: file, Reason: "invalid YAML: " + strings.TrimPrefix(msg, "yaml: ")}
}

// firstLines returns the first n lines of data.
func firstLines(data []byte, n int) []byte {
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

// typeError turns one of yaml.TypeError's messages ("line 7: field
// whn not found in type policy.ruleDoc") into an *Error that
// names the rule and the setting, and speaks of the policy, not of Go.
func typeError(file string, lines lineMap, msg string) error {
	e := &Error{File: file, Reason: msg}
	if m := yamlTypeLine.FindStringSubmatch(msg); m != nil {
		e.Line, _ = strconv.Atoi(m[1])
		e.Reason = m[2]
	}
	rule, code, inCodes := -1, "", false
	if e.Line > 0 {
		rule = lines.ruleAt(e.Line)
		code, inCodes = lines.codeAt(e.Line)
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
	if inCodes {
		rule, e.Field = -1, "codes"
		if code != "" {
			e.Field = "codes." + code
		}
	}
	switch m := unknownField.FindStringSubmatch(e.Reason); {
	case m != nil && inCodes:
		e.Field, e.Reason = "", fmt.Sprintf("unknown field %q; a code has type and fault", m[1])
		if code != "" {
			e.Field = "codes." + code
		}
	case m != nil && rule >= 0:
		e.Field, e.Reason = "", fmt.Sprintf("unknown field %q; a rule has name, when, default, actions, next_action, severity, message and suggestions", m[1])
	case m != nil:
		e.Field, e.Reason = "", fmt.Sprintf("unknown field %q; a policy has version, max_attempts, codes and rules", m[1])
	default:
		if m := goType.FindStringSubmatch(e.Reason); m != nil {
			if want, ok := goTypeNames[m[1]]; ok {
				e.Reason = strings.TrimSuffix(e.Reason, m[0]) + " into " + want
			}
		}
	}
	return e
}

var (
	goType      = regexp.MustCompile(` into (\S+)$`)
	goTypeNames = map[string]string{
		"[]string": "a list of strings", "string": "a string", "*string": "a string",
		"int": "an integer", "*int": "an integer", "bool": "true or false",
		// yaml names Go types as %T prints them; derived, so a rename cannot break them.
		fmt.Sprintf("%T", ruleDoc{}): "a rule (a mapping)", fmt.Sprintf("%T", []ruleDoc{}): "a list of rules",
		fmt.Sprintf("%T", document{}): "a policy (a mapping)",
		fmt.Sprintf("%T", codeDoc{}):  "a code (a mapping with type and fault)", fmt.Sprintf("%T", map[string]codeDoc{}): "a mapping of codes",
	}
)

func nodeLines(root *yaml.Node) lineMap {
	l := lineMap{top: map[string]int{}, end: math.MaxInt, codes: map[string]int{}, codesEnd: math.MaxInt}
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
		if k.Value == "codes" && v.Kind == yaml.MappingNode {
			for j := 0; j+1 < len(v.Content); j += 2 {
				ck, cv := v.Content[j], v.Content[j+1]
				l.codes[ck.Value] = ck.Line
				if cv.Kind != yaml.MappingNode {
					continue
				}
				for s := 0; s+1 < len(cv.Content); s += 2 {
					l.codes[ck.Value+"."+cv.Content[s].Value] = cv.Content[s+1].Line
				}
			}
		}
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
	if at, ok := l.top["codes"]; ok {
		for _, line := range l.top {
			if line > at && line < l.codesEnd {
				l.codesEnd = line
			}
		}
	}
	return l
}
