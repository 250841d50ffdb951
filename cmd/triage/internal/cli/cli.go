package cli

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"net/http"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/triage-go/triage/fault"
)

// Exit codes.
const (
	ExitOK    = 0
	ExitError = 1 // the command ran and failed
	ExitUsage = 2 // the command line was wrong
)

// Env is what a run of the command reads and writes.
type Env struct {
	Stdin  io.Reader // nil, or a terminal, means there is no piped input
	Stdout io.Writer
	Stderr io.Writer
	// UI is the dashboard `serve` mounts at / (server.Config.UI); nil
	// serves none. The command's main package passes web.Handler().
	UI http.Handler
}

// maxStdin bounds the text classify reads from standard input.
const maxStdin = 1 << 20

const usage = `triage: semantic error handling for AI-agent systems.

Usage:
  triage codes [--format table|json]       print the error code table
  triage classify [--debug] [--lines] TEXT  classify an error message (or stdin)
  triage handle [--policy FILE] [--debug]  handle error reports from stdin: print the feedback
  triage serve [--addr HOST:PORT] [--db PATH|URL] [--policy FILE] [--debug]
                                           run the Error Handler service (HTTP API)
  triage bridge [--agents FILE] [--error-mode result|jsonrpc] [--service URL]
                                           serve the MCP agentic bridge over stdio
  triage worker                            serve Triage's ACP worker agent over stdio
  triage version                           print the version
  triage help                              print this help

Run 'triage COMMAND -h' for a command's flags.
`

// Run runs the command line args (without the program name) and returns the
// process exit code.
func Run(ctx context.Context, args []string, env Env) int {
	if len(args) == 0 {
		fmt.Fprint(env.Stderr, usage)
		return ExitUsage
	}
	cmd, rest := args[0], args[1:]
	var err error
	switch cmd {
	case "codes":
		err = runCodes(rest, env)
	case "classify":
		err = runClassify(rest, env)
	case "handle":
		err = runHandle(ctx, rest, env)
	case "serve":
		err = runServe(ctx, rest, env)
	case "bridge":
		err = runBridge(ctx, rest, env)
	case "worker":
		err = runWorker(ctx, rest, env)
	case "version", "--version":
		err = runVersion(rest, env)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(env.Stdout, usage)
		return ExitOK
	default:
		fmt.Fprintf(env.Stderr, "triage: unknown command %q\n\n%s", cmd, usage)
		return ExitUsage
	}
	var ue usageError
	switch {
	case err == nil:
		return ExitOK
	case errors.Is(err, flag.ErrHelp):
		return ExitOK
	case errors.As(err, &ue):
		if !ue.printed {
			fmt.Fprintf(env.Stderr, "triage %s: %v\n\n%s", cmd, ue.err, usage)
		}
		return ExitUsage
	default:
		fmt.Fprintf(env.Stderr, "triage %s: %v%s\n", cmd, err, faultDetails(err))
		return ExitError
	}
}

// faultDetails is a fault's details, " (key=value, …)" in the keys' order,
// redacted: what names the field, the agent or the variable at fault (the
// message alone, "Missing required credential: apiKey", does not say which
// agent's, nor where the key is looked for).
func faultDetails(err error) string {
	var f *fault.Error
	if !errors.As(err, &f) || len(f.Details) == 0 {
		return ""
	}
	parts := make([]string, 0, len(f.Details))
	for _, k := range slices.Sorted(maps.Keys(f.Details)) {
		parts = append(parts, fmt.Sprintf("%s=%v", k, f.Details[k]))
	}
	return " (" + fault.Redact(strings.Join(parts, ", ")) + ")"
}

// usageError is a wrong command line: exit 2 with the usage (unless the flag
// package has printed it already).
type usageError struct {
	err     error
	printed bool
}

func (u usageError) Error() string { return u.err.Error() }

func usagef(format string, args ...any) error {
	return usageError{err: fmt.Errorf(format, args...)}
}

// parse parses a subcommand's flags; a bad flag is a usage error (the flag
// package has already printed what was wrong and the flags).
func parse(fs *flag.FlagSet, args []string, env Env) error {
	fs.SetOutput(env.Stderr)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return err
		}
		return usageError{err: err, printed: true}
	}
	return nil
}

func runCodes(args []string, env Env) error {
	fs := flag.NewFlagSet("triage codes", flag.ContinueOnError)
	format := fs.String("format", "table", "output format: table or json")
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	specs := fault.Codes()
	switch *format {
	case "json":
		type row struct {
			Code         fault.Code     `json:"code"`
			HTTPStatus   int            `json:"http_status"`
			Category     fault.Category `json:"category"`
			Domain       fault.Domain   `json:"domain"`
			Retryable    bool           `json:"retryable"`
			SessionValid bool           `json:"session_valid"`
			JSONRPCCode  int            `json:"jsonrpc_code"`
			ProblemType  string         `json:"problem_type"`
			Title        string         `json:"title"`
			Message      string         `json:"message"`
			// The statuses the code carries in particular cases.
			StatusCases []fault.StatusCase `json:"status_cases,omitempty"`
		}
		rows := make([]row, len(specs))
		for i, s := range specs {
			rows[i] = row{s.Code, s.Status, s.Category, s.Domain, s.Retryable, s.SessionValid, s.JSONRPC, s.Type, s.Title, s.Message, s.Code.StatusCases()}
		}
		enc := json.NewEncoder(env.Stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(rows)
	case "table":
		tw := tabwriter.NewWriter(env.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "CODE\tHTTP\tCATEGORY\tDOMAIN\tRETRYABLE\tSESSION\tJSON-RPC\tPROBLEM TYPE")
		for _, s := range specs {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%s\t%d\t%s\n", s.Code, s.Status, s.Category, s.Domain,
				yesNo(s.Retryable), validity(s.SessionValid), s.JSONRPC, s.Type)
		}
		return tw.Flush()
	default:
		return usagef("unknown format %q (want table or json)", *format)
	}
}

// classified is classify's output: the fault's JSON and how it was
// classified.
type classified struct {
	fault.Payload
	Confidence float64      `json:"confidence"`
	Method     fault.Method `json:"method"`
	Rule       string       `json:"rule,omitempty"`
}

func runClassify(args []string, env Env) error {
	fs := flag.NewFlagSet("triage classify", flag.ContinueOnError)
	debugOut := fs.Bool("debug", false, "include debug details (the cause text, redacted)")
	lines := fs.Bool("lines", false, "classify each line of the input on its own; print JSON lines")
	if err := parse(fs, args, env); err != nil {
		return err
	}
	var text string
	if fs.NArg() > 0 {
		text = strings.Join(fs.Args(), " ")
	} else {
		if env.Stdin == nil {
			return usagef("no text: give it as arguments or on standard input")
		}
		data, err := io.ReadAll(io.LimitReader(env.Stdin, maxStdin+1))
		if err != nil {
			return fmt.Errorf("read standard input: %w", err)
		}
		if len(data) > maxStdin {
			return fmt.Errorf("standard input exceeds %d bytes", maxStdin)
		}
		text = strings.TrimRight(string(data), "\r\n")
	}
	if strings.TrimSpace(text) == "" {
		return usagef("no text: give it as arguments or on standard input")
	}
	enc := json.NewEncoder(env.Stdout)
	if !*lines {
		enc.SetIndent("", "  ")
		return enc.Encode(result(text, *debugOut))
	}
	for line := range strings.Lines(text) {
		if strings.TrimSpace(line) == "" {
			continue
		}
		if err := enc.Encode(result(strings.TrimRight(line, "\r\n"), *debugOut)); err != nil {
			return err
		}
	}
	return nil
}

func result(text string, debug bool) classified {
	f := fault.ClassifyText(text)
	return classified{Payload: f.Payload(debug), Confidence: f.Classification.Confidence,
		Method: f.Classification.Method, Rule: f.Classification.Rule}
}

func runVersion(args []string, env Env) error {
	fs := flag.NewFlagSet("triage version", flag.ContinueOnError)
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	fmt.Fprintf(env.Stdout, "triage %s %s %s/%s\n%s\n", Version(), runtime.Version(), runtime.GOOS, runtime.GOARCH, builtInLine())
	return nil
}

// Version is the module version the binary was built from, with the VCS
// revision when the build recorded one, or "(devel)".
func Version() string {
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	v := info.Main.Version
	if v == "" {
		v = "(devel)"
	}
	for _, s := range info.Settings {
		if s.Key == "vcs.revision" && len(s.Value) >= 12 {
			v += " " + s.Value[:12]
		}
	}
	return v
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func validity(b bool) string {
	if b {
		return "kept"
	}
	return "lost"
}
