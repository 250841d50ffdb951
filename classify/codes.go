package classify

import (
	"maps"
	"strings"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// CodeSpec is what an error code the pipeline's agents send says: the
// canonical type of its report and the fault it amounts to.
type CodeSpec struct {
	Type  triage.ErrorType
	Fault fault.Code
}

// Codes is a table of agent error codes, by code in upper case. It is
// data: DefaultCodes gives Triage's own, and a policy's codes: section
// adds to them or overrides them (see Merge).
type Codes map[string]CodeSpec

// defaultCodes are the agent error codes Triage knows. Seed 004 names
// DB_TIMEOUT, FIELD_NOT_FOUND, INCOMPATIBLE_CHART_TYPE, AMBIGUOUS_INPUT and
// SERVICE_DOWN; the rest are their common siblings. It is the one table of
// agent codes: DefaultCodes hands out copies.
var defaultCodes = Codes{
	"DB_TIMEOUT":       {triage.QueryError, fault.Timeout},
	"QUERY_TIMEOUT":    {triage.QueryError, fault.Timeout},
	"QUERY_FAILED":     {triage.QueryError, fault.UpstreamError},
	"SQL_SYNTAX_ERROR": {triage.QueryError, fault.UpstreamError},
	"DEADLOCK":         {triage.QueryError, fault.ServiceUnavailable},
	"TOO_MANY_ROWS":    {triage.QueryError, fault.PayloadTooLarge},
	"RESULT_TOO_LARGE": {triage.QueryError, fault.PayloadTooLarge},

	"FIELD_NOT_FOUND":  {triage.SchemaError, fault.InvalidRequest},
	"COLUMN_NOT_FOUND": {triage.SchemaError, fault.InvalidRequest},
	"UNKNOWN_FIELD":    {triage.SchemaError, fault.InvalidRequest},
	"UNKNOWN_METRIC":   {triage.SchemaError, fault.InvalidRequest},
	"TABLE_NOT_FOUND":  {triage.SchemaError, fault.InvalidRequest},
	"SCHEMA_MISMATCH":  {triage.SchemaError, fault.InvalidRequest},

	"INCOMPATIBLE_CHART_TYPE": {triage.ChartError, fault.InvalidRequest},
	"UNSUPPORTED_CHART":       {triage.ChartError, fault.InvalidRequest},
	"TOO_MANY_SERIES":         {triage.ChartError, fault.InvalidRequest},
	"CHART_RENDER_FAILED":     {triage.ChartError, fault.AgentExecutionError},

	"AMBIGUOUS_INPUT":   {triage.InputError, fault.InvalidRequest},
	"INCOMPLETE_INPUT":  {triage.InputError, fault.InvalidRequest},
	"EMPTY_INPUT":       {triage.InputError, fault.InvalidRequest},
	"UNPARSEABLE_INPUT": {triage.InputError, fault.InvalidRequest},
	"UNKNOWN_INTENT":    {triage.InputError, fault.InvalidRequest},

	"SERVICE_DOWN":        {triage.SystemError, fault.ServiceUnavailable},
	"SERVICE_UNAVAILABLE": {triage.SystemError, fault.ServiceUnavailable},
	"CONNECTION_REFUSED":  {triage.SystemError, fault.TransportError},
	"CONNECTION_ERROR":    {triage.SystemError, fault.TransportError},
	"UPSTREAM_ERROR":      {triage.SystemError, fault.UpstreamError},
	"RATE_LIMITED":        {triage.SystemError, fault.RateLimited},
	"INTERNAL_ERROR":      {triage.SystemError, fault.InternalError},
	"OUT_OF_MEMORY":       {triage.SystemError, fault.InternalError},

	"INVALID_DATE_RANGE":   {triage.ValidationError, fault.InvalidRequest},
	"INVALID_VALUE":        {triage.ValidationError, fault.InvalidRequest},
	"VALUE_OUT_OF_RANGE":   {triage.ValidationError, fault.InvalidRequest},
	"INVALID_FILTER":       {triage.ValidationError, fault.InvalidRequest},
	"INVALID_LIMIT":        {triage.ValidationError, fault.InvalidRequest},
	"VALIDATION_FAILED":    {triage.ValidationError, fault.InvalidRequest},
	"MISSING_PARAMETER":    {triage.ValidationError, fault.InvalidRequest},
	"UNSUPPORTED_CURRENCY": {triage.ValidationError, fault.InvalidRequest},
}

// DefaultCodes returns a copy of the agent error codes Triage knows
// (docs/handler.md lists them): DB_TIMEOUT is a query_error and a TIMEOUT
// fault, FIELD_NOT_FOUND a schema_error and INVALID_REQUEST, and so on.
func DefaultCodes() Codes { return maps.Clone(defaultCodes) }

// Lookup returns what code says; the code is matched in any case.
func (c Codes) Lookup(code string) (CodeSpec, bool) {
	s, ok := c[strings.ToUpper(code)]
	return s, ok
}

// Merge returns a new table: c with over's entries added, each replacing
// the entry of the same code (in any case). Neither table changes.
func (c Codes) Merge(over Codes) Codes {
	out := make(Codes, len(c)+len(over))
	maps.Copy(out, c)
	for code, s := range over {
		out[strings.ToUpper(code)] = s
	}
	return out
}
