package policy

import (
	_ "embed"
	"errors"
	"fmt"
	"os"
	"slices"
)

// Load reads and compiles the policy file at path. Errors name the
// file; see Parse.
func Load(path string, opts *Options) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return Parse(path, data, opts)
}

// Options say how a policy is compiled. A nil *Options is the zero
// Options: the defaults.
type Options struct {
	// Actions are the actions a policy may name beyond the built-in ones:
	// the custom actions the handler is given (handler.Config.Actions).
	// Defaults to none.
	Actions []string
}

// Parse compiles the YAML policy in data; name is the file it came
// from, for errors. Every problem found is reported: the error is a
// *Error, or several joined with errors.Join, each naming the file,
// the line, the rule and the reason.
func Parse(name string, data []byte, opts *Options) (*Policy, error) {
	doc, lines, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	c := compiler{file: name, lines: lines, known: slices.Clone(builtinActions)}
	if opts != nil {
		c.known = append(c.known, opts.Actions...)
	}
	p := c.compile(doc)
	if len(c.errs) > 0 {
		slices.SortStableFunc(c.errs, func(a, b error) int { return errLine(a) - errLine(b) })
		return nil, joinErrs(c.errs)
	}
	return p, nil
}

// joinErrs returns the one error, or all of them joined.
func joinErrs(errs []error) error {
	if len(errs) == 1 {
		return errs[0]
	}
	return errors.Join(errs...)
}

func errLine(err error) int {
	if e, ok := err.(*Error); ok {
		return e.Line
	}
	return 0
}
