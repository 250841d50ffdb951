// Command openapigen writes the service's OpenAPI 3.1 document,
// server/openapi.json, which the server embeds and serves at
// /openapi.json, and from which the dashboard's TypeScript types are
// generated (web/, npm run gen:api).
//
// The document has one source, in Go. Its schemas are the API's Go types
// (the root package's Report, Feedback, Record, Occurrence, Run…, agent.Info,
// fault.Payload) as github.com/google/jsonschema-go infers them, with the
// prose and the bounds the types cannot say (patches, schemas.go); its
// operations are the server's route table (server.Operations), where each
// route holds its handler and its description: its summary, its
// parameters, its request and response types and the meaning of each
// problem status. Run it with
//
//	go generate ./server
//
// A test fails when the committed document differs from what it writes.
package main
