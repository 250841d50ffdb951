package textclass_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/triage-go/triage/internal/textclass"
)

func TestTokenize(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"Empty", "", ""},
		{"Punctuation", " ... !?; — ", ""},
		{"Lowercase", "Service Unavailable", "service unavailable"},
		{"SnakeCase", "net_revenue_usd", "net revenue usd"},
		{"CamelCase", "totalRevenue HTTPServer getUserID OOMKilled", "total revenue http server get user id oom killed"},
		{"Dotted", "orders.customer.email", "orders customer email"},
		{"Kebab", "llm-gateway.acme.io", "llm gateway acme io"},
		{"Numbers", "took 95s, limit 30 (2,400,000 rows; 10.2 GB)", "took <num> limit <num> <num> rows <num> gb"},
		{"NumbersWithUnits", "48M rows in 500ms on 4GB", "<num> rows in <num> ms on <num> gb"},
		{"Scientific", "cost 9.4e9", "cost <num>"},
		{"Address", "dial tcp 10.0.4.17:5432: connect", "dial tcp <num> connect"},
		{"Dates", "from 2024-03-01 to 2025-08-08T12:01:00Z", "from <date> to <date>"},
		{"DateRange", "2025-12-01..2025-11-01", "<date> <date>"},
		{"UUID", "session 3f2b9c1e-1d2a-4b3c-9d8e-0123456789AB expired", "session <uuid> expired"},
		{"Hex", "commit a3f9c0d1 and deadbeef", "commit <hex> and deadbeef"},
		{"HexSegment", "pod query-engine-7d9f8b6c5a", "pod query engine <hex>"},
		{"QuotedIdentifiers", `column "product_id" in 'sales' via ` + "`orders.amount`", "column <id> in <id> via <id>"},
		{"CurlyQuotes", "chart ‘pie’ and “line”", "chart <id> and <id>"},
		{"QuotedPhrase", `request "show revenue" is vague`, "request show revenue is vague"},
		{"QuotedNumber", `date "2024-02-30" and "12,34.5"`, "date <date> and <num>"},
		{"Apostrophes", "couldn't parse the user's query; users' data", "couldnt parse the users query users data"},
		{"CurlyApostrophe", "can’t", "cant"},
		{"SingleLetters", "a b c x-axis", "axis"},
		{"ErrorCodes", "DB_TIMEOUT: ORA-01652 and SQLSTATE 42P01", "DB_TIMEOUT db timeout ORA-01652 ora <num> and sqlstate 42P01 <num>"},
		{"NotCodes", "HTTP SQL 4GB 48M Q3 US", "http sql <num> gb <num> <num> us"},
		{"Unicode", "Größe der Tabelle ÜBER", "größe der tabelle über"},
		{"InvalidUTF8", "time\xffout \xfe", "time out"},
		{"Emoji", "🙂 only", "only"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			got := strings.Join(textclass.Tokenize(c.in), " ")
			if got != c.want {
				t.Fatalf("Tokenize(%q)\n got  %s\n want %s", c.in, got, c.want)
			}
		})
	}
}

// TestTokenizeIgnoresNumbers: messages that differ only in their numbers,
// dates and quoted identifiers have the same tokens.
func TestTokenizeIgnoresNumbers(t *testing.T) {
	t.Parallel()
	a := textclass.Tokenize(`query q_456 timed out after 30s on 2025-08-08 scanning 48,000,000 rows of 'fct_orders'`)
	b := textclass.Tokenize(`query q_9 timed out after 120s on 1999-12-31 scanning 7 rows of 'dim_date'`)
	if !slices.Equal(a, b) {
		t.Fatalf("\n%v\n%v", a, b)
	}
}
