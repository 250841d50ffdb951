package oneline_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/oneline"
)

func ExampleJoin() {
	fmt.Printf("%q\n", oneline.Join("  Query timed out\n\tafter 30s "))
	fmt.Printf("%q\n", oneline.Join("I used “sku_id”."))
	// Output:
	// "Query timed out after 30s"
	// "I used “sku_id”."
}
