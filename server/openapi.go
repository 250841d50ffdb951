package server

import (
	_ "embed"
	"net/http"
)

//go:generate go run ../cmd/openapigen -o openapi.json

// openAPIDoc is the API as OpenAPI 3.1, served at /openapi.json. It is
// generated (cmd/openapigen) from the Go types of the API and the route
// table, operations, whose routes carry their descriptions: after
// changing either, run go generate ./server. A test of the generator
// fails when this file differs from what it writes.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, openAPIDoc)
	return nil
}
