package acpagent_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"

	acpsdk "github.com/coder/acp-go-sdk"

	"github.com/triage-go/triage/adapter/acpagent"
)

// printer is an ACP client that prints the worker's chunks.
type printer struct{ *testClient }

func (printer) SessionUpdate(_ context.Context, n acpsdk.SessionNotification) error {
	if m := n.Update.AgentMessageChunk; m != nil && m.Content.Text != nil {
		fmt.Printf("[%s]", m.Content.Text.Text)
	}
	return nil
}

// A worker served in-process, and the SDK's client side talking to it: the
// echo streams a word at a time.
func ExampleServe() {
	toWorker, fromClient := io.Pipe()
	toClient, fromWorker := io.Pipe()
	served := make(chan error, 1)
	go func() { served <- acpagent.Serve(context.Background(), toWorker, fromWorker, acpagent.Config{}) }()

	ctx := context.Background()
	conn := acpsdk.NewClientSideConnection(printer{&testClient{}}, fromClient, toClient)
	conn.SetLogger(discard())
	_, _ = conn.Initialize(ctx, acpsdk.InitializeRequest{ProtocolVersion: acpsdk.ProtocolVersionNumber})
	s, _ := conn.NewSession(ctx, acpsdk.NewSessionRequest{Cwd: "/", McpServers: []acpsdk.McpServer{}})
	r, err := conn.Prompt(ctx, acpsdk.PromptRequest{SessionId: s.SessionId, Prompt: []acpsdk.ContentBlock{acpsdk.TextBlock("hi there")}})
	fmt.Println()
	fmt.Println(r.StopReason, err)

	fromClient.Close() // the worker's input ends: Serve returns
	fmt.Println(<-served)
	fromWorker.Close()
	// Output:
	// [You ][said: ][hi ][there]
	// end_turn <nil>
	// <nil>
}

func discard() *slog.Logger { return slog.New(slog.DiscardHandler) }
