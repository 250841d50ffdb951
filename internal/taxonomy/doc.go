// Package taxonomy renders the fault code table as docs/taxonomy.md. The
// table's facts come from fault.Codes; each code's prose is the doc comment
// of its constant in fault/codes.go, so the documentation and the godoc
// never disagree.
package taxonomy
