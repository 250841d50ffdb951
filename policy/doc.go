// Package policy is the Error Handler's recovery policy: an ordered list of
// rules, written in YAML, each with a CEL condition over the report, its
// classification, root cause, attempt and fault, and what to do when it
// holds — the recovery actions to run, how the pipeline goes on
// (resume, await_user, escalate), a severity, and the user message and
// suggestions as text/template templates.
//
// Load and Parse compile a policy once: every condition is parsed,
// type-checked and planned, every template parsed and tried on an empty
// report, and every problem is reported at once as an *Error naming the
// file, line, rule and setting. Default is seed 004's scenario table.
// Policy.Decide returns the Decision of the first rule that holds; the last
// rule always holds, so every report gets one.
//
// The files are split by concern: policy.go (the types and Decide),
// yaml.go (the reader and its line map), compile.go (the compiler), cel.go
// (the CEL environment and variables), text.go and funcs.go (the templates
// and their functions), needs.go (which variables a rule reads), default.go
// (the default policy). The format is described in docs/policy.md.
package policy
