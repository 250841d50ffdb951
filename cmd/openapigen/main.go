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

	"github.com/triage-go/triage/internal/apidoc"
	"github.com/triage-go/triage/server"
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
	obj  = apidoc.Obj
	list = apidoc.List
)

// ref is a reference to the component schema name.
func ref(name string) obj { return apidoc.Ref(name) }

// Document is the OpenAPI document, indented, with a final newline.
func Document() ([]byte, error) {
	g, err := newGenerator()
	if err != nil {
		return nil, err
	}
	paths := obj{}
	for _, op := range server.Operations() {
		o, err := g.operation(op)
		if err != nil {
			return nil, fmt.Errorf("%s %s: %w", op.Method, op.Path, err)
		}
		item, _ := paths[op.Path].(obj)
		if item == nil {
			item = obj{}
			paths[op.Path] = item
		}
		item[strings.ToLower(op.Method)] = o
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

// schema resolves a schema of the operations' table: an obj, a list or
// an apidoc.GoType, at any depth.
func (g *generator) schema(v any) (any, error) {
	switch x := v.(type) {
	case apidoc.GoType:
		if name, ok := g.names[x.T]; ok {
			return ref(name), nil
		}
		return g.infer(x.T, false)
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

func (g *generator) content(ms []apidoc.Media) (obj, error) {
	out := obj{}
	for _, m := range ms {
		s, err := g.schema(m.Schema)
		if err != nil {
			return nil, err
		}
		out[m.ContentType] = obj{"schema": s}
	}
	return out, nil
}

func (g *generator) operation(op apidoc.Operation) (obj, error) {
	o := obj{"operationId": op.ID, "summary": op.Summary}
	if op.Description != "" {
		o["description"] = op.Description
	}
	if op.Deprecated {
		o["deprecated"] = true
	}
	if op.Public {
		o["security"] = list{}
	}
	if op.Security != nil {
		o["security"] = op.Security
	}
	if len(op.Params) > 0 {
		var ps list
		for _, p := range op.Params {
			s, err := g.schema(p.Schema)
			if err != nil {
				return nil, err
			}
			po := obj{"name": p.Name, "in": p.In, "required": p.Required, "schema": s}
			if p.Description != "" {
				po["description"] = p.Description
			}
			ps = append(ps, po)
		}
		o["parameters"] = ps
	}
	if op.Body != nil {
		c, err := g.content([]apidoc.Media{*op.Body})
		if err != nil {
			return nil, err
		}
		o["requestBody"] = obj{"required": true, "content": c}
	}
	responses := obj{}
	for _, a := range op.OK {
		c, err := g.content(a.Content)
		if err != nil {
			return nil, err
		}
		r := obj{"description": a.Description}
		if a.Headers != nil {
			r["headers"] = a.Headers
		}
		if len(c) > 0 {
			r["content"] = c
		}
		responses[strconv.Itoa(a.Status)] = r
	}
	for _, p := range op.Problems {
		key := strconv.Itoa(p.Status)
		if _, dup := responses[key]; dup {
			return nil, fmt.Errorf("status %d twice", p.Status)
		}
		if p.Shared != "" {
			responses[key] = obj{"$ref": "#/components/responses/" + p.Shared}
			continue
		}
		responses[key] = obj{"description": p.Description,
			"content": obj{"application/problem+json": obj{"schema": ref("Problem")}}}
		if p.RPC {
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
