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
func Load(path string, opts ...Option) (*Policy, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("policy: %w", err)
	}
	return Parse(path, data, opts...)
}

// Option configures how a policy is compiled.
type Option func(*compiler)

// WithActions lets the policy name actions beyond the built-in ones: the
// custom actions the handler is given (Config.Actions).
func WithActions(names ...string) Option {
	return func(c *compiler) { c.known = append(c.known, names...) }
}

// Parse compiles the YAML policy in data; name is the file it came
// from, for errors. Every problem found is reported: the error is a
// *Error, or several joined with errors.Join, each naming the file,
// the line, the rule and the reason.
func Parse(name string, data []byte, opts ...Option) (*Policy, error) {
	doc, lines, err := decode(name, data)
	if err != nil {
		return nil, err
	}
	c := compiler{file: name, lines: lines, known: slices.Clone(builtinActions)}
	for _, o := range opts {
		o(&c)
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
