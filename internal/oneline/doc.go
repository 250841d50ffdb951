// Package oneline puts text on one line as strings.Fields and a join with
// single spaces do, without their two allocations for text that is on one
// line already, which most of what the handler writes is: a report's
// message, a policy's sentence, an action's note.
package oneline
