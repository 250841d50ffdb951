package agent

import (
	"context"

	"github.com/triage-go/triage/fault"
)

// placeholder stands in for a kind of agent not built yet: it refuses to
// start.
type placeholder struct{ what string }

func (p placeholder) Start(context.Context) error {
	return fault.New(fault.ConfigError, p.what+" agents are not built yet")
}
func (placeholder) NewSession(context.Context) (string, error) { return "", nil }
func (placeholder) Prompt(context.Context, string, string, func(Chunk)) (Result, error) {
	return Result{}, nil
}
func (placeholder) Cancel(context.Context, string) error { return nil }
func (placeholder) CloseSession(string)                  {}
func (placeholder) Close() error                         { return nil }
