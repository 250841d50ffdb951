package classify

import (
	"regexp"

	"github.com/triage-go/triage"
)

// messageRules classify a message when neither the report's type nor its
// code decides: regular expressions over "CODE: message", the first that
// matches wins. They name the canonical type; the fault code of free text
// is fault.ClassifyText's business.
var messageRules = []struct {
	name string
	re   *regexp.Regexp
	typ  triage.ErrorType
}{
	{"ambiguous", regexp.MustCompile(`(?i)\bambiguous\b|\bunclear\b|could mean|which (?:one|metric|field) did you mean|did you mean|too vague|incomplete (?:request|question)`), triage.InputError},
	{"missing_field", regexp.MustCompile(`(?i)(?:field|column|metric|dimension|table)\s+["'\x60]?[\w.]+["'\x60]?\s+(?:not found|does not exist|is unknown|missing)|unknown (?:field|column|metric|dimension|table)|no such (?:field|column|table)`), triage.SchemaError},
	{"chart", regexp.MustCompile(`(?i)(?:pie|bar|line|scatter|area|map|heat ?map)\s+chart|chart type|cannot (?:render|display|plot)|not (?:suitable|supported) for (?:this|the) (?:chart|data)`), triage.ChartError},
	{"query", regexp.MustCompile(`(?i)\b(?:query|sql|statement)\b.*(?:timed? ?out|timeout|failed|error)|deadlock|syntax error (?:at|near)|\bdb timeout\b|database timeout`), triage.QueryError},
	{"outage", regexp.MustCompile(`(?i)service (?:is )?(?:down|unavailable)|temporarily unavailable|connection refused|\boutage\b|\b50[23]\b|no healthy upstream|could not connect`), triage.SystemError},
	{"invalid_value", regexp.MustCompile(`(?i)\binvalid (?:date|range|value|filter|limit|currency|format)\b|out of range|must be (?:positive|between|before|after|a valid)|end date (?:is )?before`), triage.ValidationError},
}
