package apidoc

import "reflect"

// Obj and List are JSON values written in Go: a schema, or a member of
// the document.
type (
	Obj  = map[string]any
	List = []any
)

// Operation is one operation of the API: a route of the server.
type Operation struct {
	Method, Path, ID     string
	Summary, Description string
	Deprecated           bool
	// Public operations need no API key (the server sets it from the
	// route's handler); Security, when set, replaces the document's (an
	// optional key: a list with {}).
	Public   bool
	Security List
	Params   []Param
	// Body is the request body, when the operation takes one.
	Body *Media
	// OK are the success answers; Problems the statuses of its problem
	// documents, each with what it means there (or a shared response).
	OK       []Answer
	Problems []Problem
}

// Param is a parameter of an operation: in "path", "query" or "header".
type Param struct {
	Name, In, Description string
	Required              bool
	Schema                any
}

// Media is a body of one content type; its Schema is an Obj, or a Go
// type's (Of).
type Media struct {
	ContentType string
	Schema      any
}

// Answer is a success status of an operation.
type Answer struct {
	Status      int
	Description string
	Content     []Media
	Headers     Obj
}

// Problem is an error status of an operation: its description, or the
// name of a response of the components (Shared).
type Problem struct {
	Status      int
	Description string
	Shared      string
	// RPC: the status may carry a JSON-RPC error response instead (/mcp).
	RPC bool
}

// GoType is a Go type whose schema a document holds: a component's $ref
// when the type is one, or the schema jsonschema.For infers.
type GoType struct{ T reflect.Type }

// Of is T's schema.
func Of[T any]() GoType { return GoType{reflect.TypeFor[T]()} }

// Ref is a reference to the component schema name.
func Ref(name string) Obj { return Obj{"$ref": "#/components/schemas/" + name} }

// AnyObject is a JSON object of any members.
var AnyObject = Obj{"type": "object", "additionalProperties": Obj{}}
