package acp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/logguard"
)

// inheritedEnv is the part of the pool's environment a worker inherits;
// Config.Env is appended to it. Nothing else (no API key, no token) reaches
// a worker unless the configuration says so.
var inheritedEnv = []string{"PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TMPDIR", "TZ",
	"SYSTEMROOT", "COMSPEC", "PATHEXT", "TEMP", "TMP", "USERPROFILE", "APPDATA", "LOCALAPPDATA"}

func workerEnv(extra []string) []string {
	env := make([]string, 0, len(inheritedEnv)+len(extra))
	for _, k := range inheritedEnv {
		if v, ok := os.LookupEnv(k); ok {
			env = append(env, k+"="+v)
		}
	}
	return append(env, extra...)
}

// waitDelay bounds how long reaping a worker waits for its standard error
// to close once it has exited (a process it spawned may hold it), and how
// long the pool waits for its standard output to end.
const waitDelay = time.Second

// worker is one worker process and the SDK's client connection to it.
type worker struct {
	id      string
	slot    int
	pool    *Pool
	log     *slog.Logger
	started time.Time

	cmd    *exec.Cmd
	pid    int
	conn   *acpsdk.ClientSideConnection
	stdin  *os.File // the pool's end of the worker's standard input
	stdout *os.File // the pool's end of the worker's standard output
	stderr *stderrLog

	exited  chan struct{} // closed once the process has been reaped
	procMu  sync.Mutex
	reaped  bool
	exitErr error

	down     chan struct{} // closed when the worker is no longer to be used
	downOnce sync.Once
	dead     chan struct{} // closed once reaped, its pipes closed and the pool told

	newSem     chan struct{} // one session/new at a time: a malformed answer names its request
	pendingNew atomic.Int32  // sessions being created on it, for spreading them

	writeMu   sync.Mutex  // one write at a time to stdin: the SDK's messages and the pool's parse errors
	answering atomic.Bool // a parse error is on its way to the worker

	mu       sync.Mutex
	sessions map[string]*session
	turns    map[*turn]struct{} // the prompts on the wire, their sessions forgotten or not
	rpcs     map[string]*rpc    // the pool's requests on the wire, by JSON-RPC id
	sending  struct{ init, newSession *rpc }
}

// spawn starts the worker of a slot and initializes it, within
// StartTimeout. Its error is a fault: "Failed to start worker", or
// Cancelled when ctx was cancelled.
func (p *Pool) spawn(ctx context.Context, slot int) (*worker, error) {
	id := "w" + strconv.Itoa(slot+1)
	w := &worker{
		id: id, slot: slot, pool: p, log: p.log.With("workerId", id), started: time.Now(),
		exited: make(chan struct{}), down: make(chan struct{}), dead: make(chan struct{}),
		newSem: make(chan struct{}, 1), sessions: make(map[string]*session), turns: make(map[*turn]struct{}),
		rpcs: make(map[string]*rpc),
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, p.startFailed(id, err)
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, p.startFailed(id, err)
	}
	w.stderr = &stderrLog{log: w.log}
	cmd := exec.Command(p.cfg.Command[0], p.cfg.Command[1:]...)
	cmd.Env, cmd.Dir = p.env, p.dir
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, w.stderr
	cmd.WaitDelay = waitDelay
	ownGroup(cmd)
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, p.startFailed(id, &startError{reason: reasonSpawn, err: err})
	}
	w.cmd, w.pid, w.stdin, w.stdout = cmd, cmd.Process.Pid, inW, outR
	w.log = w.log.With("pid", w.pid)
	w.stderr.log = w.log
	p.wg.Add(2)
	go w.reap()
	in := newInTap(w, outR)
	w.conn = acpsdk.NewClientSideConnection(client{w}, outTap{w}, in)
	// The SDK puts raw wire lines and the peer's error text in its
	// records: every one at debug, its text made safe.
	debug := slog.LevelDebug
	w.conn.SetLogger(slog.New(logguard.New(w.log.Handler(), logguard.Config{Level: &debug})))
	close(in.open)
	go w.monitor()

	if err := w.initialize(ctx); err != nil {
		w.setDown()
		<-w.dead
		if errors.Is(context.Cause(ctx), context.Canceled) {
			return nil, p.cancelled(w, opInitialize, "", false, err)
		}
		dbg, _ := w.debug(0)
		if se, ok := err.(*startError); ok && se.reason == reasonExited {
			st, _ := w.exitStatus(0)
			dbg = append(dbg, fault.WithDetail("exit", st))
		}
		return nil, p.startFailed(id, err, dbg...)
	}
	w.log.Debug("worker started")
	return w, nil
}

// initialize negotiates ACP version 1 and tells the worker that the client
// has no file system and no terminal to offer. Its error is a *startError.
func (w *worker) initialize(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, w.pool.cfg.StartTimeout)
	defer cancel()
	ctx, abort := context.WithCancelCause(ctx)
	defer abort(nil)
	r := &rpc{op: opInitialize, abort: abort}
	w.mu.Lock()
	w.sending.init = r
	w.mu.Unlock()
	resp, err := w.conn.Initialize(ctx, acpsdk.InitializeRequest{
		ProtocolVersion:    acpsdk.ProtocolVersionNumber,
		ClientCapabilities: acpsdk.ClientCapabilities{Fs: acpsdk.FileSystemCapabilities{}},
		ClientInfo:         &acpsdk.Implementation{Name: "triage", Version: "1"},
	})
	w.forget(r)
	switch {
	case r.malformed.Load():
		return &startError{reason: reasonMalformed, err: errors.New("acp: malformed initialize result")}
	case err != nil && w.isDown():
		st, _ := w.exitStatus(waitDelay)
		return &startError{reason: reasonExited, err: fmt.Errorf("acp: worker exited during initialize (%s): %w", st, err)}
	case err != nil && errors.Is(ctx.Err(), context.DeadlineExceeded):
		return &startError{reason: reasonTimeout, err: fmt.Errorf("acp: initialize timed out after %v: %w", w.pool.cfg.StartTimeout, err)}
	case err != nil:
		return &startError{reason: reasonRefused, err: fmt.Errorf("acp: initialize: %w", err)}
	case resp.ProtocolVersion != acpsdk.ProtocolVersionNumber:
		return &startError{reason: reasonVersion, err: fmt.Errorf("acp: worker speaks ACP version %d, the pool version %d",
			resp.ProtocolVersion, acpsdk.ProtocolVersionNumber)}
	}
	return nil
}

// The reasons a worker does not start, as details.reason says them.
const (
	reasonSpawn     = "the command could not be started"
	reasonExited    = "the worker exited during initialize"
	reasonTimeout   = "initialize timed out"
	reasonRefused   = "the worker answered initialize with an error"
	reasonMalformed = "malformed initialize result"
	reasonVersion   = "the worker speaks another ACP version"
)

// startError is why a worker did not start: reason, one of the reasons
// above, and the error.
type startError struct {
	reason string
	err    error
}

func (e *startError) Error() string { return e.err.Error() }
func (e *startError) Unwrap() error { return e.err }

// reap waits for the process.
func (w *worker) reap() {
	defer w.pool.wg.Done()
	err := w.cmd.Wait()
	w.procMu.Lock()
	w.reaped, w.exitErr = true, err
	w.procMu.Unlock()
	close(w.exited)
}

// monitor waits for the worker to go: its output ends, its process exits,
// or the pool takes it down. Then it kills what is left, closes the pipes
// (which ends the SDK connection's goroutines) and tells the pool.
func (w *worker) monitor() {
	defer w.pool.wg.Done()
	select {
	case <-w.conn.Done():
	case <-w.exited:
	case <-w.down:
	}
	w.setDown()
	w.kill()
	<-w.exited
	t := time.NewTimer(waitDelay)
	select {
	case <-w.conn.Done():
	case <-t.C:
	}
	t.Stop()
	w.stdout.Close()
	w.stdin.Close()
	<-w.conn.Done()
	w.pool.workerDown(w)
	close(w.dead)
}

// stop ends the worker for Close: it closes the worker's input, which an
// ACP agent takes as the end of the connection, waits up to grace for it to
// exit, then kills it, and returns once it is gone.
func (w *worker) stop(grace time.Duration) {
	w.stdin.Close()
	t := time.NewTimer(grace)
	select {
	case <-w.exited:
	case <-t.C:
	}
	t.Stop()
	w.setDown()
	<-w.dead
}

// kill kills the worker's process group and the worker, unless it has been
// reaped (its ids may belong to another process by then).
func (w *worker) kill() {
	w.procMu.Lock()
	defer w.procMu.Unlock()
	if w.reaped {
		return
	}
	killGroup(w.pid)
	_ = w.cmd.Process.Kill()
}

func (w *worker) setDown() { w.downOnce.Do(func() { close(w.down) }) }

// isDown reports whether the worker is gone or going.
func (w *worker) isDown() bool {
	select {
	case <-w.down:
		return true
	case <-w.conn.Done():
		return true
	default:
		return false
	}
}

// exitStatus waits up to wait for the process to be reaped and describes
// how it ended ("exit status 3", "signal: killed"); the error says the
// worker exited, with that description.
func (w *worker) exitStatus(wait time.Duration) (string, error) {
	select {
	case <-w.exited:
	default:
		// Waiting for nothing must not race the timer against a process
		// that has been reaped: select picks either at random.
		t := time.NewTimer(wait)
		defer t.Stop()
		select {
		case <-w.exited:
		case <-t.C:
			return "", errDown
		}
	}
	st := "exit status 0"
	if w.exitErr != nil {
		st = w.exitErr.Error()
	}
	return st, fmt.Errorf("%w: %s", errDown, st)
}
