// Package cli is the triage command: its subcommands, flags and output. The
// binary in cmd/triage only calls Run, so tests run the real command.
package cli
