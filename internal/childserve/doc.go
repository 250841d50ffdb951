// Package childserve starts a server as a child process and reads its
// address off its standard output: `triage serve` prints
// "listening on http://127.0.0.1:PORT …" once it accepts connections, and
// so does any program that follows the same line (loadbench's bare
// child). The harnesses that drive the real binary rather than the
// server in process, cmd/loadbench (-real) and cmd/campaign, start it
// this way, with --addr 127.0.0.1:0 so that the system picks the port.
//
// The child runs without the caller's TRIAGE_ variables (a harness sets
// the ones it means, in Options.Env), so that a developer's own settings
// cannot change what is measured. Its standard output is read to the end
// and discarded once the address is known; its standard error goes where
// Options.Stderr says (a log file, typically).
package childserve
