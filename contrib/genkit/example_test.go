package triagegenkit_test

import (
	"context"
	"fmt"

	"github.com/firebase/genkit/go/ai"
	"github.com/firebase/genkit/go/core"
	"github.com/firebase/genkit/go/genkit"

	"github.com/triage-go/triage/client"
	triagegenkit "github.com/triage-go/triage/contrib/genkit"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	"github.com/triage-go/triage/fault"
)

// A Genkit flow whose model is out of quota: the flow and the model's
// middleware report the failure once to the Error Handler service, where
// it becomes a record. (The example runs the service in-process, as triage
// serve runs it; an agent passes its service's URL and API key to
// client.New.)
func ExampleReporter() {
	svc, err := servicetest.Start(nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer svc.Close()
	ctx := context.Background()

	c, err := client.New(svc.URL, client.Config{})
	if err != nil {
		fmt.Println(err)
		return
	}
	rep, err := triagegenkit.New(triagegenkit.Config{AgentID: "travel_agent", Client: c})
	if err != nil {
		fmt.Println(err)
		return
	}

	g := genkit.Init(ctx)
	m := genkit.DefineModel(g, "example/flaky", &ai.ModelOptions{Label: "flaky"},
		func(context.Context, *ai.ModelRequest, ai.ModelStreamCallback) (*ai.ModelResponse, error) {
			return nil, core.NewError(core.RESOURCE_EXHAUSTED, "quota exceeded for example/flaky")
		})
	flow := genkit.DefineFlow(g, "plan_trip", triagegenkit.Flow(rep, "plan_trip", func(ctx context.Context, city string) (string, error) {
		return genkit.GenerateText(ctx, g, ai.WithModel(m), ai.WithPrompt("Plan a day in %s", city),
			ai.WithMiddleware(rep.ModelMiddleware("example/flaky")))
	}))
	_, err = flow.Run(triagegenkit.WithQuery(ctx, "q_trip_3"), "Lisbon")
	f := fault.From(err)
	fmt.Println("the flow failed:", f.Code, "retryable:", f.Retryable)

	rep.Close(ctx) // posts what is queued
	page, err := c.Errors(ctx, client.ErrorQuery{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, rec := range page.Records {
		fmt.Println(rec.ErrorID, rec.Code, rec.QueryID, rec.Count)
		fmt.Println(rec.Title)
	}
	// Output:
	// the flow failed: RATE_LIMITED retryable: true
	// err_e6275338f9daf9e3 RATE_LIMITED q_trip_3 1
	// RATE_LIMITED: quota exceeded for example/flaky
}
