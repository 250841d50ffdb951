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
// again. Close closes the workers' input, kills those still running after
// StopTimeout, and waits for every process and goroutine.
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
//	  (command missing, exits at start,             (cause wrapped; exit status and stderr tail in Debug)
//	  initialize fails or times out)
//	bus.request() throws error                    UPSTREAM_ERROR "Worker {workerId} failed: {operation}",
//	                                                not retryable unless the error's data says retryable,
//	                                                session valid unless it says sessionValid: false
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
// The SDK logs a line from the worker that is not JSON and reads on, so a
// request whose answer it was would wait for its timeout. The pool reads
// the worker's output through a filter that finds such lines, and answers
// that are JSON but do not decode as the expected result, and attributes
// them to the request they answer (by the JSON-RPC id it reads in the
// line): that request fails at once with PROTOCOL_ERROR. A line that names
// no request fails every request in flight on that worker. The worker
// stays up: a broken line does not end the connection.
package acp
