package main

import (
	"flag"
	"log"
	"os"

	"github.com/triage-go/triage/internal/textclass"
)

func main() {
	train := flag.String("train", "testdata/train.jsonl", "labelled corpus to train on")
	out := flag.String("out", "model.json", "model file to write")
	flag.Parse()
	f, err := os.Open(*train)
	if err != nil {
		log.Fatal(err)
	}
	examples, err := textclass.ReadExamples(f)
	f.Close()
	if err != nil {
		log.Fatalf("%s: %v", *train, err)
	}
	data, err := textclass.Train(examples).MarshalJSON()
	if err != nil {
		log.Fatal(err)
	}
	if err := os.WriteFile(*out, data, 0o644); err != nil {
		log.Fatal(err)
	}
}
