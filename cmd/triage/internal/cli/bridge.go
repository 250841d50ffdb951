package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/triage-go/triage/adapter/acpagent"
	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/client"
	"github.com/triage-go/triage/fault"
)

// bridgeEnv names the environment variable of each bridge flag.
var bridgeEnv = map[string]string{
	"agents":             "TRIAGE_AGENTS",
	"error-mode":         "TRIAGE_ERROR_MODE",
	"max-prompt-bytes":   "TRIAGE_MAX_PROMPT_BYTES",
	"max-metadata-bytes": "TRIAGE_MAX_METADATA_BYTES",
	"max-concurrent":     "TRIAGE_BRIDGE_MAX_CONCURRENT",
	"prompt-timeout":     "TRIAGE_PROMPT_TIMEOUT",
	"request-timeout":    "TRIAGE_REQUEST_TIMEOUT",
	"idle-ttl":           "TRIAGE_IDLE_TTL",
	"debug":              "TRIAGE_DEBUG",
	"service":            "TRIAGE_SERVICE_URL",
}

// bridgeFlags are the flags the MCP bridge shares between `triage bridge`
// and the /mcp endpoint of `triage serve`.
type bridgeFlags struct {
	agents         string
	errorMode      string
	maxPrompt      int
	maxMetadata    int
	maxConcurrent  int
	promptTimeout  time.Duration
	requestTimeout time.Duration
	idleTTL        time.Duration
}

func (f *bridgeFlags) register(fs *flag.FlagSet) {
	fs.StringVar(&f.agents, "agents", "", "agent registry `file` (YAML); default: one script agent, \"echo\"")
	fs.StringVar(&f.errorMode, "error-mode", string(bridge.ErrorsAsResults), "how a failed tool call is sent: `result` (isError results, as MCP asks) or jsonrpc (seed 002's error codes)")
	fs.IntVar(&f.maxPrompt, "max-prompt-bytes", bridge.DefaultMaxPromptBytes, "largest prompt, in `bytes`")
	fs.IntVar(&f.maxMetadata, "max-metadata-bytes", bridge.DefaultMaxMetadataBytes, "largest metadata, as JSON, in `bytes`")
	fs.DurationVar(&f.promptTimeout, "prompt-timeout", agent.DefaultPromptTimeout, "longest a prompt may run (`duration`)")
	fs.DurationVar(&f.requestTimeout, "request-timeout", bridge.DefaultRequestTimeout, "longest any other tool call may run (`duration`)")
	fs.DurationVar(&f.idleTTL, "idle-ttl", agent.DefaultIdleTTL, "close a session unused for this `duration`")
}

func (f *bridgeFlags) check() error {
	switch {
	case f.errorMode != string(bridge.ErrorsAsResults) && f.errorMode != string(bridge.ErrorsAsJSONRPC):
		return usagef("--error-mode must be result or jsonrpc, not %q", f.errorMode)
	case f.maxPrompt <= 0 || f.maxMetadata <= 0:
		return usagef("--max-prompt-bytes and --max-metadata-bytes must be more than 0")
	case f.promptTimeout <= 0 || f.requestTimeout <= 0 || f.idleTTL <= 0:
		return usagef("--prompt-timeout, --request-timeout and --idle-ttl must be more than 0")
	}
	return nil
}

// registry loads the agents file, or the default registry, and says which
// on log.
func (f *bridgeFlags) registry(log *slog.Logger) (*agent.Registry, error) {
	if f.agents == "" {
		log.Info("no --agents file: using the default registry, one script agent", "agent", agent.DefaultAgentID)
		return agent.Default(), nil
	}
	reg, err := agent.Load(f.agents)
	if err != nil {
		return nil, err
	}
	if err := checkProviders(reg, f.agents); err != nil {
		return nil, err
	}
	log.Info("agents loaded", "file", f.agents, "agents", len(reg.Agents))
	return reg, nil
}

// start builds and starts the agents' manager.
func (f *bridgeFlags) start(ctx context.Context, log *slog.Logger, ownerShare int) (*agent.Manager, error) {
	reg, err := f.registry(log)
	if err != nil {
		return nil, err
	}
	m := agent.NewManager(reg.Build(&agent.BuildOptions{Logger: log}), agent.ManagerConfig{
		IdleTTL: f.idleTTL, PromptTimeout: f.promptTimeout, OwnerShare: ownerShare, Logger: log,
	})
	if err := m.Start(ctx); err != nil {
		return nil, err
	}
	return m, nil
}

func (f *bridgeFlags) options(m *agent.Manager, log *slog.Logger) bridge.Config {
	return bridge.Config{
		Manager: m, ErrorMode: bridge.ErrorMode(f.errorMode),
		MaxPromptBytes: f.maxPrompt, MaxMetadataBytes: f.maxMetadata,
		MaxConcurrent: f.maxConcurrent, RequestTimeout: f.requestTimeout,
		Version: Version(), Logger: log,
	}
}

// runBridge serves the MCP bridge over standard input and output, what an
// MCP client launches. Logs go to standard error: standard output is the
// protocol's. When ctx ends (SIGTERM or SIGINT), bridge.Run answers every
// call in flight (SERVICE_UNAVAILABLE, retryable) before it closes the
// connection, then the agents stop (an ACP worker gets session/cancel, its
// grace, then is killed) and the command returns.
func runBridge(ctx context.Context, args []string, env Env) error {
	fs := flag.NewFlagSet("triage bridge", flag.ContinueOnError)
	var f bridgeFlags
	f.register(fs)
	fs.IntVar(&f.maxConcurrent, "max-concurrent", bridge.DefaultMaxConcurrent, "tool calls running at once before \"Server overloaded\" (`calls`)")
	debug := fs.Bool("debug", false, "debug logs on standard error")
	serviceURL := fs.String("service", "", "a Triage service's base `URL`: the errors_* tools serve its error store, and every failed tool call is reported to it (POST /v1/errors, unless its agent says recordFailures: false), as the tenant of the API key in TRIAGE_API_KEY")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: triage bridge [flags]\n\nServes the MCP agentic bridge over standard input and output. On SIGTERM or\nSIGINT it answers the calls in flight (SERVICE_UNAVAILABLE, retryable), stops\nthe agents and exits. Each flag may also come from its environment variable\n(the flag wins). With --service, it also serves the service's error store\n(errors_search, errors_get, errors_report, errors_update) with the rights of\nthe API key in TRIAGE_API_KEY.\n\n")
		fs.VisitAll(func(fl *flag.Flag) {
			name, usage := flag.UnquoteUsage(fl)
			fmt.Fprintf(env.Stderr, "  --%s %s\n    \t%s (%s; default %q)\n", fl.Name, name, usage, bridgeEnv[fl.Name], fl.DefValue)
		})
	}
	if err := fromEnv(fs, bridgeEnv); err != nil {
		return usagef("%v", err)
	}
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := f.check(); err != nil {
		return err
	}
	if f.maxConcurrent <= 0 {
		return usagef("--max-concurrent must be more than 0")
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))
	svc, err := serviceClient(*serviceURL, log)
	if err != nil {
		return err
	}
	m, err := f.start(ctx, log, 0)
	if err != nil {
		return err
	}
	defer m.Shutdown()
	b := bridge.New(f.options(m, log))
	if svc != nil {
		b.ServeErrors(func(string) bridge.Errors { return bridge.ServiceErrors(svc) })
		rep := newReporter(svc, m, log)
		b.OnFailure(rep.record)
		defer func() {
			// After Run: the failures being told reach the queue (Shutdown
			// waits for them, whether Run shut down or the client left),
			// then the queued reports get the bridge's shutdown bound.
			ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), bridge.DefaultShutdownTimeout)
			defer cancel()
			_ = b.Shutdown(ctx)
			if n := rep.close(ctx); n > 0 {
				log.Warn("MCP bridge: failed tool calls not reported to the service", "calls", n)
			}
		}()
	}
	in := env.Stdin
	if in == nil {
		in = os.Stdin
	}
	log.Info("MCP bridge serving on stdio", "agents", len(m.Agents()), "error_mode", f.errorMode)
	err = b.Run(ctx, bridge.IOTransport(in, env.Stdout))
	if ctx.Err() != nil {
		log.Info("MCP bridge: connection closed; stopping the agents")
	}
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}

// serviceClient is the Go client of the service at url, for the bridge's
// errors_* tools and its failed calls' reports, with the API key in
// TRIAGE_API_KEY (an environment variable, never a flag: a command line
// is visible to every user of the machine); nil without a url.
func serviceClient(url string, log *slog.Logger) (*client.Client, error) {
	if url == "" {
		return nil, nil
	}
	key := os.Getenv("TRIAGE_API_KEY")
	c, err := client.New(url, client.Config{APIKey: key, UserAgent: "triage-bridge/" + Version()})
	if err != nil {
		return nil, usagef("--service: %v", fault.From(err).Message)
	}
	log.Info("MCP bridge: the errors_* tools serve the service's error store, and failed tool calls are reported to it",
		"service", c.String(), "api_key", key != "")
	return c, nil
}

// runWorker serves Triage's own ACP agent over standard input and output:
// an agent of kind acp with command [triage, worker] (see package
// adapter/acpagent for what it answers and the prompts that make it
// fail). TRIAGE_WORKER_DELAY sets the pause between chunks.
func runWorker(ctx context.Context, args []string, env Env) error {
	fs := flag.NewFlagSet("triage worker", flag.ContinueOnError)
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: triage worker\n\nServes Triage's ACP worker agent over standard input and output, for an\nagents file's `kind: acp` agent with `command: [triage, worker]`.\n")
	}
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	opts, err := acpagent.FromEnv()
	if err != nil {
		return usagef("%v", err)
	}
	opts.Stderr = env.Stderr
	in := env.Stdin
	if in == nil {
		in = os.Stdin
	}
	err = acpagent.Serve(ctx, in, env.Stdout, opts)
	if errors.Is(err, context.Canceled) {
		return nil
	}
	return err
}
