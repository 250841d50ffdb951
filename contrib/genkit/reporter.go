package triagegenkit

import (
	"context"
	"errors"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"

	"github.com/triage-go/triage/contrib/internal/reporter"
)

// Reporter reports the failures of Genkit models and flows to the Error
// Handler service, through the middleware it makes. It is safe for
// concurrent use; Close it when the program ends, so that the reports still
// queued are posted.
type Reporter struct {
	r            *reporter.Reporter
	reportErrors bool
}

// New returns a Reporter. It fails with a CONFIG_ERROR *fault.Error when
// cfg has no Client or its AgentID is not an identifier.
func New(cfg Config) (*Reporter, error) {
	r, err := cfg.reporter()
	if err != nil {
		return nil, err
	}
	return &Reporter{r: r, reportErrors: cfg.Synchronous && cfg.ReportErrors}, nil
}

// Close stops taking reports and waits until those queued are posted, or
// ctx is done.
func (r *Reporter) Close(ctx context.Context) error { return r.r.Close(ctx) }

// ModelMiddleware is a model middleware (ai.WithMiddleware) that reports
// the model's failures. name names the model in the reports (its node and
// the fault's source when the error names none); "" for none.
func (r *Reporter) ModelMiddleware(name string) ai.ModelMiddleware {
	return Middleware[*ai.ModelRequest, *ai.ModelResponse, *ai.ModelResponseChunk](r, "Model", name)
}

// Flow wraps a flow's function (genkit.DefineFlow) so that its failures
// are reported: genkit.DefineFlow(g, "support", triagegenkit.Flow(rep,
// "support", fn)). name names the flow in the reports, and the default
// query ("genkit:support").
func Flow[In, Out any](r *Reporter, name string, fn core.Func[In, Out]) core.Func[In, Out] {
	return func(ctx context.Context, in In) (Out, error) {
		ctx, fr := reporter.Enter(ctx, name)
		out, err := fn(ctx, in)
		return out, r.fail(ctx, fr, "Flow", name, err)
	}
}

// Middleware is a Genkit middleware for any streaming function (a model's,
// a streaming flow's: genkit.DefineStreamingFlow(g, name,
// triagegenkit.Middleware[In, Out, Stream](rep, "Flow", name)(fn))) that
// reports its failures. component names the kind of function ("Model",
// "Flow"); name names it.
//
// Middleware nests: inside a flow wrapped by Flow, a model's failure is
// reported once, by the flow (the outermost), with the model's component,
// name and error. The failure is returned unchanged, unless
// Config.ReportErrors and the report failed.
func Middleware[In, Out, Stream any](r *Reporter, component, name string) core.Middleware[In, Out, Stream] {
	return func(next core.StreamingFunc[In, Out, Stream]) core.StreamingFunc[In, Out, Stream] {
		return func(ctx context.Context, in In, cb core.StreamCallback[Stream]) (Out, error) {
			ctx, fr := reporter.Enter(ctx, name)
			out, err := next(ctx, in, cb)
			return out, r.fail(ctx, fr, component, name, err)
		}
	}
}

// fail records err's failure in fr and reports it when fr is the
// outermost level; it returns err, joined with the report's error under
// ReportErrors.
func (r *Reporter) fail(ctx context.Context, fr *reporter.Frame, component, name string, err error) error {
	if err == nil {
		return nil
	}
	f, ok := fr.Fail(reporter.Failure{Err: err, Component: component, Name: name})
	if !ok {
		return err
	}
	if rerr := r.r.Report(ctx, f); rerr != nil && r.reportErrors {
		return errors.Join(err, rerr)
	}
	return err
}

// Report reports err, a failure no middleware saw (an error of the work
// around the flow). It returns at once unless Config.Synchronous, and then
// returns the report's error.
func (r *Reporter) Report(ctx context.Context, err error) error {
	return r.r.Report(ctx, reporter.Failure{Err: err})
}
