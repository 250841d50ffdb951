// Package acpagent is Triage's own Agent Client Protocol agent: a worker
// that serves ACP over a pair of streams, so that the worker pool
// (agent/acp), its tests and the README have a real agent to talk to. It is
// built on the ACP SDK's agent side (github.com/coder/acp-go-sdk); nothing
// of the protocol is written by hand, except the deliberately broken
// answers the directives below ask for.
//
// `triage worker` calls Run with the process's standard input and output:
//
//	err := acpagent.Run(ctx, os.Stdin, os.Stdout)
//
// # What it does
//
// The worker answers initialize (ACP version 1), creates sessions on
// session/new (random ids, kept until the connection ends) and answers
// session/prompt by echoing "You said: <prompt>" as several
// agent_message_chunk updates, one word each, with a pause of Config.Delay
// after each chunk. It honours session/cancel: the turn stops streaming and
// answers with the stop reason "cancelled". A cancel stops the prompts sent
// before it, even one that it follows at once on the wire (whose turn may
// not have begun), and never one sent after it. A prompt on a session it
// does not know fails with SESSION_NOT_FOUND.
//
// # Directives
//
// A prompt that starts with one of these words makes the worker misbehave,
// for the failure tests of the pool. Anything else is echoed.
//
//	fail with CODE      answer with a JSON-RPC error built from the fault
//	                    code CODE (fail with RATE_LIMITED): code, message and
//	                    data as wire/jsonrpc writes them, so data.code names
//	                    CODE and data.retryable its retryability
//	hang                stream nothing and never answer until the turn is
//	                    cancelled (then answer "cancelled")
//	crash               stream one chunk, then end the process with
//	                    Config.Exit(3) (os.Exit by default)
//	malformed           stream the echo, then answer with a line that is not
//	                    JSON (a response cut short after its id)
//	refuse              stream the echo, then answer with the stop reason
//	                    "refusal" (the agent declined to go on)
//	bad stop reason     stream the echo, then answer with the stop reason
//	                    "exploded", which ACP does not define
//	bad result          stream the echo, then answer with a result whose
//	                    stopReason is a number
//	stray TEXT          write TEXT (or a sentence of its own) to the output as
//	                    a line that is not JSON-RPC, then echo
//	log TEXT            write TEXT as a line to Config.Stderr, then echo
//	request permission  ask the client for permission and stream its answer
//	                    ("permission: cancelled" or "permission: <option id>")
//	read file PATH      ask the client to read PATH (fs/read_text_file) and
//	                    stream "read: <content>" or "read refused: <code>"
//	write file PATH     the same with fs/write_text_file
//	terminal            ask the client for a terminal (terminal/create) and
//	                    stream "terminal: <id>" or "terminal refused: <code>"
//	pid                 stream "pid: <the process id>", so that a test can
//	                    check that the process is gone once stopped
//
// Two more behaviours are set for the whole process, by Config or, for
// Run, by the environment:
//
//	TRIAGE_WORKER_FAIL_START=1    Config.FailStart: Run returns an error at
//	                              once, before reading anything; the
//	                              process exits non-zero at start
//	TRIAGE_WORKER_NO_SESSION_ID=1 Config.NoSessionID: session/new answers
//	                              without a session id (an empty one)
//	TRIAGE_WORKER_DELAY=20ms      Config.Delay, a Go duration; DefaultDelay
//	                              when unset, and 0 streams without pausing
package acpagent
