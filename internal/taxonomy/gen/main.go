package main

import (
	"bytes"
	"flag"
	"log"
	"os"

	"github.com/triage-go/triage/internal/taxonomy"
)

func main() {
	out := flag.String("out", "docs/taxonomy.md", "taxonomy file to write")
	rules := flag.String("rules", "docs/classification.md", "text rules file to write")
	faultDir := flag.String("fault", ".", "the fault package's directory")
	flag.Parse()
	var b bytes.Buffer
	if err := taxonomy.Markdown(&b, *faultDir); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
	b.Reset()
	if err := taxonomy.Classification(&b); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*rules, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
