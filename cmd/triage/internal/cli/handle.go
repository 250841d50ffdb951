package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/handler"
	"github.com/triage-go/triage/memory"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/webhook"
)

// maxReports bounds the input handle reads from standard input.
const maxReports = 16 << 20

func runHandle(ctx context.Context, args []string, env Env) error {
	fs := flag.NewFlagSet("triage handle", flag.ContinueOnError)
	policyFile := fs.String("policy", "", "recovery policy `file` (YAML) replacing the default policy")
	schemaFile := fs.String("schema", "", "schema inventory `file` (JSON): {source: {fields, synonyms}}")
	cacheFile := fs.String("cache", "", "cached results `file` (JSON): {query_id: {stored_at, summary}}")
	hookURL := fs.String("webhook", "", "post escalations as JSON to this `URL` (default: write them to standard error)")
	now := fs.String("now", "", "the current time, RFC 3339 (for reproducible runs; default: the clock)")
	debugOut := fs.Bool("debug", false, "log each step's details (classification, rule, actions) to standard error")
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q (reports are read from standard input)", fs.Arg(0))
	}
	if env.Stdin == nil {
		return usagef("no input: pipe one report, a JSON array of reports, or JSON lines on standard input")
	}
	cfg := handler.Config{}
	if *policyFile != "" {
		p, err := policy.Load(*policyFile, nil)
		if err != nil {
			return err
		}
		cfg.Policy = p
	}
	if *schemaFile != "" {
		var inv map[string]triage.SchemaInfo
		if err := readJSONFile(*schemaFile, &inv); err != nil {
			return err
		}
		syn := &memory.Synonyms{}
		for source, info := range inv {
			syn.Set(source, info)
		}
		cfg.Synonyms = syn
	}
	if *cacheFile != "" {
		var results map[string]triage.CachedResult
		if err := readJSONFile(*cacheFile, &results); err != nil {
			return err
		}
		cache := &memory.Cache{}
		for q, r := range results {
			cache.Put(q, r)
		}
		cfg.Cache = cache
	}
	if *hookURL != "" {
		cfg.Notifier = webhook.Notifier{URL: *hookURL}
	} else {
		cfg.Notifier = &escalations{w: env.Stderr}
	}
	if *now != "" {
		t, err := time.Parse(time.RFC3339Nano, *now)
		if err != nil {
			return usagef("--now: %q is not an RFC 3339 time", *now)
		}
		cfg.Now = func() time.Time { return t }
	}
	if *debugOut {
		cfg.Logger = slog.New(slog.NewJSONHandler(env.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	h, err := handler.New(cfg)
	if err != nil {
		return err
	}

	data, err := io.ReadAll(io.LimitReader(env.Stdin, maxReports+1))
	if err != nil {
		return fmt.Errorf("read standard input: %w", err)
	}
	if len(data) > maxReports {
		return fmt.Errorf("standard input exceeds %d bytes", maxReports)
	}
	items, shape, err := splitReports(data)
	if err != nil {
		return err
	}
	if len(items) == 0 {
		return usagef("no input: pipe one report, a JSON array of reports, or JSON lines on standard input")
	}

	var feedbacks []*triage.Feedback
	refused := 0
	for i, it := range items {
		if it.err != nil {
			refused++
			fmt.Fprintf(env.Stderr, "report %d: %v\n", i+1, it.err)
			continue
		}
		fb, err := h.Handle(ctx, it.raw)
		if err != nil {
			refused++
			printRefusal(env.Stderr, i+1, err)
			continue
		}
		feedbacks = append(feedbacks, fb)
	}
	if err := writeFeedbacks(env.Stdout, shape, feedbacks); err != nil {
		return err
	}
	if refused > 0 {
		return fmt.Errorf("%d of %d reports refused", refused, len(items))
	}
	return nil
}

func printRefusal(w io.Writer, n int, err error) {
	f := fault.From(err)
	fmt.Fprintf(w, "report %d: %s: %s\n", n, f.Code, f.Message)
	for _, fe := range f.FieldErrors {
		fmt.Fprintf(w, "  %s: %s\n", fe.Field, fe.Message)
	}
}

// The shapes of handle's input, which its output follows.
const (
	shapeOne   = iota // one report: one indented feedback
	shapeArray        // a JSON array: a JSON array of feedbacks
	shapeLines        // JSON lines (or several values): one feedback per line
)

type item struct {
	raw json.RawMessage
	err error
}

// splitReports splits the input into reports: a JSON array; JSON lines
// (several lines, the first a whole JSON value), where a line that is not
// valid JSON is an item with an error and the others are still read; or a
// sequence of JSON values (one report, perhaps indented), read until the
// first that is not valid.
func splitReports(data []byte) ([]item, int, error) {
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		var raws []json.RawMessage
		if err := json.Unmarshal(trimmed, &raws); err != nil {
			return nil, 0, fmt.Errorf("standard input is not a valid JSON array: %v", err)
		}
		items := make([]item, len(raws))
		for i, r := range raws {
			items[i] = item{raw: r}
		}
		return items, shapeArray, nil
	}
	var lines [][]byte
	for line := range bytes.Lines(trimmed) {
		if line = bytes.TrimSpace(line); len(line) > 0 {
			lines = append(lines, line)
		}
	}
	if len(lines) > 1 && json.Valid(lines[0]) {
		items := make([]item, len(lines))
		for i, line := range lines {
			if !json.Valid(line) {
				items[i].err = fmt.Errorf("%s: line %d is not valid JSON", fault.InvalidRequest, i+1)
				continue
			}
			items[i].raw = line
		}
		return items, shapeLines, nil
	}
	var items []item
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	for dec.More() {
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			items = append(items, item{err: fmt.Errorf("%s: not valid JSON: %v", fault.InvalidRequest, err)})
			break
		}
		items = append(items, item{raw: raw})
	}
	shape := shapeLines
	if len(items) == 1 {
		shape = shapeOne
	}
	return items, shape, nil
}

func writeFeedbacks(w io.Writer, shape int, fbs []*triage.Feedback) error {
	enc := json.NewEncoder(w)
	switch shape {
	case shapeArray:
		enc.SetIndent("", "  ")
		if fbs == nil {
			fbs = []*triage.Feedback{}
		}
		return enc.Encode(fbs)
	case shapeOne:
		enc.SetIndent("", "  ")
	}
	for _, fb := range fbs {
		if err := enc.Encode(fb); err != nil {
			return err
		}
	}
	return nil
}

func readJSONFile(path string, v any) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(data, v); err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s: offset %d: %v", path, se.Offset, err)
		}
		return fmt.Errorf("%s: %v", path, err)
	}
	return nil
}

// escalations writes each escalation to standard error, as a line
// "escalation: {json}".
type escalations struct{ w io.Writer }

func (e *escalations) Notify(_ context.Context, esc triage.Escalation) error {
	line, err := json.Marshal(esc)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(e.w, "escalation: %s\n", line)
	return err
}
