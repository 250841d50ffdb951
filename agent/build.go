package agent

import (
	"log/slog"
	"slices"
)

// BuildOptions are what building a registry's agents needs from outside.
// A nil *BuildOptions is the zero BuildOptions: the defaults.
type BuildOptions struct {
	// Getenv reads credentials (default os.Getenv).
	Getenv func(string) string
	// Logger receives worker output and agent events (default: discard).
	Logger *slog.Logger
}

// Build makes the registry's agents. Nothing is started yet: a missing
// credential or a worker that does not start is found by Manager.Start.
func (r *Registry) Build(o *BuildOptions) []Agent {
	var opts BuildOptions
	if o != nil {
		opts = *o
	}
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	out := make([]Agent, 0, len(r.Agents))
	for _, c := range r.Agents {
		info := Info{ID: c.ID, Kind: c.Kind, Description: c.Description,
			Capabilities: slices.Clone(c.Capabilities), MaxSessions: c.MaxSessions,
			Executor: ExecutorInProcess, Model: c.Model, Members: slices.Clone(c.Members),
			RecordFailures: c.RecordsFailures()}
		if info.Capabilities == nil {
			info.Capabilities = []string{}
		}
		if info.MaxSessions <= 0 {
			info.MaxSessions = DefaultMaxSessions
		}
		var b Backend
		switch c.Kind {
		case KindScript:
			s := Script{}
			if c.Script != nil {
				s = *c.Script
			}
			b = newScript(c.ID, s)
		case KindACP:
			info.Executor = ExecutorWorker
			b = newWorker(c, opts)
		case KindTeam:
			b = newTeam(c.ID, c.Members)
		default:
			b = newProvider(c, opts)
		}
		out = append(out, Agent{Info: info, Backend: b})
	}
	return out
}
