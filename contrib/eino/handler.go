package triageeino

import (
	"context"
	"errors"
	"io"

	"github.com/cloudwego/eino/callbacks"
	"github.com/cloudwego/eino/schema"

	"github.com/triage-go/triage/contrib/internal/reporter"
)

// Handler is an Eino callbacks.Handler that reports each failed run to the
// Error Handler service. Give it to a run (compose.WithCallbacks) or to
// every run (callbacks.AppendGlobalHandlers). It is safe for concurrent
// use; Close it when the program ends, so that the reports still queued
// are posted.
type Handler struct {
	r *reporter.Reporter
}

var (
	_ callbacks.Handler       = (*Handler)(nil)
	_ callbacks.TimingChecker = (*Handler)(nil)
)

// NewHandler returns a Handler. It fails with a CONFIG_ERROR *fault.Error
// when cfg has no Client or its AgentID is not an identifier.
func NewHandler(cfg Config) (*Handler, error) {
	r, err := cfg.reporter()
	if err != nil {
		return nil, err
	}
	return &Handler{r: r}, nil
}

// Close stops taking reports and waits until those queued are posted, or
// ctx is done.
func (h *Handler) Close(ctx context.Context) error { return h.r.Close(ctx) }

// Needed asks Eino for the starts (to follow the run's levels), the
// errors, and the output stream of a run's outermost level (where an error
// inside a stream shows).
func (h *Handler) Needed(ctx context.Context, _ *callbacks.RunInfo, timing callbacks.CallbackTiming) bool {
	switch timing {
	case callbacks.TimingOnStart, callbacks.TimingOnStartWithStreamInput, callbacks.TimingOnError:
		return true
	case callbacks.TimingOnEndWithStreamOutput:
		fr := reporter.FrameOf(ctx)
		return fr != nil && fr.Outermost()
	}
	return false
}

// OnStart begins a level of the run.
func (h *Handler) OnStart(ctx context.Context, info *callbacks.RunInfo, _ callbacks.CallbackInput) context.Context {
	ctx, _ = reporter.Enter(ctx, name(info))
	return ctx
}

// OnStartWithStreamInput begins a level of the run, as OnStart; it closes
// its copy of the input stream, which it does not read.
func (h *Handler) OnStartWithStreamInput(ctx context.Context, info *callbacks.RunInfo,
	input *schema.StreamReader[callbacks.CallbackInput]) context.Context {
	input.Close()
	ctx, _ = reporter.Enter(ctx, name(info))
	return ctx
}

// OnEnd does nothing: a level that ends well has nothing to report.
func (h *Handler) OnEnd(ctx context.Context, _ *callbacks.RunInfo, _ callbacks.CallbackOutput) context.Context {
	return ctx
}

// OnError records the failure of a level. The innermost failure is the
// one reported (its component, its error), once, when the run's
// outermost level fails; an interrupt is not a failure.
func (h *Handler) OnError(ctx context.Context, info *callbacks.RunInfo, err error) context.Context {
	h.fail(ctx, info, err)
	return ctx
}

// OnEndWithStreamOutput reads the outermost level's copy of its output
// stream in the background: an error inside it is the run's failure.
func (h *Handler) OnEndWithStreamOutput(ctx context.Context, info *callbacks.RunInfo,
	output *schema.StreamReader[callbacks.CallbackOutput]) context.Context {
	go func() {
		defer output.Close()
		for {
			_, err := output.Recv()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				h.fail(ctx, info, err)
				return
			}
		}
	}()
	return ctx
}

func (h *Handler) fail(ctx context.Context, info *callbacks.RunInfo, err error) {
	if err == nil || IsInterrupt(err) {
		return
	}
	f := reporter.Failure{Err: err, Component: component(info), Name: name(info)}
	if fr := reporter.FrameOf(ctx); fr != nil {
		var ok bool
		if f, ok = fr.Fail(f); !ok {
			return
		}
	}
	_ = h.r.Report(ctx, f) // logged by the reporter
}

// component is the kind of component that ran ("ChatModel", "Tool",
// "Graph", "Lambda").
func component(info *callbacks.RunInfo) string {
	if info == nil {
		return ""
	}
	return string(info.Component)
}

// name is the node's or graph's name, else its implementation's type.
func name(info *callbacks.RunInfo) string {
	switch {
	case info == nil:
		return ""
	case info.Name != "":
		return info.Name
	}
	return info.Type
}

// Report reports err, a failure the callbacks do not see: the error of an
// ADK agent's event (adk.AgentEvent.Err), or of work around the graph. An
// interrupt is not reported. Like the callbacks, it returns at once unless
// Config.Synchronous, and then returns the report's error.
func (h *Handler) Report(ctx context.Context, err error) error {
	if err == nil || IsInterrupt(err) {
		return nil
	}
	return h.r.Report(ctx, reporter.Failure{Err: err})
}
