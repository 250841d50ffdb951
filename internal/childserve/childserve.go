package childserve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// ErrExited is Start's error when the child ended before it printed its
// address; ErrNoAddress when it printed none in time.
var (
	ErrExited    = errors.New("childserve: the child exited at start")
	ErrNoAddress = errors.New("childserve: the child printed no address")
)

// Options are Start's.
type Options struct {
	// Env is added to the child's environment: the caller's, without
	// its TRIAGE_ variables.
	Env []string
	// Stderr receives the child's standard error; nil discards it.
	Stderr io.Writer
	// Timeout bounds the wait for the address; 0 means a minute.
	Timeout time.Duration
}

// Process is a running child.
type Process struct {
	// Cmd is the child's command, started.
	Cmd *exec.Cmd
	// Base is the address it printed: http://127.0.0.1:PORT.
	Base string

	done chan struct{}
	err  error
}

// Address reads a server's address from a line of its output: the word
// that follows "listening on ", if any.
func Address(line string) (string, bool) {
	_, rest, ok := strings.Cut(line, "listening on ")
	if !ok {
		return "", false
	}
	base, _, _ := strings.Cut(rest, " ")
	return base, base != ""
}

// Start runs bin with args and waits for the address it prints on its
// standard output (Address). ctx, when it ends, kills the child (as
// exec.CommandContext does). If the child exits first the error wraps
// ErrExited and its exit status; if no address comes within the timeout
// the child is killed and the error wraps ErrNoAddress.
func Start(ctx context.Context, bin string, args []string, opts Options) (*Process, error) {
	cmd := exec.CommandContext(ctx, bin, args...)
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TRIAGE_") {
			cmd.Env = append(cmd.Env, kv)
		}
	}
	cmd.Env = append(cmd.Env, opts.Env...)
	cmd.Stderr = opts.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	p := &Process{Cmd: cmd, done: make(chan struct{})}
	addr := make(chan string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if base, ok := Address(sc.Text()); ok {
				select {
				case addr <- base:
				default:
				}
			}
		}
		_, _ = io.Copy(io.Discard, out)
	}()
	// Wait only once the output is read to its end: Wait closes the pipe.
	go func() { <-read; p.err = cmd.Wait(); close(p.done) }()
	timeout := opts.Timeout
	if timeout <= 0 {
		timeout = time.Minute
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	select {
	case p.Base = <-addr:
		return p, nil
	case <-p.done:
		select {
		case p.Base = <-addr: // printed, then exited at once
			return p, nil
		default:
		}
		return nil, fmt.Errorf("%w (%s: %v)", ErrExited, bin, p.err)
	case <-timer.C:
		p.Kill()
		return nil, fmt.Errorf("%w in %v (%s)", ErrNoAddress, timeout, bin)
	}
}

// Done is closed once the child has exited.
func (p *Process) Done() <-chan struct{} { return p.done }

// Err is the child's exit error (exec.Cmd.Wait's), once Done is closed.
func (p *Process) Err() error {
	<-p.done
	return p.err
}

// Pid is the child's process ID.
func (p *Process) Pid() int { return p.Cmd.Process.Pid }

// Stop ends the child with SIGTERM, then SIGKILL if it has not exited
// after grace, and waits for it.
func (p *Process) Stop(grace time.Duration) {
	_ = p.Cmd.Process.Signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	defer t.Stop()
	select {
	case <-p.done:
	case <-t.C:
		p.Kill()
	}
}

// Kill ends the child with SIGKILL and waits for it.
func (p *Process) Kill() {
	_ = p.Cmd.Process.Kill()
	<-p.done
}
