package triageeino_test

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/cloudwego/eino/adk"
	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	triageeino "github.com/triage-go/triage/contrib/eino"
	"github.com/triage-go/triage/fault"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name string
		err  error
		want fault.Code
		rule string
	}{
		{"max steps", fmt.Errorf("[GraphRunError] %w", compose.ErrExceedMaxSteps), fault.AgentExecutionError, "eino:exceeds_max_steps"},
		{"max iterations", adk.ErrExceedMaxIterations, fault.AgentExecutionError, "eino:exceeds_max_iterations"},
		{"compiled", compose.ErrGraphCompiled, fault.ConfigError, "eino:graph_definition"},
		{"loop", compose.DAGInvalidLoopErr, fault.ConfigError, "eino:graph_definition"},
		{"recv after close", schema.ErrRecvAfterClosed, fault.InternalError, "eino:recv_after_closed"},
		{"retries", &adk.RetryExhaustedError{LastErr: context.DeadlineExceeded, TotalRetries: 1}, fault.Timeout,
			"eino:retry_exhausted:context.DeadlineExceeded"},
		{"retries, no last error", &adk.RetryExhaustedError{}, fault.AgentExecutionError, "eino:retry_exhausted"},
	} {
		t.Run(c.name, func(t *testing.T) {
			f, ok := triageeino.Classify(c.err)
			if !ok || f.Code != c.want || f.Classification.Rule != c.rule {
				t.Errorf("Classify = %v %v (%+v)", f, ok, f)
			}
			if g := fault.From(c.err); g.Code != c.want {
				t.Errorf("fault.From = %v: Classify is not registered", g)
			}
		})
	}
	f, _ := triageeino.Classify(&adk.RetryExhaustedError{LastErr: fault.New(fault.RateLimited, "", fault.WithRetryAfter(time.Second)), TotalRetries: 2})
	if f.Details["attempts"] != 3 || !f.Retryable || f.RetryAfter != time.Second {
		t.Errorf("retries: %+v", f)
	}
	for _, err := range []error{errors.New("boom"), context.Canceled, compose.NewInterruptAndRerunErr("wait"), nil} {
		if f, ok := triageeino.Classify(err); ok {
			t.Errorf("Classify(%v) = %v", err, f)
		}
	}
}
