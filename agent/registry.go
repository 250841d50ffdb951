package agent

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"strings"
	"sync"
	"time"

	"go.yaml.in/yaml/v3"

	"github.com/triage-go/triage/fault"
)

// Config is one agent of an agents file.
//
//	agents:
//	  - id: echo
//	    kind: script
//	    description: Echoes the prompt.
//	    capabilities: [chat]
//	    maxSessions: 8
//	    script: {delay: 20ms}
//	  - id: gpt
//	    kind: openai
//	    model: gpt-4o-mini
//	    apiKeyEnv: OPENAI_API_KEY
//	  - id: worker
//	    kind: acp
//	    command: [triage, worker]
//	    workers: 2
//	  - id: panel
//	    kind: team
//	    members: [gpt, worker]
//	    recordFailures: false # its failures are not error records
type Config struct {
	ID           string   `yaml:"id" json:"id"`
	Kind         Kind     `yaml:"kind" json:"kind"`
	Description  string   `yaml:"description" json:"description,omitempty"`
	Capabilities []string `yaml:"capabilities" json:"capabilities,omitempty"`
	MaxSessions  int      `yaml:"maxSessions" json:"maxSessions,omitempty"`

	// Provider agents: the model, the environment variable holding the
	// key (default the provider's usual one), an optional base URL, and
	// the system prompt.
	Model     string `yaml:"model" json:"model,omitempty"`
	APIKeyEnv string `yaml:"apiKeyEnv" json:"apiKeyEnv,omitempty"`
	BaseURL   string `yaml:"baseURL" json:"baseURL,omitempty"`
	System    string `yaml:"system" json:"system,omitempty"`
	MaxTokens int    `yaml:"maxTokens" json:"maxTokens,omitempty"`

	// ACP agents: the command and its environment, how many worker
	// processes, and the deadlines of one request and one prompt.
	Command        []string          `yaml:"command" json:"command,omitempty"`
	Env            map[string]string `yaml:"env" json:"env,omitempty"`
	Dir            string            `yaml:"dir" json:"dir,omitempty"`
	Workers        int               `yaml:"workers" json:"workers,omitempty"`
	RequestTimeout time.Duration     `yaml:"requestTimeout" json:"requestTimeout,omitempty"`

	// Script agents.
	Script *Script `yaml:"script" json:"script,omitempty"`

	// Team agents: the agents of the file that answer together, in the
	// order their answers are given. A member may not be a team.
	Members []string `yaml:"members" json:"members,omitempty"`

	// RecordFailures: every failed AG-UI run of the agent, and every
	// failed MCP tool call about it, becomes an occurrence of an error
	// record (GET /v1/errors) in triage serve. Default true; false opts
	// the agent out.
	RecordFailures *bool `yaml:"recordFailures" json:"recordFailures,omitempty"`
}

// RecordsFailures says whether the agent's failures are recorded:
// RecordFailures, true when unset.
func (c Config) RecordsFailures() bool { return c.RecordFailures == nil || *c.RecordFailures }

// Registry is the agents of an agents file, in order.
type Registry struct {
	Agents []Config
	// IsDefault says the registry is Default's, not a file's.
	IsDefault bool
}

// DefaultAgentID is the id of the default registry's one agent.
const DefaultAgentID = "echo"

// Default is the registry used when no agents file is given: one script
// agent, "echo", which answers "You said: …" a word at a time and fails on
// request (see Script's directives), so the bridge runs with no keys.
func Default() *Registry {
	return &Registry{IsDefault: true, Agents: []Config{{
		ID:           DefaultAgentID,
		Kind:         KindScript,
		Description:  `Echoes the prompt a word at a time. Send "fail with CODE" (e.g. "fail with RATE_LIMITED") to receive that failure, "hang" to wait for a timeout or a cancel, "warn with CODE" for a notice that does not end the answer, or "call NAME {JSON arguments}" to call a tool of yours.`,
		Capabilities: []string{"chat", "streaming", "scripted-failures"},
		Script:       &Script{Delay: 10 * time.Millisecond},
	}}}
}

// MaxFileSize bounds an agents file.
const MaxFileSize = 1 << 20

// Load reads an agents file.
func Load(path string) (*Registry, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fault.Wrap(err, fault.ConfigError, "Cannot read agents file "+path,
			fault.WithDetail("file", path))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, fault.Wrap(err, fault.ConfigError, "Cannot read agents file "+path,
			fault.WithDetail("file", path))
	}
	return Parse(data, path)
}

var idRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$`) })

// Parse reads an agents file's bytes; name is for messages. A file that
// does not describe a usable registry is a CONFIG fault naming the field.
func Parse(data []byte, name string) (*Registry, error) {
	if len(data) > MaxFileSize {
		return nil, configErr(name, "", fmt.Sprintf("the file is larger than %d bytes", MaxFileSize))
	}
	var doc struct {
		Agents []Config `yaml:"agents"`
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, configErr(name, "", strings.TrimPrefix(err.Error(), "yaml: "))
	}
	if len(doc.Agents) == 0 {
		return nil, fault.New(fault.ConfigError, "No agents registered", fault.WithDetail("file", name))
	}
	seen := map[string]bool{}
	for i, a := range doc.Agents {
		field := fmt.Sprintf("agents[%d]", i)
		switch {
		case !idRe().MatchString(a.ID):
			return nil, configErr(name, field+".id", fmt.Sprintf("%q is not an id (letters, digits, '.', '_', '-'; at most 64)", a.ID))
		case seen[a.ID]:
			return nil, configErr(name, field+".id", fmt.Sprintf("%q appears twice", a.ID))
		case a.MaxSessions < 0 || a.Workers < 0:
			return nil, configErr(name, field, "maxSessions and workers may not be negative")
		}
		seen[a.ID] = true
		if !a.Kind.known() {
			return nil, errNotRegistered(a.Kind, fault.WithDetail("file", name), fault.WithDetail("field", field+".kind"))
		}
		if err := checkKind(a); err != nil {
			return nil, configErr(name, field, err.Error())
		}
		if a.Kind == KindTeam {
			if err := checkMembers(a, doc.Agents); err != nil {
				return nil, configErr(name, field+".members", err.Error())
			}
		}
		if a.Kind == KindScript && a.Script != nil && a.Script.Fail != nil && !a.Script.Fail.Code.Known() {
			return nil, configErr(name, field+".script.fail.code", fmt.Sprintf("%q is not a code of the table", a.Script.Fail.Code))
		}
	}
	return &Registry{Agents: doc.Agents}, nil
}

// checkKind refuses settings the agent's kind does not have.
func checkKind(a Config) error {
	switch a.Kind {
	case KindScript:
		if len(a.Command) > 0 || a.Model != "" || len(a.Members) > 0 {
			return errors.New("a script agent takes a script, not a command, a model or members")
		}
	case KindTeam:
		if a.Script != nil || len(a.Command) > 0 || a.Model != "" {
			return errors.New("a team agent takes members, not a script, a command or a model")
		}
	case KindACP:
		if len(a.Command) == 0 {
			return errors.New("an acp agent needs a command")
		}
		if a.Script != nil || a.Model != "" || len(a.Members) > 0 {
			return errors.New("an acp agent takes a command, not a script, a model or members")
		}
	default: // a provider agent
		if a.Script != nil || len(a.Command) > 0 || len(a.Members) > 0 {
			return errors.New("a provider agent takes a model, not a script, a command or members")
		}
	}
	return nil
}

// maxMembers bounds a team: each member is a session and a goroutine per
// prompt.
const maxMembers = 16

// checkMembers checks a team's members: two or more, each an agent of the
// file that is not a team, none twice.
func checkMembers(team Config, all []Config) error {
	if len(team.Members) < 2 || len(team.Members) > maxMembers {
		return fmt.Errorf("a team needs 2 to %d members, not %d", maxMembers, len(team.Members))
	}
	kinds := map[string]Kind{}
	for _, a := range all {
		kinds[a.ID] = a.Kind
	}
	seen := map[string]bool{}
	for _, m := range team.Members {
		kind, ok := kinds[m]
		switch {
		case !ok:
			return fmt.Errorf("%q is not an agent of the file", m)
		case kind == KindTeam:
			return fmt.Errorf("%q is a team; a member must be an agent that answers itself", m)
		case seen[m]:
			return fmt.Errorf("%q appears twice", m)
		}
		seen[m] = true
	}
	return nil
}

// known reports whether an agents file may name k: one of package agent's
// own kinds, a provider kind Triage ships (whether or not its package is
// imported: Start says which to import), or a registered one.
func (k Kind) known() bool {
	switch k {
	case KindScript, KindACP, KindTeam:
		return true
	}
	return isProvider(k)
}

func configErr(file, field, reason string, opts ...fault.Option) *fault.Error {
	msg := reason
	if field != "" {
		msg = field + ": " + reason
	}
	opts = append(opts, fault.WithDetail("file", file))
	if field != "" {
		opts = append(opts, fault.WithDetail("field", field))
	}
	return fault.New(fault.ConfigError, msg, opts...)
}
