package server

import "github.com/triage-go/triage/internal/apidoc"

// The parts of the operations' descriptions (operations.go) that several
// share: their problems, their paging and their ranges.

// The problems every authenticated route shares.
var (
	opNoKey       = apidoc.Problem{Status: 401, Description: "No API key (TENANT_REQUIRED)."}
	opWrongKey    = apidoc.Problem{Status: 403, Description: "A wrong API key (TENANT_UNAUTHORIZED)."}
	opBodyTimeout = apidoc.Problem{Status: 408, Shared: "BodyTimeout"}
	opRateLimited = apidoc.Problem{Status: 429, Shared: "RateLimited"}
	opBusy        = apidoc.Problem{Status: 503, Shared: "Busy"}
)

// The paging parameters of a list, and its problems.
var (
	opLimit = apidoc.Param{Name: "limit", In: "query", Description: "Page size.", Schema: apidoc.Obj{
		"type":    "integer",
		"minimum": 1,
		"maximum": 500,
		"default": 50,
	}}
	opCursor = apidoc.Param{Name: "cursor", In: "query", Description: "next_cursor of the previous page.", Schema: apidoc.Obj{
		"type": "string",
	}}
	opListProblems = []apidoc.Problem{
		{Status: 400, Description: "An invalid filter or cursor; errors lists every parameter."},
		opNoKey,
		opWrongKey,
		opRateLimited,
		opBusy,
	}
)

// opCountParams are the range of a series of counts.
var opCountParams = []apidoc.Param{
	{Name: "bucket", In: "query", Description: "The buckets: hours, or UTC days.", Schema: apidoc.Obj{
		"type":    "string",
		"enum":    apidoc.List{"hour", "day"},
		"default": "hour",
	}},
	{Name: "since", In: "query", Description: "The range's start, down to its bucket's. Default: a day before until (hour buckets), 30 days (day buckets).", Schema: apidoc.Obj{
		"type":   "string",
		"format": "date-time",
	}},
	{Name: "until", In: "query", Description: "The range's end, up to its bucket's end. Default: now. At most 744 buckets from since (31 days of hours).", Schema: apidoc.Obj{
		"type":   "string",
		"format": "date-time",
	}},
}

// opPutProblems are the problems of a PUT of one JSON document.
var opPutProblems = []apidoc.Problem{
	{Status: 400, Description: "Malformed JSON or an invalid path parameter."},
	opNoKey,
	opWrongKey,
	opBodyTimeout,
	{Status: 413, Description: "The body is over the limit."},
	{Status: 415, Description: "The body is not JSON."},
	{Status: 422, Description: "The document is invalid; errors lists every field."},
	opRateLimited,
	opBusy,
}

// opNoParamsProblems are the problems of a GET that takes no parameters.
var opNoParamsProblems = []apidoc.Problem{
	{Status: 400, Description: "A query parameter, or a malformed query string (INVALID_REQUEST)."},
	opNoKey,
	opWrongKey,
	opRateLimited,
	opBusy,
}

// opAlertPutProblems are the problems of a PUT of an alert rule or target.
var opAlertPutProblems = []apidoc.Problem{
	{Status: 400, Description: "Malformed JSON or an invalid path parameter."},
	opNoKey,
	opWrongKey,
	opBodyTimeout,
	{Status: 409, Description: "The tenant's alerts come from the service's alerts file: read-only here."},
	{Status: 413, Description: "The body is over the limit."},
	{Status: 415, Description: "The body is not JSON."},
	{Status: 422, Description: "The document is invalid (an unknown member too), or leaves the tenant's rules and targets invalid, or names a URL at a private address; errors lists every field."},
	opRateLimited,
	opBusy,
}

// opAlertDeleteProblems are the problems of a DELETE of an alert rule or
// target.
var opAlertDeleteProblems = []apidoc.Problem{
	{Status: 400, Description: "An invalid path parameter."},
	opNoKey,
	opWrongKey,
	{Status: 404, Description: "No such rule or target (NOT_FOUND)."},
	{Status: 409, Description: "The tenant's alerts come from the service's alerts file: read-only here."},
	opRateLimited,
	opBusy,
}

// opMCPParams are the headers of every /mcp request.
var opMCPParams = []apidoc.Param{
	{Name: "Mcp-Session-Id", In: "header", Description: "The session, from the initialize response's Mcp-Session-Id header; absent on initialize.", Schema: apidoc.Obj{"type": "string"}},
	{Name: "MCP-Protocol-Version", In: "header", Description: "The protocol version the session negotiated (2025-06-18, say); when absent or another supported one, the session's is used.", Schema: apidoc.Obj{"type": "string"}},
}
