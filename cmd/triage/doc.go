// Command triage is Triage's command line.
//
//	triage codes [--format table|json]        print the error code table
//	triage classify [--debug] [--lines] TEXT  classify an error message (or standard input)
//	triage handle [--policy FILE] [--debug]   handle error reports from standard input: print the feedback
//	triage serve [flags]                      run the Error Handler service (HTTP API; SQLite by default)
//	triage version                            print the version
//	triage help                               print the usage
//
// 'triage COMMAND -h' lists a command's flags; every flag of serve may also
// come from its environment variable (docs/service.md). Unknown commands and
// flags print the usage and exit 2; a command that fails exits 1. The
// commands live in internal/cli; this package only connects the process to
// them.
package main
