package acp_test

import (
	"context"
	"fmt"
	"os"
	"strings"

	"github.com/triage-go/triage/agent/acp"
	"github.com/triage-go/triage/fault"
)

// A pool of one worker, a session, and a prompt whose answer streams in
// chunks. In a program, Command is the worker to run, such as
// []string{"triage", "worker"}; here the test binary serves as one.
func Example() {
	ctx := context.Background()
	pool, err := acp.Start(ctx, acp.Config{
		Command: []string{os.Args[0]},
		Env:     []string{"TRIAGE_ACP_TEST_WORKER=1", "TRIAGE_WORKER_DELAY=0"},
		Source:  "echo",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()

	id, err := pool.NewSession(ctx)
	if err != nil {
		fmt.Println(err)
		return
	}
	stop, err := pool.Prompt(ctx, id, "hello there", func(chunk string) { fmt.Printf("[%s]", chunk) })
	fmt.Println()
	fmt.Println(stop, err)
	// Output:
	// [You ][said: ][hello ][there]
	// end_turn <nil>
}

// Every failure is a *fault.Error that says what the caller may do next.
func ExamplePool_Prompt_faults() {
	ctx := context.Background()
	pool, err := acp.Start(ctx, acp.Config{
		Command: []string{os.Args[0]},
		Env:     []string{"TRIAGE_ACP_TEST_WORKER=1", "TRIAGE_WORKER_DELAY=0"},
		Source:  "echo",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	id, _ := pool.NewSession(ctx)

	show := func(err error) {
		f, _ := fault.As(err)
		msg := strings.ReplaceAll(f.Message, id, "<id>")
		fmt.Printf("%s %s %q retryable=%v sessionValid=%v\n", f.Code, f.Category, msg, f.Retryable, f.SessionValid)
	}
	// The worker answers with a JSON-RPC error (its directive "fail with").
	_, err = pool.Prompt(ctx, id, "fail with RATE_LIMITED", nil)
	show(err)
	// The worker crashes mid-prompt: its sessions are gone.
	_, err = pool.Prompt(ctx, id, "crash", nil)
	show(err)
	_, err = pool.Prompt(ctx, id, "hello", nil)
	show(err)
	// Output:
	// UPSTREAM_ERROR UPSTREAM "Worker w1 failed: session/prompt" retryable=true sessionValid=true
	// TRANSPORT_ERROR TRANSPORT "Worker w1 exited" retryable=true sessionValid=false
	// SESSION_NOT_FOUND UPSTREAM "Session not found: <id>" retryable=false sessionValid=false
}

// A worker that prints a stray line on its output: the prompt is answered
// all the same, the line is counted, and the worker's own JSON-RPC error
// is in a fault's details.
func ExamplePool_Stats() {
	ctx := context.Background()
	pool, err := acp.Start(ctx, acp.Config{
		Command: []string{os.Args[0]},
		Env:     []string{"TRIAGE_ACP_TEST_WORKER=1", "TRIAGE_WORKER_DELAY=0"},
		Source:  "echo",
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer pool.Close()
	id, _ := pool.NewSession(ctx)

	stop, err := pool.Prompt(ctx, id, "stray loading the model", nil)
	fmt.Println(stop, err, pool.Stats().StrayLines)
	_, err = pool.Prompt(ctx, id, "fail with CONFIG_ERROR", nil)
	f, _ := fault.As(err)
	fmt.Println(f.Details["workerErrorCode"], f.Details["workerErrorMessage"])
	// Output:
	// end_turn <nil> 1
	// -32004 The service is misconfigured. Please contact the operator.
}
