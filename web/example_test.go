package web_test

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"

	"github.com/triage-go/triage/web"
)

// Handler serves the embedded dashboard: the page, which is always
// revalidated, and its assets, which are cached for good. `triage serve`
// mounts it at / of the service (server.Config.UI).
func ExampleHandler() {
	srv := httptest.NewServer(web.Handler())
	defer srv.Close()

	get := func(path string) (*http.Response, []byte) {
		res, err := http.Get(srv.URL + path)
		if err != nil {
			panic(err)
		}
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res, body
	}
	res, page := get("/")
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"), "|", res.Header.Get("Cache-Control"))

	script := regexp.MustCompile(`<script type="module" crossorigin src="\.(/assets/[^"]+\.js)">`).FindSubmatch(page)
	res, _ = get(string(script[1]))
	fmt.Println(res.StatusCode, res.Header.Get("Content-Type"), "|", res.Header.Get("Cache-Control"))

	res, _ = get("/assets/missing.js")
	fmt.Println(res.StatusCode)
	// Output:
	// 200 text/html; charset=utf-8 | no-cache
	// 200 text/javascript; charset=utf-8 | public, max-age=31536000, immutable
	// 404
}
