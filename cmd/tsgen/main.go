package main

import (
	"bytes"
	"flag"
	"log"
	"os"

	"github.com/triage-go/triage/internal/tsgen/render"
)

func main() {
	log.SetFlags(0)
	log.SetPrefix("tsgen: ")
	out := flag.String("o", "web/packages/kit/src/codes.ts", "TypeScript file to write")
	flag.Parse()
	if flag.NArg() > 0 {
		log.Fatalf("unexpected arguments %q", flag.Args())
	}
	var b bytes.Buffer
	if err := render.Codes(&b); err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, b.Bytes(), 0o644); err != nil {
		log.Fatal(err)
	}
}
