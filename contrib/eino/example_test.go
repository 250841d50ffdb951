package triageeino_test

import (
	"context"
	"fmt"

	"github.com/cloudwego/eino/compose"
	"github.com/cloudwego/eino/schema"

	"github.com/triage-go/triage/client"
	triageeino "github.com/triage-go/triage/contrib/eino"
	"github.com/triage-go/triage/contrib/internal/servicetest"
	"github.com/triage-go/triage/fault"
)

// An Eino graph whose chat model fails: the handler reports the failure
// to the Error Handler service, where it becomes a record. (The example
// runs the service in-process, as triage serve runs it; an agent passes
// its service's URL and API key to client.New.)
func ExampleHandler() {
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
	h, err := triageeino.NewHandler(triageeino.Config{AgentID: "support_agent", Client: c})
	if err != nil {
		fmt.Println(err)
		return
	}

	// The graph: START → model → END, its model timing out.
	g := compose.NewGraph[[]*schema.Message, *schema.Message]()
	g.AddChatModelNode("model", &chatModel{err: fmt.Errorf("calling the model: %w", context.DeadlineExceeded)})
	g.AddEdge(compose.START, "model")
	g.AddEdge("model", compose.END)
	r, err := g.Compile(ctx, compose.WithGraphName("support"))
	if err != nil {
		fmt.Println(err)
		return
	}
	_, err = r.Invoke(triageeino.WithQuery(ctx, "q_order_1"), []*schema.Message{schema.UserMessage("Where is my order?")},
		compose.WithCallbacks(h))
	fmt.Println("the run failed:", fault.From(err).Code)

	h.Close(ctx) // posts what is queued
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
	// the run failed: TIMEOUT
	// err_71fbee6018d38cc8 TIMEOUT q_order_1 1
	// TIMEOUT: calling the model: context deadline exceeded
}
