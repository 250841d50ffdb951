package jsonscan_test

import (
	"fmt"

	"github.com/triage-go/triage/internal/jsonscan"
)

func ExampleEachMember() {
	doc := []byte(`{ "code": "DB_TIMEOUT", "context": {"rows": [1, 2]}, "n\u00e9": 3 }`)
	jsonscan.EachMember(doc, func(name string, val []byte) {
		fmt.Printf("%s = %s\n", name, val)
	})
	// Output:
	// code = "DB_TIMEOUT"
	// context = {"rows": [1, 2]}
	// né = 3
}

func ExampleEachItem() {
	jsonscan.EachItem([]byte(` [ "a", {"b": "]"}, [] ] `), func(item []byte) {
		fmt.Printf("%s\n", item)
	})
	// Output:
	// "a"
	// {"b": "]"}
	// []
}
