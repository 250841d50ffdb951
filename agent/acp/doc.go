// Package acp runs a pool of Agent Client Protocol (ACP) worker processes
// and speaks the client side of ACP to them over their standard input and
// output, with the ACP SDK (github.com/coder/acp-go-sdk): initialize,
// session/new, session/prompt with its streamed session/update chunks, and
// session/cancel. It is the worker executor of seed 002, and every failure
// it reports is a *fault.Error.
//
//	pool, err := acp.Start(ctx, acp.Config{Command: []string{"triage", "worker"}, Workers: 2, Source: "echo"})
//	if err != nil {
//		return err // TRANSPORT_ERROR "Failed to start worker"
//	}
//	defer pool.Close()
//	id, err := pool.NewSession(ctx)
//	...
//	stop, err := pool.Prompt(ctx, id, "hello", func(chunk string) { fmt.Print(chunk) })
//
// # Workers
//
// Start spawns Config.Workers processes (each in a process group of its
// own, with a minimal environment) and initializes them; a new session goes
// to the live worker with the fewest sessions. A worker's stderr lines go to
// Config.Logger at debug level, redacted and cut to 1 KiB; they never reach
// a fault's Message. When a worker exits, its sessions are gone and the pool
// respawns it in the background, with backoff, so that new sessions work
// again; the warning it logs says how the worker exited (exit="exit status
// 7", exit="signal: killed"), and a failed respawn's says why, as a start
// fault's details do.
//
// Close stops the pool as ACP asks a client to stop a turn: each prompt in
// flight is sent session/cancel and its worker given the shorter of
// CancelGrace and StopTimeout to answer; then the workers' input is
// closed, those still running StopTimeout later (or whose output has
// ended) are killed with their process groups, and Close waits for every
// process and goroutine. The prompts it cancels fail as TRANSPORT_ERROR
// "Worker {id} exited" (SessionValid false): their sessions end with the
// pool.
//
// The pool is a client without an editor: it tells workers it has no file
// system and no terminal, refuses those requests (method not found), and
// answers a permission request with its reject option, or cancelled.
//
// # Faults
//
// Every fault has Source and details.agentId set to Config.Source and,
// where a worker is involved, details.workerId ("w1", "w2", ...) and
// details.operation. Seed 002's WorkerExecutor table maps as follows:
//
//	seed 002                                      Triage fault
//	start() fails to create StdioBus              TRANSPORT_ERROR "Failed to start worker", retryable
//	  (command missing, exits at start,             (cause wrapped; details.reason says which, details.exit
//	  initialize fails or times out)                how it exited, workerErrorCode and workerErrorMessage
//	                                                its answer to initialize; stderr tail in Debug)
//	bus.request() throws error                    UPSTREAM_ERROR "Worker {workerId} failed: {operation}",
//	                                                not retryable unless the error's data says retryable,
//	                                                session valid unless it says sessionValid: false;
//	                                                details.workerErrorCode and workerErrorMessage are the
//	                                                worker's own (the message redacted, cut to 512 bytes)
//	bus.request() times out                       TIMEOUT, category TRANSPORT, "Worker {workerId} timed
//	                                                out", retryable; a prompt is sent session/cancel and
//	                                                its session stays valid while the worker lives
//	prompt() called before start()                INTERNAL_ERROR "Executor not started" (also after Close)
//	Invalid worker response (missing sessionId)   PROTOCOL_ERROR, category UPSTREAM, "Invalid worker
//	                                                response: missing sessionId"
//	Malformed prompt result                       PROTOCOL_ERROR, category UPSTREAM, "Invalid worker
//	                                                response: malformed prompt result" (not JSON, not
//	                                                decodable, or a stop reason ACP does not define)
//
// and beyond the seed's table:
//
//	a worker exits during a request               TRANSPORT_ERROR "Worker {workerId} exited", retryable,
//	                                                SessionValid false; the worker's sessions are gone
//	unknown session (or lost with its worker)     SESSION_NOT_FOUND "Session not found: {sessionId}"
//	the caller cancels (ctx, Cancel, Forget)      CANCELLED; the worker is sent session/cancel
//	a second prompt on a busy session             SESSION_BUSY
//	Command empty                                 CONFIG_ERROR "Worker command is required"
//
// # Malformed output
//
// A line from a worker that is not JSON is handled as the ACP SDKs handle
// one: the pool logs it (a warning the 1st, 2nd, 4th, 8th... time, the
// line itself, redacted and cut, at debug level), counts it (Stats), answers
// it with a JSON-RPC parse error (-32700, id null) and reads on. A stray
// line (an agent printing a banner or a log line to its standard output)
// fails nothing: every prompt in flight on the worker, of any session, gets
// its answer. Only a line that is an answer cut short, an object with no
// method naming the JSON-RPC id of a request in flight, fails that request
// at once with PROTOCOL_ERROR; so does an answer that is JSON but does not
// decode as the expected result. A request whose whole answer was lost to a
// line naming nothing waits for its timeout. The worker stays up: a broken
// line does not end the connection.
package acp
