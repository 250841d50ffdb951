// Command gen writes docs/taxonomy.md from the fault code table. It runs
// from go generate in the fault package:
//
//	go generate ./fault
package main
