// Command triage is Triage's command line.
//
//	triage codes [--format table|json]        the error code table
//	triage classify [--debug] [--lines] TEXT  classify an error message, or standard input
//	triage version                            the version
//
// Unknown commands and flags print the usage and exit 2. The commands live in
// internal/cli; this package only connects the process to them.
package main
