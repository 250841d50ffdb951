package server

import (
	_ "embed"
	"net/http"
)

// openAPIDoc is the API as OpenAPI 3.1, served at /openapi.json. A test
// holds it and the route table together.
//
//go:embed openapi.json
var openAPIDoc []byte

func (s *Server) openAPI(w http.ResponseWriter, _ *http.Request) error {
	writeJSON(w, http.StatusOK, openAPIDoc)
	return nil
}
