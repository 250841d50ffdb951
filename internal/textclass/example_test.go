package textclass_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/textclass"
)

// The embedded model on messages from seed 004's scenarios, and on one it
// has no evidence about.
func ExampleModel_Predict() {
	m := textclass.Default()
	for _, msg := range []string{
		`Input ambiguous: "Show revenue" - which metric and period?`,
		"Schema missing field: product_id not found in sales",
		"DB timeout during large aggregation of 3 years of orders",
		"Pie chart cannot display time-series data",
		"Downstream service outage: renderer is not responding",
		"widget frobnicated",
	} {
		label, confidence := m.Predict(msg)
		if label == "" {
			fmt.Printf("%-16s       %s\n", "(no evidence)", msg)
			continue
		}
		fmt.Printf("%-16s %.2f  %s\n", label, confidence, msg)
	}
	// Output:
	// input_error      1.00  Input ambiguous: "Show revenue" - which metric and period?
	// schema_error     1.00  Schema missing field: product_id not found in sales
	// query_error      1.00  DB timeout during large aggregation of 3 years of orders
	// chart_error      1.00  Pie chart cannot display time-series data
	// system_error     1.00  Downstream service outage: renderer is not responding
	// (no evidence)          widget frobnicated
}

// Train on a corpus of your own; confidence is the posterior probability.
func ExampleTrain() {
	m := textclass.Train([]textclass.Example{
		{Text: "statement timeout after 30s", Label: "query_error"},
		{Text: "deadlock detected", Label: "query_error"},
		{Text: "connection refused by 10.0.0.7:5432", Label: "system_error"},
		{Text: "service unavailable (503)", Label: "system_error"},
	})
	fmt.Println(m.Labels())
	label, confidence := m.Predict("query cancelled: statement timeout")
	fmt.Printf("%s %.2f\n", label, confidence)
	// Output:
	// [query_error system_error]
	// query_error 0.91
}

// Numbers, dates, UUIDs and quoted identifiers become placeholders; error
// codes are kept whole and split.
func ExampleTokenize() {
	fmt.Println(textclass.Tokenize(`DB_TIMEOUT: query q_456 on "fct_orders" timed out after 30s (2025-08-08T12:01:00Z)`))
	// Output:
	// [DB_TIMEOUT db timeout query <num> on <id> timed out after <num> <date>]
}
