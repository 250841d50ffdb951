package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

func main() {
	out := flag.String("o", "openapi.json", "the file to write")
	flag.Parse()
	doc, err := Document()
	if err == nil {
		err = os.WriteFile(*out, doc, 0o644)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "openapigen:", err)
		os.Exit(1)
	}
}

// obj and list are JSON values written in Go: a schema, or a member of
// the document.
type (
	obj  = map[string]any
	list = []any
)

// operation is one operation of the API: a route of the server.
type operation struct {
	method, path, id     string
	summary, description string
	deprecated           bool
	// public operations need no API key; security, when set, replaces
	// the document's (an optional key: a list with {}).
	public   bool
	security list
	params   []param
	// body is the request body, when the operation takes one.
	body *media
	// ok are the success answers; problems the statuses of its problem
	// documents, each with what it means there (or a shared response).
	ok       []answer
	problems []problem
}

type param struct {
	name, in, description string
	required              bool
	schema                any
}

// media is a body of one content type; its schema is an obj, or a Go
// type's (of).
type media struct {
	contentType string
	schema      any
}

type answer struct {
	status      int
	description string
	content     []media
	headers     obj
}

// problem is an error status of an operation: its description, or the
// name of a response of the components (shared).
type problem struct {
	status      int
	description string
	shared      string
	// rpc: the status may carry a JSON-RPC error response instead (/mcp).
	rpc bool
}

// goType is a Go type whose schema a document holds: a component's $ref
// when the type is one, or the schema jsonschema.For infers.
type goType struct{ t reflect.Type }

// of is T's schema.
func of[T any]() goType { return goType{reflect.TypeFor[T]()} }

// ref is a reference to the component schema name.
func ref(name string) obj { return obj{"$ref": "#/components/schemas/" + name} }

// Document is the OpenAPI document, indented, with a final newline.
func Document() ([]byte, error) {
	g, err := newGenerator()
	if err != nil {
		return nil, err
	}
	paths := obj{}
	for _, op := range append(slices.Clone(mcpOperations), operations...) {
		o, err := g.operation(op)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op.method, op.path, err)
		}
		item, _ := paths[op.path].(obj)
		if item == nil {
			item = obj{}
			paths[op.path] = item
		}
		item[strings.ToLower(op.method)] = o
	}
	doc := obj{
		"openapi":  "3.1.0",
		"info":     info,
		"servers":  list{obj{"url": "http://127.0.0.1:8080"}},
		"security": list{obj{"bearer": list{}}, obj{"apiKey": list{}}},
		"paths":    paths,
		"components": obj{
			"securitySchemes": securitySchemes,
			"responses":       g.responses(),
			"schemas":         g.schemas,
		},
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// generator resolves schemas against the components.
type generator struct {
	names   map[reflect.Type]string // the components' Go types
	schemas obj                     // the components' schemas, by name
}

func newGenerator() (*generator, error) {
	g := &generator{names: map[reflect.Type]string{}, schemas: obj{}}
	for _, c := range components {
		if c.typ != nil {
			g.names[c.typ] = c.name
		}
	}
	for _, c := range components {
		s, err := g.component(c)
		if err != nil {
			return nil, fmt.Errorf("schema %s: %w", c.name, err)
		}
		g.schemas[c.name] = s
	}
	return g, nil
}

// component is c's schema: its Go type's, with c's patches, or c.schema.
func (g *generator) component(c component) (obj, error) {
	if c.schema != nil {
		return normalize(c.schema, c.closed).(obj), nil
	}
	s, err := g.infer(c.typ, c.closed)
	if err != nil {
		return nil, err
	}
	for _, path := range sortedKeys(c.patch) {
		if err := patch(s, path, c.patch[path]); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// infer is t's schema as jsonschema.For has it, the other components'
// types by reference.
func (g *generator) infer(t reflect.Type, closed bool) (obj, error) {
	known := map[reflect.Type]*jsonschema.Schema{}
	for k, v := range typeSchemas {
		known[k] = v
	}
	embedded := map[reflect.Type]bool{t: true}
	if t.Kind() == reflect.Struct {
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous {
				embedded[f.Type] = true // its fields are t's
			}
		}
	}
	for k, name := range g.names {
		if !embedded[k] {
			known[k] = &jsonschema.Schema{Ref: "#/components/schemas/" + name}
		}
	}
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{TypeSchemas: known})
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	var m obj
	if err := json.Unmarshal(data, &m); err != nil {
		return nil, err
	}
	return normalize(m, closed).(obj), nil
}

// normalize writes an inferred schema as the API has it: a Go pointer or
// slice is never null in its JSON (the fields that may be missing are
// omitted); a reference stands alone; only a closed schema (a request
// body the service decodes strictly) refuses members it does not list.
func normalize(v any, closed bool) any {
	switch x := v.(type) {
	case obj:
		out := obj{}
		for k, e := range x {
			out[k] = normalize(e, closed)
		}
		if _, ok := out["$ref"]; ok {
			delete(out, "type")
		}
		if types, ok := out["type"].(list); ok {
			var rest list
			for _, t := range types {
				if t != "null" {
					rest = append(rest, t)
				}
			}
			switch len(rest) {
			case 0:
				delete(out, "type")
			case 1:
				out["type"] = rest[0]
			default:
				out["type"] = rest
			}
		}
		if ap, ok := out["additionalProperties"].(bool); ok && !ap && !closed {
			delete(out, "additionalProperties")
		}
		return out
	case list:
		out := make(list, len(x))
		for i, e := range x {
			out[i] = normalize(e, closed)
		}
		return out
	}
	return v
}

// patch sets the members of with on the schema at path in s: a dotted
// path of property names, "[]" standing for an array's items, "" for s
// itself. A with holding "$ref" replaces the schema whole.
func patch(s obj, path string, with obj) error {
	at := s
	if path != "" {
		for _, step := range strings.Split(path, ".") {
			var next obj
			holder, key := at, "items"
			if step != "[]" {
				holder, _ = at["properties"].(obj)
				key = step
			}
			switch x := holder[key].(type) {
			case obj:
				next = x
			case bool: // the schema true: any value
				next = obj{}
				holder[key] = next
			}
			if next == nil {
				return fmt.Errorf("patch %q: no %q", path, step)
			}
			at = next
		}
	}
	if _, ok := with["$ref"]; ok {
		clear(at)
	}
	for k, v := range with {
		if v == nil {
			delete(at, k)
		} else {
			at[k] = v
		}
	}
	return nil
}

// schema resolves a schema of the operations' table.
func (g *generator) schema(v any) (any, error) {
	switch x := v.(type) {
	case goType:
		if name, ok := g.names[x.t]; ok {
			return ref(name), nil
		}
		return g.infer(x.t, false)
	case obj:
		out := obj{}
		for k, e := range x {
			r, err := g.schema(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case list:
		out := make(list, len(x))
		for i, e := range x {
			r, err := g.schema(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

func (g *generator) content(ms []media) (obj, error) {
	out := obj{}
	for _, m := range ms {
		s, err := g.schema(m.schema)
		if err != nil {
			return nil, err
		}
		out[m.contentType] = obj{"schema": s}
	}
	return out, nil
}

func (g *generator) operation(op operation) (obj, error) {
	o := obj{"operationId": op.id, "summary": op.summary}
	if op.description != "" {
		o["description"] = op.description
	}
	if op.deprecated {
		o["deprecated"] = true
	}
	if op.public {
		o["security"] = list{}
	}
	if op.security != nil {
		o["security"] = op.security
	}
	if len(op.params) > 0 {
		var ps list
		for _, p := range op.params {
			s, err := g.schema(p.schema)
			if err != nil {
				return nil, err
			}
			po := obj{"name": p.name, "in": p.in, "required": p.required, "schema": s}
			if p.description != "" {
				po["description"] = p.description
			}
			ps = append(ps, po)
		}
		o["parameters"] = ps
	}
	if op.body != nil {
		c, err := g.content([]media{*op.body})
		if err != nil {
			return nil, err
		}
		o["requestBody"] = obj{"required": true, "content": c}
	}
	responses := obj{}
	for _, a := range op.ok {
		c, err := g.content(a.content)
		if err != nil {
			return nil, err
		}
		r := obj{"description": a.description}
		if a.headers != nil {
			r["headers"] = a.headers
		}
		if len(c) > 0 {
			r["content"] = c
		}
		responses[strconv.Itoa(a.status)] = r
	}
	for _, p := range op.problems {
		key := strconv.Itoa(p.status)
		if _, dup := responses[key]; dup {
			return nil, fmt.Errorf("status %d twice", p.status)
		}
		if p.shared != "" {
			responses[key] = obj{"$ref": "#/components/responses/" + p.shared}
			continue
		}
		responses[key] = obj{"description": p.description,
			"content": obj{"application/problem+json": obj{"schema": ref("Problem")}}}
		if p.rpc {
			responses[key].(obj)["content"].(obj)["application/json"] = obj{"schema": ref("JSONRPCResponse")}
		}
	}
	o["responses"] = responses
	return o, nil
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
