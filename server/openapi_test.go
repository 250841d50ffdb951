package server

import (
	"encoding/json"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// openAPICheck validates what the service answered to method path (the
// route's pattern, as openapi.json has it) against the schema the document
// gives that status and content type: the document's schemas are
// generated from Go types, and this holds them to what the server writes.
type openAPICheck struct {
	t       *testing.T
	paths   map[string]map[string]json.RawMessage
	schemas map[string]any
}

func newOpenAPICheck(t *testing.T) *openAPICheck {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPIDoc, &doc); err != nil {
		t.Fatal(err)
	}
	return &openAPICheck{t: t, paths: doc.Paths, schemas: doc.Components.Schemas}
}

func (d *openAPICheck) check(method, pattern string, r response) {
	d.t.Helper()
	var op struct {
		Responses map[string]struct {
			Ref     string `json:"$ref"`
			Content map[string]struct {
				Schema any `json:"schema"`
			} `json:"content"`
		} `json:"responses"`
	}
	if err := json.Unmarshal(d.paths[pattern][strings.ToLower(method)], &op); err != nil {
		d.t.Fatalf("%s %s: %v", method, pattern, err)
	}
	answer, ok := op.Responses[strconv.Itoa(r.status)]
	if !ok {
		d.t.Errorf("%s %s answered %d, which the document does not list: %s", method, pattern, r.status, r.body)
		return
	}
	ct := r.header.Get("Content-Type")
	if ct == "application/problem+json" && answer.Ref != "" {
		answer.Content = map[string]struct {
			Schema any `json:"schema"`
		}{ct: {Schema: map[string]any{"$ref": "#/components/schemas/Problem"}}}
	}
	media, ok := answer.Content[ct]
	if !ok {
		d.t.Errorf("%s %s %d: Content-Type %q is not openAPICheck", method, pattern, r.status, ct)
		return
	}
	// The components as a JSON Schema's $defs, the response's schema
	// referring to them.
	root := map[string]any{"$defs": d.schemas, "allOf": []any{media.Schema}}
	data, err := json.Marshal(root)
	if err != nil {
		d.t.Fatal(err)
	}
	data = []byte(strings.ReplaceAll(string(data), "#/components/schemas/", "#/$defs/"))
	var s jsonschema.Schema
	if err := json.Unmarshal(data, &s); err != nil {
		d.t.Fatal(err)
	}
	rs, err := s.Resolve(nil)
	if err != nil {
		d.t.Fatalf("the document's schemas do not resolve: %v", err)
	}
	var v any
	if err := json.Unmarshal(r.body, &v); err != nil {
		d.t.Fatalf("%s %s %d: %v", method, pattern, r.status, err)
	}
	if err := rs.Validate(v); err != nil {
		d.t.Errorf("%s %s %d does not match the document: %v\n%s", method, pattern, r.status, err, r.body)
	}
}

// The service's answers, successes and problems, are what openapi.json
// says they are.
func TestAnswersMatchTheDocument(t *testing.T) {
	f := newFixture(t, nil)
	f.loadInventory(nil)
	d := newOpenAPICheck(t)
	var errorID string
	for _, name := range scenarios {
		r := f.do("POST", "/v1/errors", readFile(t, goldenDir+"/"+name+".json"), nil)
		d.check("POST", "/v1/errors", r)
		errorID = r.json(t)["error_id"].(string)
		d.check("POST", "/v1/errors", f.do("POST", "/v1/errors", readFile(t, goldenDir+"/"+name+".json"), nil))
	}
	d.check("POST", "/v1/errors", f.do("POST", "/v1/errors", []byte(`{"agent_id":"a b","data":{}}`), nil))
	d.check("POST", "/v1/errors", f.do("POST", "/v1/errors", []byte(`{"agent_id":`), nil))
	d.check("GET", "/v1/errors", f.do("GET", "/v1/errors?limit=2", nil, nil))
	d.check("GET", "/v1/errors", f.do("GET", "/v1/errors?limit=0", nil, nil))
	d.check("GET", "/v1/errors/{error_id}", f.do("GET", "/v1/errors/"+url.PathEscape(errorID), nil, nil))
	d.check("GET", "/v1/errors/{error_id}", f.do("GET", "/v1/errors/err_nope", nil, nil))
	d.check("GET", "/v1/errors/{error_id}/occurrences", f.do("GET", "/v1/errors/"+url.PathEscape(errorID)+"/occurrences", nil, nil))
	d.check("PUT", "/v1/schemas/{source}", f.do("PUT", "/v1/schemas/sales", []byte(`{"fields":["sku_id"],"synonyms":{"product_id":"sku_id"}}`), nil))
	d.check("PUT", "/v1/cache/{query_id}", f.do("PUT", "/v1/cache/q_1", []byte(`{"summary":"48 rows","data":{"rows":48}}`), nil))
	d.check("PUT", "/v1/callbacks/{agent_id}", f.do("PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"https://agents.example/retry"}`), nil))
	d.check("PUT", "/v1/agents/{agent_id}", f.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"ftp://x"}`), nil))
	d.check("GET", "/v1/agents", f.do("GET", "/v1/agents", nil, nil))
	d.check("GET", "/v1/runs/{run_id}", f.do("GET", "/v1/runs/r_nope", nil, nil))
	d.check("GET", "/healthz", f.do("GET", "/healthz", nil, nil))
	d.check("GET", "/readyz", f.do("GET", "/readyz", nil, nil))
	d.check("GET", "/errors", f.do("GET", "/errors", nil, map[string]string{"Accept": "application/json"}))
	d.check("GET", "/errors/{type}", f.do("GET", "/errors/rate-limited", nil, map[string]string{"Accept": "application/json"}))
}
