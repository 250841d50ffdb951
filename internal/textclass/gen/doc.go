// Command gen trains the text classifier on a JSON-lines corpus and writes
// the model's JSON. It runs from go generate in the textclass package:
//
//	go generate ./internal/textclass
package main
