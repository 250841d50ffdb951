package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"
)

// netHTTPPlain are the statuses net/http answers itself, in text/plain or
// without a body, before any handler runs (docs/service.md, "What net/http
// answers itself").
var netHTTPPlain = []int{400, 417, 431, 501, 505}

// hostile is one hostile request: a raw request, or a body POSTed to
// /v1/errors when raw is empty.
type hostile struct {
	name string
	raw  string
}

func post(target, ctype string, body string) string {
	return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n%s",
		target, keyA, ctype, len(body), body)
}

func get(target string) string {
	return fmt.Sprintf("GET %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\n\r\n", target, keyA)
}

func put(target, body string) string {
	return fmt.Sprintf("PUT %s HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s",
		target, keyA, len(body), body)
}

func hostileInputs() []hostile {
	rep := func(q, members string) string { return string(report(q, members)) }
	js := "application/json"
	big := strings.Repeat("x", 900_000)
	h := []hostile{
		// Text that is not Unicode.
		{"invalid UTF-8 in context", post("/v1/errors", js, rep("q_bb1", `,"context":{"note":"a`+"\xff\xfe"+`b"}`))},
		{"invalid UTF-8 in message", post("/v1/errors", js, strings.Replace(rep("q_bb2", ""), "after 30s", "after \xc3\x28", 1))},
		{"invalid UTF-8 in a member name", post("/v1/errors", js, rep("q_bb3", `,"context":{"k`+"\xff"+`":true}`))},
		{"CESU surrogate bytes", post("/v1/errors", js, rep("q_bb4", `,"context":{"rows":[{"n":"`+"\xed\xa0\x80"+`"}]}`))},
		{"lone high surrogate", post("/v1/errors", js, rep("q_bb5", `,"context":{"note":"a\ud800b"}`))},
		{"lone low surrogate", post("/v1/errors", js, rep("q_bb6", `,"context":{"note":"\uDC00"}`))},
		{"surrogates reversed", post("/v1/errors", js, rep("q_bb7", `,"context":{"note":"\udc00\ud800"}`))},
		{"NUL in context", post("/v1/errors", js, rep("q_bb8", `,"context":{"note":"a\u0000b"}`))},
		{"invalid UTF-8 in a member not defined", post("/v1/errors", js, strings.Replace(rep("q_bb9", ""), `"status"`, `"extra":"`+"\x80"+`","status"`, 1))},
		// Huge fields.
		{"huge agent_id", post("/v1/errors", js, strings.Replace(rep("q_bb10", ""), "query_engine", big, 1))},
		{"huge message", post("/v1/errors", js, strings.Replace(rep("q_bb11", ""), "Query timed out after 30s", big, 1))},
		{"huge query_id", post("/v1/errors", js, rep(big[:200_000], ""))},
		{"huge error_code", post("/v1/errors", js, strings.Replace(rep("q_bb12", ""), "DB_TIMEOUT", big, 1))},
		{"huge context string", post("/v1/errors", js, rep("q_bb13", `,"context":{"s":"`+big+`"}`))},
		{"body over the limit", post("/v1/errors", js, rep("q_bb14", `,"context":{"s":"`+big+big+`"}`))},
		{"deep nesting", post("/v1/errors", js, rep("q_bb15", `,"context":`+strings.Repeat("[", 100_000)+strings.Repeat("]", 100_000)))},
		{"huge number", post("/v1/errors", js, rep("q_bb16", `,"context":{"n":1`+strings.Repeat("0", 100_000)+`}`))},
		// Malformed JSON.
		{"empty body", post("/v1/errors", js, "")},
		{"truncated JSON", post("/v1/errors", js, `{"agent_id":`)},
		{"JSON array", post("/v1/errors", js, `[]`)},
		{"JSON null", post("/v1/errors", js, `null`)},
		{"JSON string", post("/v1/errors", js, `"report"`)},
		{"trailing garbage", post("/v1/errors", js, rep("q_bb17", "")+"}{")},
		{"duplicate members", post("/v1/errors", js, rep("q_bb18", `,"query_id":"q_bb18b"`))},
		{"wrong types", post("/v1/errors", js, `{"agent_id":1,"timestamp":true,"status":[],"data":"x"}`)},
		{"bad timestamp", post("/v1/errors", js, strings.Replace(rep("q_bb19", ""), "2025-08-08T12:20:05Z", "yesterday", 1))},
		{"NUL bytes raw", post("/v1/errors", js, "\x00\x00\x00\x00")},
		{"not JSON content type", post("/v1/errors", "text/plain", rep("q_bb20", ""))},
		{"chunked with a bad size", "POST /v1/errors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + keyA + "\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n"},
		{"Content-Length not a number", "POST /v1/errors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + keyA + "\r\nContent-Length: abc\r\n\r\n{}"},
		// Query strings.
		{"query_id=nope%zz", get("/v1/errors?query_id=nope%zz")},
		{"query_id=nope;x", get("/v1/errors?query_id=nope;x")},
		{"limit=-1", get("/v1/errors?limit=-1")},
		{"limit=abc", get("/v1/errors?limit=abc")},
		{"limit overflowing", get("/v1/errors?limit=99999999999999999999999")},
		{"cursor garbage", get("/v1/errors?cursor=%ff%fe%00")},
		{"unknown parameter", get("/v1/errors?evil=%3Cscript%3E")},
		{"occurrences cursor garbage", get("/v1/errors/err_0000000000000000/occurrences?cursor=AAAA;;")},
		{"record id of bytes", get("/v1/errors/%ff%fe")},
		{"record id climbing", get("/v1/errors/..%2f..%2fetc%2fpasswd")},
		// Other documents.
		{"schema with invalid UTF-8", put("/v1/schemas/src", `{"fields":["a`+"\xff"+`"]}`)},
		{"cache with NUL", put("/v1/cache/q_1", `{"summary":"sales\u0000"}`)},
		{"agent with a lone surrogate", put("/v1/agents/a1", `{"name":"\ud800"}`)},
		// Headers and request lines (net/http's own answers).
		{"bad escape in the path", "GET /v1/errors%zz HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"control byte in a header", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nX-Bad: a\x01b\r\n\r\n"},
		{"space in a header name", "GET /v1/errors HTTP/1.1\r\nBad Name: x\r\nHost: x\r\n\r\n"},
		{"method not a token", "G@T /v1/errors HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"no Host", "GET /v1/errors HTTP/1.1\r\n\r\n"},
		{"malformed Host", "GET /v1/errors HTTP/1.1\r\nHost: a b\r\n\r\n"},
		{"HTTP/3.0", "GET /v1/errors HTTP/3.0\r\nHost: x\r\n\r\n"},
		{"Transfer-Encoding gzip", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\n"},
		{"unknown Expect", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nExpect: something\r\n\r\n"},
		{"huge header", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("a", 1<<20+8192) + "\r\n\r\n"},
		{"key of bytes", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \xff\xfe\x80\r\n\r\n"},
		{"two keys", "GET /v1/errors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + keyA + "\r\nX-API-Key: " + keyB + "\r\n\r\n"},
		// Targets ServeMux would answer.
		{"CONNECT host:port", "CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n"},
		{"CONNECT loopback", "CONNECT 127.0.0.1:22 HTTP/1.1\r\n\r\n"},
		{"CONNECT a path", "CONNECT /v1/errors HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"GET *", "GET * HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"PRI *", "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n"},
		{"TRACE", "TRACE /v1/errors HTTP/1.1\r\nHost: x\r\n\r\n"},
		{"absolute URI", "GET http://evil.example/v1/errors HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + keyA + "\r\n\r\n"},
	}
	return h
}

// surrogateEscape finds a \u escape of a UTF-16 surrogate (not itself
// escaped), which a strict client refuses alone.
var surrogateEscape = regexp.MustCompile(`(?i)(?:^|[^\\])(?:\\\\)*\\ud[89a-f]`)

// strictJSON: valid UTF-8 JSON with no surrogate escape.
func strictJSON(b []byte) bool {
	return utf8.Valid(b) && json.Valid(b) && !surrogateEscape.Match(b)
}

// badBytes sends each hostile request on a connection of its own and
// checks its answer: a problem (application/problem+json) or one of
// net/http's own plain answers, never 500; then the list and every
// record must still be strict JSON.
func badBytes(ctx context.Context, c config) (r row) {
	p, err := start(ctx, c, filepath.Join(c.dir, "badbytes.db"), filepath.Join(c.dir, "badbytes.log"))
	if err != nil {
		r.fail("%v", err)
		return r
	}
	defer p.stop()
	// A good record first, so that the reads below have one to read.
	if a := do(ctx, "POST", p.base+"/v1/errors", keyA, report("q_bb_good", ""), nil); a.status != http.StatusCreated {
		r.fail("a good report: %d %v %.200s", a.status, a.err, a.body)
	}
	problems, plain := 0, 0
	var taken []string
	for _, h := range hostileInputs() {
		r.bad++
		status, ctype, body, err := rawRequest(p.base, h.raw)
		switch {
		case err != nil:
			r.fail("%s: no answer: %v", h.name, err)
		case status >= 500 && status != 501 && status != 505:
			r.fail("%s: %d %.200s", h.name, status, body)
		case ctype == "application/problem+json" && json.Valid(body):
			problems++
		case slices.Contains(netHTTPPlain, status) && (ctype == "" || strings.HasPrefix(ctype, "text/plain")):
			plain++
		case status < 300 && strictJSON(body):
			// A request the service takes (two keys, an unknown parameter).
			taken = append(taken, h.name)
		default:
			r.fail("%s: %d %q %.200s", h.name, status, ctype, body)
		}
	}
	// The reads stay strict JSON.
	reads := 0
	list := do(ctx, "GET", p.base+"/v1/errors?limit=500", keyA, nil, nil)
	if list.status != http.StatusOK || !strictJSON(list.body) {
		r.fail("GET /v1/errors: %d, not strict JSON: %.300q", list.status, list.body)
	}
	var page struct {
		Items []struct {
			ErrorID string `json:"error_id"`
		} `json:"records"`
	}
	_ = json.Unmarshal(list.body, &page)
	for _, it := range page.Items {
		reads++
		a := do(ctx, "GET", p.base+"/v1/errors/"+it.ErrorID, keyA, nil, nil)
		if a.status != http.StatusOK || !strictJSON(a.body) {
			r.fail("GET /v1/errors/%s: %d, not strict JSON: %.300q", it.ErrorID, a.status, a.body)
		}
	}
	if reads == 0 {
		r.fail("the list held no record: %.300s", list.body)
	}
	r.load = "–"
	r.note("%d answered with a problem, %d with net/http's own plain answer, %d taken (%s), none 500; the list and its %d records strict JSON",
		problems, plain, len(taken), strings.Join(taken, ", "), reads)
	return r
}

// rawRequest writes raw on a connection of its own and reads the answer.
func rawRequest(base, raw string) (int, string, []byte, error) {
	conn, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		return 0, "", nil, err
	}
	defer conn.Close()
	_ = conn.SetDeadline(time.Now().Add(30 * time.Second))
	go func() { _, _ = io.WriteString(conn, raw) }()
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		return 0, "", nil, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	return resp.StatusCode, resp.Header.Get("Content-Type"), b, nil
}
