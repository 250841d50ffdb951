// Command triage is Triage's command line.
//
//	triage codes [--format table|json]        print the error code table
//	triage classify [--debug] [--lines] TEXT  classify an error message (or standard input)
//	triage handle [--policy FILE] [--debug]   handle error reports from standard input: print the feedback
//	triage serve [flags]                      run the Error Handler service (HTTP API and /mcp; SQLite by default)
//	triage bridge [flags]                     serve the MCP agentic bridge over standard input and output
//	triage worker                             serve Triage's ACP worker agent over standard input and output
//	triage version                            print the version
//	triage help                               print the usage
//
// 'triage COMMAND -h' lists a command's flags; every flag of serve and bridge
// may also come from its environment variable (docs/service.md, docs/bridge.md). Unknown commands and
// flags print the usage and exit 2; a command that fails exits 1. The
// commands live in cmd/triage/internal/cli; this package only connects the process to
// them, and gives serve the dashboard to serve at / (package web's
// embedded build; docs/dashboard.md).
package main
