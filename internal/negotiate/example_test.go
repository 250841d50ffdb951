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
