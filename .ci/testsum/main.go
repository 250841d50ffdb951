// Command testsum reads `go test -json` output on stdin and prints a short
// report: the output of every failing test, every skipped test with its
// reason, and the counts. It exits 1 when a test or a package failed, or,
// with -no-skips, when any test was skipped (CI provides every service, so
// nothing may skip there).
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"sort"
	"strings"
)

type event struct {
	Action  string
	Package string
	Test    string
	Output  string
}

func main() {
	noSkips := flag.Bool("no-skips", false, "fail when any test was skipped")
	flag.Parse()

	outputs := map[string][]string{} // package/test → output lines
	var passed, failed, skipped int
	var failures, skips []string
	var pkgFailed []string
	sc := bufio.NewScanner(os.Stdin)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Bytes()
		var e event
		if err := json.Unmarshal(line, &e); err != nil || e.Action == "" {
			fmt.Println(string(line)) // build errors and the like
			continue
		}
		key := e.Package + " " + e.Test
		switch e.Action {
		case "output":
			outputs[key] = append(outputs[key], e.Output)
		case "pass":
			if e.Test != "" {
				passed++
			}
			delete(outputs, key)
		case "fail":
			if e.Test == "" {
				pkgFailed = append(pkgFailed, e.Package)
				if len(outputs[key]) > 0 {
					failures = append(failures, key+"\n"+strings.Join(outputs[key], ""))
				}
				continue
			}
			failed++
			failures = append(failures, key+"\n"+strings.Join(outputs[key], ""))
		case "skip":
			if e.Test == "" {
				continue // a package without tests
			}
			skipped++
			reason := ""
			for _, o := range outputs[key] {
				if s := strings.TrimSpace(o); s != "" && !strings.HasPrefix(s, "=== ") && !strings.HasPrefix(s, "--- SKIP") {
					reason += s + " "
				}
			}
			skips = append(skips, fmt.Sprintf("%s: %s", key, strings.TrimSpace(reason)))
		}
	}
	if err := sc.Err(); err != nil {
		fmt.Fprintln(os.Stderr, "testsum:", err)
		os.Exit(1)
	}
	sort.Strings(skips)
	for _, f := range failures {
		fmt.Printf("--- FAIL %s\n", f)
	}
	for _, s := range skips {
		fmt.Printf("--- SKIP %s\n", s)
	}
	fmt.Printf("tests: %d passed, %d failed, %d skipped; packages failed: %d\n", passed, failed, skipped, len(pkgFailed))
	switch {
	case failed > 0 || len(pkgFailed) > 0:
		os.Exit(1)
	case *noSkips && skipped > 0:
		fmt.Println("testsum: tests were skipped, and -no-skips forbids it")
		os.Exit(1)
	}
}
