package cli_test

import (
	"context"
	"os"

	"github.com/triage-go/triage/cmd/triage/internal/cli"
)

func ExampleRun() {
	cli.Run(context.Background(), []string{"classify", "--lines", "session abc not found"},
		cli.Env{Stdout: os.Stdout, Stderr: os.Stderr})
	// Output:
	// {"code":"SESSION_NOT_FOUND","message":"Session expired or not found. Please start a new session.","http_status":404,"category":"UPSTREAM","domain":"client","retryable":false,"session_valid":false,"details":{"session_id":"abc"},"confidence":0.75,"method":"text","rule":"session_not_found"}
}
