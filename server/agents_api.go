package server

import (
	"net/http"

	"github.com/triage-go/triage/agent"
	"github.com/triage-go/triage/fault"
)

// agentList is the answer of GET /v1/agents.
type agentList struct {
	Agents []agent.Info `json:"agents"`
}

// listAgents is GET /v1/agents: the agents of the registry, in its order,
// as agent.Info describes them: the agents POST
// /v1/agents/{agent_id}/runs runs (and /mcp delegates to). A service that
// runs no agents lists none. It takes no query parameters. (PUT
// /v1/callbacks/{agent_id}, a pipeline agent's retry callback, is another
// noun: those agents report errors, and are not listed here.)
func (s *Server) listAgents(w http.ResponseWriter, r *http.Request, tenant string) error {
	if q := r.URL.Query(); len(q) > 0 {
		var errs []fault.FieldError
		for name := range q {
			errs = append(errs, fault.FieldError{Field: name, Message: "is not a parameter; GET /v1/agents takes none"})
		}
		return fault.Invalid("The query is invalid.", errs...)
	}
	out := agentList{Agents: []agent.Info{}}
	if s.cfg.Agents != nil {
		for _, a := range s.cfg.Agents.Agents() {
			if a.Capabilities == nil {
				a.Capabilities = []string{}
			}
			out.Agents = append(out.Agents, a)
		}
	}
	return encodeJSON(w, http.StatusOK, out)
}
