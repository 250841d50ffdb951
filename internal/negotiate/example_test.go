package negotiate_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/negotiate"
)

func ExampleBest() {
	offers := []string{"text/html", "application/json"}
	fmt.Printf("%q\n", negotiate.Best(nil, offers...))
	fmt.Printf("%q\n", negotiate.Best([]string{"text/html;q=0.5, application/json"}, offers...))
	fmt.Printf("%q\n", negotiate.Best([]string{"*/*, text/html;q=0"}, offers...))
	fmt.Printf("%q\n", negotiate.Best([]string{"image/png"}, offers...))
	// Output:
	// "text/html"
	// "application/json"
	// "application/json"
	// ""
}

func ExampleEncoding() {
	fmt.Println(negotiate.Encoding([]string{"gzip, br"}, "gzip"))
	fmt.Println(negotiate.Encoding([]string{"*, gzip;q=0"}, "gzip"))
	// Output:
	// true
	// false
}

func ExampleCoding() {
	// The server's preference first: Brotli, then gzip.
	fmt.Printf("%q\n", negotiate.Coding([]string{"gzip, deflate, br, zstd"}, "br", "gzip"))
	fmt.Printf("%q\n", negotiate.Coding([]string{"br;q=0.5, gzip"}, "br", "gzip"))
	fmt.Printf("%q\n", negotiate.Coding([]string{"*, br;q=0"}, "br", "gzip"))
	fmt.Printf("%q\n", negotiate.Coding([]string{"identity"}, "br", "gzip"))
	// Output:
	// "br"
	// "gzip"
	// "gzip"
	// ""
}
