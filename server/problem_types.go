package server

import (
	"html/template"
	"net/http"

	"github.com/triage-go/triage/fault"
	"github.com/triage-go/triage/internal/negotiate"
)

// A problem's type is a URI that identifies the kind of problem (RFC 9457
// §3.1.1); the RFC advises that it resolve to documentation for people.
// Every type in the code table is a relative reference, "/errors/rate-limited",
// so, unless Config.ProblemBaseURI points elsewhere, it resolves against the
// service itself: these routes are those pages. GET /errors lists every
// type; GET /errors/{type} describes one. Each answers HTML, or JSON when
// the request's Accept prefers application/json. Neither needs an API key:
// the code table is public.

// problemTypeDoc is what a type page says, as JSON.
type problemTypeDoc struct {
	Type         string `json:"type"`
	Title        string `json:"title"`
	Code         string `json:"code"`
	Status       int    `json:"status"`
	Category     string `json:"category"`
	Domain       string `json:"domain"`
	Retryable    bool   `json:"retryable"`
	SessionValid bool   `json:"session_valid"`
	JSONRPC      int    `json:"jsonrpc_code"`
	Summary      string `json:"summary"`
	Message      string `json:"message"`
	// StatusCases are the statuses the code carries in particular cases,
	// besides Status.
	StatusCases []fault.StatusCase `json:"status_cases,omitempty"`
}

func typeDoc(spec fault.Spec) problemTypeDoc {
	return problemTypeDoc{Type: spec.Type, Title: spec.Title, Code: string(spec.Code), Status: spec.Status,
		Category: string(spec.Category), Domain: string(spec.Domain), Retryable: spec.Retryable,
		SessionValid: spec.SessionValid, JSONRPC: spec.JSONRPC, Summary: spec.Summary, Message: spec.Message,
		StatusCases: spec.Code.StatusCases()}
}

func (s *Server) problemTypes(w http.ResponseWriter, r *http.Request) error {
	specs := fault.Codes()
	docs := make([]problemTypeDoc, len(specs))
	for i, spec := range specs {
		docs[i] = typeDoc(spec)
	}
	if wantsJSON(r) {
		return encodeJSON(w, http.StatusOK, docs)
	}
	return writeHTML(w, typesPage, docs)
}

func (s *Server) problemType(w http.ResponseWriter, r *http.Request) error {
	path := "/errors/" + r.PathValue("type")
	for _, spec := range fault.Codes() {
		if spec.Type == path {
			if wantsJSON(r) {
				return encodeJSON(w, http.StatusOK, typeDoc(spec))
			}
			return writeHTML(w, typePage, typeDoc(spec))
		}
	}
	return fault.New(fault.NotFound, "No such problem type; GET /errors lists them.")
}

// wantsJSON reports whether the request's Accept prefers JSON
// (application/json, or application/problem+json) to HTML, which a
// browser's Accept, or none, gets (see negotiate.Best).
func wantsJSON(r *http.Request) bool {
	switch negotiate.Best(r.Header.Values("Accept"), "text/html", "application/json", "application/problem+json") {
	case "application/json", "application/problem+json":
		return true
	}
	return false
}

func writeHTML(w http.ResponseWriter, t *template.Template, data any) error {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	return t.Execute(w, data)
}

const pageHead = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>{{template "title" .}}</title>
<style>body{font:16px/1.5 system-ui,sans-serif;max-width:46rem;margin:2rem auto;padding:0 1rem}
table{border-collapse:collapse}td,th{border-bottom:1px solid #ddd;padding:.3rem .6rem;text-align:left}
code{font-size:.95em}</style></head><body>`

var (
	typePage = template.Must(template.New("type").Parse(`{{define "title"}}{{.Title}} — Triage problem type{{end}}` + pageHead + `
<h1>{{.Title}}</h1>
<p>{{.Summary}}</p>
<table>
<tr><th>code</th><td><code>{{.Code}}</code></td></tr>
<tr><th>type</th><td><code>{{.Type}}</code></td></tr>
<tr><th>HTTP status</th><td>{{.Status}}{{range .StatusCases}}; {{.Status}} for {{.When}}{{end}}</td></tr>
<tr><th>category</th><td>{{.Category}}</td></tr>
<tr><th>domain</th><td>{{.Domain}}</td></tr>
<tr><th>retryable by default</th><td>{{if .Retryable}}yes{{else}}no{{end}}</td></tr>
<tr><th>session valid by default</th><td>{{if .SessionValid}}yes{{else}}no{{end}}</td></tr>
<tr><th>JSON-RPC code</th><td>{{.JSONRPC}}</td></tr>
<tr><th>default message</th><td>{{.Message}}</td></tr>
</table>
<p>A problem of this type may override a default: its own <code>retryable</code>,
<code>retry_after</code> and <code>session_valid</code> members are the ones to follow.
<a href="/errors">Every problem type</a>.</p>
</body></html>
`))
	typesPage = template.Must(template.New("types").Parse(`{{define "title"}}Triage problem types{{end}}` + pageHead + `
<h1>Triage problem types</h1>
<p>Every problem this service answers (<code>application/problem+json</code>, RFC 9457) has one of
these types, and the same <code>code</code> member.</p>
<table><tr><th>type</th><th>code</th><th>status</th><th>meaning</th></tr>
{{range .}}<tr><td><a href="{{.Type}}"><code>{{.Type}}</code></a></td><td><code>{{.Code}}</code></td><td>{{.Status}}{{range .StatusCases}}, {{.Status}}{{end}}</td><td>{{.Summary}}</td></tr>
{{end}}</table>
</body></html>
`))
)
