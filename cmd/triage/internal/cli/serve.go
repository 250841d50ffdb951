package cli

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"math"
	"net"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/triage-go/triage/bridge"
	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/policy"
	"github.com/triage-go/triage/server"
	"github.com/triage-go/triage/service"
	"github.com/triage-go/triage/store"
	"github.com/triage-go/triage/store/postgres"
	"github.com/triage-go/triage/store/sqlite"
)

// serveEnv names the environment variable of each serve flag.
var serveEnv = map[string]string{
	"addr":                    "TRIAGE_ADDR",
	"db":                      "TRIAGE_DB",
	"policy":                  "TRIAGE_POLICY",
	"debug":                   "TRIAGE_DEBUG",
	"webhook":                 "TRIAGE_WEBHOOK",
	"escalation-throttle":     "TRIAGE_ESCALATION_THROTTLE",
	"private-callbacks":       "TRIAGE_PRIVATE_CALLBACKS",
	"rate-limit":              "TRIAGE_RATE_LIMIT",
	"rate-burst":              "TRIAGE_RATE_BURST",
	"max-concurrent":          "TRIAGE_MAX_CONCURRENT",
	"max-body":                "TRIAGE_MAX_BODY",
	"max-concurrent-tenant":   "TRIAGE_MAX_CONCURRENT_TENANT",
	"max-streams-tenant":      "TRIAGE_MAX_STREAMS_TENANT",
	"max-mcp-sessions-tenant": "TRIAGE_MAX_MCP_SESSIONS_TENANT",
	"body-timeout":            "TRIAGE_BODY_TIMEOUT",
	"min-body-rate":           "TRIAGE_MIN_BODY_RATE",
	"auth-fail-rate":          "TRIAGE_AUTH_FAIL_RATE",
	"auth-fail-burst":         "TRIAGE_AUTH_FAIL_BURST",
	"log-repeat":              "TRIAGE_LOG_REPEAT",
	"retain-records":          "TRIAGE_RETAIN_RECORDS",
	"retain-runs":             "TRIAGE_RETAIN_RUNS",
	"problem-base":            "TRIAGE_PROBLEM_BASE",
	"mcp-max-concurrent":      "TRIAGE_MCP_MAX_CONCURRENT",
	"riverui":                 "TRIAGE_RIVERUI",
	"alerts":                  "TRIAGE_ALERTS",
	"public-url":              "TRIAGE_PUBLIC_URL",
	"cors-origins":            "TRIAGE_CORS_ORIGINS",
}

func init() {
	// The MCP bridge's flags, which serve shares with `triage bridge`.
	for flag, env := range bridgeEnv {
		if _, taken := serveEnv[flag]; !taken && flag != "max-concurrent" && flag != "service" {
			serveEnv[flag] = env
		}
	}
}

// days is a duration flag that also takes whole days ("90d").
type days struct{ d *time.Duration }

func (f days) String() string {
	if f.d == nil || *f.d == 0 {
		return "0"
	}
	if *f.d%(24*time.Hour) == 0 {
		return strconv.FormatInt(int64(*f.d/(24*time.Hour)), 10) + "d"
	}
	return f.d.String()
}

func (f days) Set(s string) error {
	var d time.Duration
	if n, ok := strings.CutSuffix(s, "d"); ok {
		v, err := strconv.ParseUint(n, 10, 64)
		if err != nil || v > uint64(math.MaxInt64/int64(24*time.Hour)) {
			return fmt.Errorf("%q is not a number of days (90d) or a duration (36h), up to 106751 days", s)
		}
		d = time.Duration(v) * 24 * time.Hour
	} else {
		var err error
		if d, err = time.ParseDuration(s); err != nil || d < 0 {
			return fmt.Errorf("%q is not a number of days (90d) or a duration (36h), up to 106751 days", s)
		}
	}
	*f.d = d
	return nil
}

// runServe is `triage serve`: the Error Handler service.
func runServe(ctx context.Context, args []string, env Env) error {
	fs := flag.NewFlagSet("triage serve", flag.ContinueOnError)
	addr := fs.String("addr", "127.0.0.1:8080", "listen on `HOST:PORT` (port 0 picks a free one)")
	db := fs.String("db", "triage.db", "storage: a SQLite file `path`, or a postgres:// URL")
	policyFile := fs.String("policy", "", "recovery policy `file` (YAML) replacing the default policy")
	debug := fs.Bool("debug", false, "debug logs, and debug details in problems (also TRIAGE_ENV=development)")
	webhook := fs.String("webhook", "", "post escalations as JSON to this `URL` (default: log them)")
	escalationThrottle := fs.Duration("escalation-throttle", time.Hour, "post (or log) at most one escalation of a record per `interval`; the next says how many were held back (negative: every one)")
	alertsFile := fs.String("alerts", "", "alert rules and targets `file` (YAML or JSON) of the tenants it names: theirs, read-only through /v1/alerts/…")
	publicURL := fs.String("public-url", "", "the dashboard's address as the alerts' readers reach it (`URL`): each alert links to its record's page under it")
	privateCallbacks := fs.Bool("private-callbacks", false, "with API keys, let agents' callbacks and alert targets reach loopback, private and link-local addresses (without keys they always may)")
	rateLimit := fs.Float64("rate-limit", server.DefaultRateLimit, "each tenant's sustained `requests` per second (negative: no limit)")
	rateBurst := fs.Int("rate-burst", server.DefaultRateBurst, "each tenant's burst of `requests`")
	maxConcurrent := fs.Int("max-concurrent", server.DefaultMaxConcurrent, "API `requests` in progress before 503")
	maxBody := fs.Int64("max-body", server.DefaultMaxBody, "largest request body, in `bytes`")
	tenantConcurrent := fs.Int("max-concurrent-tenant", 0, "API `requests` one tenant may have in progress before 429 (0: a quarter of --max-concurrent when the keys name more than one tenant, else all of it)")
	tenantStreams := fs.Int("max-streams-tenant", server.DefaultTenantStreams, "event `streams` (GET /v1/events) one tenant may hold open before 429")
	tenantMCP := fs.Int("max-mcp-sessions-tenant", server.DefaultTenantMCPSessions, "MCP `sessions` one tenant may hold open at /mcp; one more closes its least recently used idle one, or is 429 when each has work in flight")
	bodyTimeout := fs.Duration("body-timeout", server.DefaultBodyTimeout, "a request body must arrive within this `duration` (at most 30s) before 408")
	minBodyRate := fs.Int64("min-body-rate", server.DefaultMinBodyRate, "a request body must arrive at this average rate, in `bytes` a second, after its first 2s, before 408 (negative: no minimum)")
	authFailRate := fs.Float64("auth-fail-rate", server.DefaultAuthFailRate, "each client address's sustained failed authentications per second before 429 (negative: no limit)")
	authFailBurst := fs.Int("auth-fail-burst", server.DefaultAuthFailBurst, "each client address's burst of failed authentications")
	logRepeat := fs.Int("log-repeat", server.DefaultLogRepeat, "`lines` of one warning or error message written per 10s, the others counted in one line (negative: all)")
	problemBase := fs.String("problem-base", "", "resolve problem types against this absolute `URI` (default: relative, served at /errors/{type})")
	corsOrigins := fs.String("cors-origins", "", "let web pages on these `origins` (comma-separated, as https://app.example.com; \"*\" alone: any, which needs API keys) call the API (/v1/…) from a browser: CORS, off by default")
	riverUI := fs.Bool("riverui", false, "serve River's web UI for the jobs at /riverui/: every tenant's jobs, for operators, behind TRIAGE_OPERATOR_KEY (required when API keys are set); in a binary built with -tags riverui")
	var bf bridgeFlags
	bf.register(fs)
	fs.IntVar(&bf.maxConcurrent, "mcp-max-concurrent", bridge.DefaultMaxConcurrent, "MCP tool calls running at once at /mcp before \"Server overloaded\" (`calls`)")
	var nf natsFlags
	nf.register(fs)
	var retainRecords, retainRuns time.Duration
	fs.Var(days{&retainRuns}, "retain-runs", "delete AG-UI run records started longer ago than this `age` (7d, 36h; 0: the default, 7 days)")
	fs.Var(days{&retainRecords}, "retain-records", "delete error records last seen longer ago than this `age` (90d, 36h), with their occurrences and jobs (0: keep them)")
	fs.Usage = func() {
		fmt.Fprintf(env.Stderr, "Usage: triage serve [flags]\n\nRuns the Error Handler service. Each flag may also come from its environment\nvariable (the flag wins); API keys come from TRIAGE_API_KEYS=\"tenant=key,…\"\nand the file TRIAGE_API_KEYS_FILE names (a tenant=key per line); the operator\nkey of --riverui from TRIAGE_OPERATOR_KEY or the file TRIAGE_OPERATOR_KEY_FILE names.\n\n")
		fs.VisitAll(func(f *flag.Flag) {
			name, usage := flag.UnquoteUsage(f)
			fmt.Fprintf(env.Stderr, "  --%s %s\n    \t%s (%s; default %q)\n", f.Name, name, usage, serveEnv[f.Name], f.DefValue)
		})
	}
	if err := fromEnv(fs, serveEnv); err != nil {
		return usagef("%v", err)
	}
	if err := parse(fs, args, env); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usagef("unexpected argument %q", fs.Arg(0))
	}
	if err := bf.check(); err != nil {
		return err
	}
	if err := nf.check(); err != nil {
		return err
	}
	for _, c := range []struct {
		bad bool
		msg string
	}{
		{bf.maxConcurrent <= 0, "--mcp-max-concurrent must be more than 0"},
		{*tenantConcurrent < 0, "--max-concurrent-tenant must be 0 (a share of --max-concurrent) or more"},
		{*tenantStreams <= 0, "--max-streams-tenant must be 1 or more"},
		{*tenantMCP <= 0, "--max-mcp-sessions-tenant must be 1 or more"},
		{*bodyTimeout <= 0 || *bodyTimeout > server.ReadTimeout, "--body-timeout must be more than 0 and at most " + server.ReadTimeout.String()},
		{*minBodyRate == 0, "--min-body-rate must not be 0 (negative: no minimum)"},
		{*authFailRate == 0, "--auth-fail-rate must not be 0 (negative: no limit)"},
		{*authFailBurst <= 0, "--auth-fail-burst must be 1 or more"},
		{*logRepeat == 0, "--log-repeat must not be 0 (negative: every line is written)"},
	} {
		if c.bad {
			return usagef("%s", c.msg)
		}
	}
	if os.Getenv("TRIAGE_ENV") == "development" {
		*debug = true
	}
	level := slog.LevelInfo
	if *debug {
		level = slog.LevelDebug
	}
	log := slog.New(slog.NewTextHandler(env.Stderr, &slog.HandlerOptions{Level: level}))

	keys, err := apiKeys()
	if err != nil {
		return usagef("%v", err)
	}
	opKey, err := operatorKey(keys)
	if err != nil {
		return usagef("%v", err)
	}
	origins, err := server.ParseCORSOrigins(*corsOrigins)
	if err != nil {
		return usagef("--cors-origins: %v", err)
	}
	if slices.Contains(origins, server.CORSAllOrigins) && !keysSet(keys) {
		return usagef(`--cors-origins "*" needs API keys (TRIAGE_API_KEYS): without them every web page a browser opens could read and change the records`)
	}
	if *riverUI && !riverUIBuilt {
		return usagef("--riverui: this triage command was built without River's web UI: %s", rebuildHint("riverui"))
	}
	if *riverUI && keysSet(keys) && opKey == "" {
		return usagef("--riverui needs TRIAGE_OPERATOR_KEY when API keys are set: River's UI shows and changes every tenant's jobs")
	}
	cfg := server.Config{APIKeys: keys, RateLimit: *rateLimit, RateBurst: *rateBurst, MaxConcurrent: *maxConcurrent,
		MaxBody: *maxBody, Webhook: *webhook, EscalationThrottle: *escalationThrottle, PrivateCallbacks: *privateCallbacks, Debug: *debug, ProblemBaseURI: *problemBase, Logger: log,
		Retention:        store.Retention{Records: retainRecords, Runs: retainRuns},
		TenantConcurrent: *tenantConcurrent, TenantStreams: *tenantStreams, TenantMCPSessions: *tenantMCP, BodyTimeout: *bodyTimeout, MinBodyRate: *minBodyRate,
		AuthFailRate: *authFailRate, AuthFailBurst: *authFailBurst, LogRepeat: *logRepeat,
		OperatorKey: opKey, CORSOrigins: origins}
	if *policyFile != "" {
		if cfg.Policy, err = policy.Load(*policyFile, nil); err != nil {
			return err
		}
	}
	if *problemBase != "" {
		if u, err := url.Parse(*problemBase); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--problem-base must be an absolute http or https URI")
		}
	}
	if *webhook != "" {
		if u, err := url.Parse(*webhook); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--webhook must be an absolute http or https URL")
		}
	}
	if *publicURL != "" {
		if u, err := url.Parse(*publicURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return usagef("--public-url must be an absolute http or https URL")
		}
		cfg.PublicURL = *publicURL
	}
	if *alertsFile != "" {
		data, err := os.ReadFile(*alertsFile)
		if err != nil {
			return usagef("--alerts: %v", err)
		}
		if cfg.Alerts, err = service.ParseAlerts(data, *alertsFile); err != nil {
			return usagef("--alerts: %v", err)
		}
	}
	tr, err := startTracing(ctx, &cfg, log)
	if err != nil {
		return err
	}
	defer stopTracing(tr, log) // last: after the store, the spans of the shutdown too
	st, err := openStore(ctx, *db)
	if err != nil {
		return err
	}
	defer st.Close()
	cfg.Store = st.Store
	if *riverUI {
		if cfg.JobsUI, err = st.riverUI(log.With(slog.String("component", "riverui"))); err != nil {
			return err
		}
	}
	share := 0
	if tenants(keys) > 1 {
		share = 4
	}
	agents, err := bf.start(ctx, log, share)
	if err != nil {
		return err
	}
	defer agents.Shutdown()
	bopts := bf.options(agents, log)
	bopts.Owner = server.MCPOwner
	cfg.Bridge = bridge.New(bopts)
	cfg.Agents = agents
	cfg.UI = env.UI
	srv, err := server.New(cfg)
	if err != nil {
		return err
	}
	in, err := nf.start(ctx, srv)
	if err != nil {
		return err
	}
	if in != nil {
		defer in.Close() // before the store closes: drains the messages in hand
	}
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		return fault.Wrap(err, fault.ConfigError, "Cannot listen on "+*addr+".")
	}
	base := "http://" + ln.Addr().String()
	fmt.Fprintf(env.Stdout, "Triage Error Handler listening on %s (storage: %s)\n", base, st.what)
	// A report of its own, so that the line works from any directory; with
	// API keys, a key's placeholder (never a key: this is a terminal, or a
	// log), which the shell expands.
	auth := ""
	if keysSet(keys) {
		auth = ` -H "X-API-Key: $TRIAGE_API_KEY"`
	}
	fmt.Fprintf(env.Stdout, "Try it:\n  curl -s %s/v1/errors%s -H 'Content-Type: application/json' -d '%s'\n", base, auth, tryReport)
	if keysSet(keys) {
		fmt.Fprintln(env.Stdout, "  (first set TRIAGE_API_KEY to one of the API keys)")
	}
	fmt.Fprintf(env.Stdout, "MCP bridge at %s/mcp (streamable HTTP; %d agents)\n", base, len(agents.Agents()))
	nf.describe(env.Stdout)
	if env.UI != nil {
		fmt.Fprintf(env.Stdout, "Dashboard at %s/\n", base)
	}
	if len(origins) > 0 {
		fmt.Fprintf(env.Stdout, "CORS: the API answers web pages on %s\n", strings.Join(origins, ", "))
	}
	if *riverUI {
		fmt.Fprintf(env.Stdout, "River's UI at %s%s/ (jobs of every tenant", base, server.JobsUIPath)
		if opKey != "" {
			fmt.Fprint(env.Stdout, "; the operator key is its password")
		}
		fmt.Fprintln(env.Stdout, ")")
	}
	if !keysSet(keys) {
		fmt.Fprintf(env.Stdout, "  (no API keys: every request is the %q tenant's)\n", server.DefaultTenant)
	}
	err = srv.Serve(ctx, ln)
	log.Info("stopped", slog.Any("error", err))
	return err
}

// apiKeys reads the API keys: TRIAGE_API_KEYS ("tenant=key,…"), and the
// file TRIAGE_API_KEYS_FILE names (one tenant=key per line; blank lines
// and lines starting with # are skipped), together.
func apiKeys() (map[string]string, error) {
	spec := os.Getenv("TRIAGE_API_KEYS")
	if path := os.Getenv("TRIAGE_API_KEYS_FILE"); path != "" {
		data, err := os.ReadFile(path)
		if err != nil {
			return nil, fmt.Errorf("TRIAGE_API_KEYS_FILE: %v", err)
		}
		for _, line := range strings.Split(string(data), "\n") {
			if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
				spec += "," + line
			}
		}
	}
	keys, err := server.ParseAPIKeys(spec)
	if err != nil {
		return nil, fmt.Errorf("TRIAGE_API_KEYS: %v", err)
	}
	return keys, nil
}

func keysSet(keys map[string]string) bool { return len(keys) > 0 }

// operatorKey reads the key of --riverui's UI: TRIAGE_OPERATOR_KEY, or
// the content of the file TRIAGE_OPERATOR_KEY_FILE names (spaces around it
// trimmed). It has at least 16 characters and is none of the API keys.
func operatorKey(keys map[string]string) (string, error) {
	key := os.Getenv("TRIAGE_OPERATOR_KEY")
	if path := os.Getenv("TRIAGE_OPERATOR_KEY_FILE"); path != "" {
		if key != "" {
			return "", errors.New("TRIAGE_OPERATOR_KEY and TRIAGE_OPERATOR_KEY_FILE are both set: set one")
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return "", fmt.Errorf("TRIAGE_OPERATOR_KEY_FILE: %v", err)
		}
		key = string(data)
	}
	key = strings.TrimSpace(key)
	switch _, taken := keys[key]; {
	case key == "":
		return "", nil
	case len(key) < 16:
		return "", errors.New("TRIAGE_OPERATOR_KEY: the operator key has at least 16 characters")
	case taken:
		return "", errors.New("TRIAGE_OPERATOR_KEY: the operator key must not be a tenant's API key")
	}
	return key, nil
}

// tenants counts the tenants keys name.
func tenants(keys map[string]string) int {
	seen := map[string]bool{}
	for _, t := range keys {
		seen[t] = true
	}
	return len(seen)
}

// openedStore is the storage --db names, what to call it, and how to
// build River's web UI for its job queue (--riverui), which takes the
// store's own River client.
type openedStore struct {
	store.Store
	what    string
	riverUI func(log *slog.Logger) (server.JobsUI, error)
}

// openStore opens the storage --db names: a postgres:// (or postgresql://)
// URL, else a SQLite file.
func openStore(ctx context.Context, db string) (*openedStore, error) {
	octx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	if strings.HasPrefix(db, "postgres://") || strings.HasPrefix(db, "postgresql://") {
		st, err := postgres.Open(octx, db, store.Config{})
		if err != nil {
			return nil, fault.Wrap(err, fault.ConfigError, "Cannot open the PostgreSQL database.")
		}
		return &openedStore{Store: st, what: "PostgreSQL " + fault.Redact(redactURL(db)),
			riverUI: func(log *slog.Logger) (server.JobsUI, error) {
				return newRiverUI(st.RiverClient(), log)
			}}, nil
	}
	st, err := sqlite.Open(octx, db, store.Config{})
	if err != nil {
		return nil, fault.Wrap(err, fault.ConfigError, "Cannot open the SQLite database "+db+".")
	}
	return &openedStore{Store: st, what: "SQLite " + db,
		riverUI: func(log *slog.Logger) (server.JobsUI, error) {
			return newRiverUI(st.RiverClient(), log)
		}}, nil
}

// redactURL drops a URL's password.
func redactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// fromEnv sets each flag whose environment variable is set; the command
// line, parsed after, wins.
func fromEnv(fs *flag.FlagSet, names map[string]string) error {
	var err error
	fs.VisitAll(func(f *flag.Flag) {
		name := names[f.Name]
		v, ok := os.LookupEnv(name)
		if !ok || err != nil {
			return
		}
		if _, isBool := f.Value.(interface{ IsBoolFlag() bool }); isBool {
			if _, perr := strconv.ParseBool(v); perr != nil {
				err = fmt.Errorf("%s=%q is not a boolean", name, v)
				return
			}
		}
		if serr := f.Value.Set(v); serr != nil {
			err = fmt.Errorf("%s: %v", name, serr)
		}
	})
	return err
}

// tryReport is the report serve's "Try it" line posts: db_timeout.json
// of cmd/triage/internal/cli/testdata/handle without its context.
const tryReport = `{"agent_id":"query_engine","timestamp":"2025-08-08T12:20:05Z","status":"error",` +
	`"data":{"error_type":"query_error","error_code":"DB_TIMEOUT","message":"Query timed out after 30s","query_id":"q_456"}}`
