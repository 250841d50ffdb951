// Package logguard is the slog.Handler Triage's service and its agent
// workers log through: every string redacted (fault.Redact) and bounded,
// values rendered safely, and repeated warnings counted rather than
// written, so that what a client or a peer sends cannot make the logs an
// amplifier or a leak.
package logguard
