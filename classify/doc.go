// Package classify settles a report's canonical type (input_error,
// schema_error, query_error, chart_error, system_error, validation_error)
// and the fault it amounts to. It is the one home of that classification:
// the table of agent error codes, the message rules and the statistical
// model meet here, in one chain.
//
// # The chain
//
// A Chain tries small classifiers in order, and the first that decides
// wins; each returns a Result (the type, a confidence, the method and the
// rule that decided):
//
//	reported → error_code → fault → message → model → fault → default
//
// The type the agent reported; else its error code, looked up in Codes;
// else the fault it sent; else the message rules (regular expressions over
// the code and the message); else the text model (DefaultModel, a small
// naive Bayes classifier), when fairly sure; else the type the report's
// fault most likely has; else system_error with a low confidence. Steps
// lists the order.
//
// Chain.Fault gives the report's fault by the same table: data.fault when
// the agent sent one, else its code's fault, else fault.ClassifyText of the
// code and message. Go errors are classified by package fault (fault.From),
// not here.
//
// # Codes are data
//
// Codes maps an agent error code (DB_TIMEOUT) to its type and fault code
// (query_error, TIMEOUT). DefaultCodes is Triage's table; a recovery policy
// extends or overrides it in its codes: section (docs/policy.md), and
// policy.Policy.Codes returns the merged table a Chain is built with.
package classify
