// Package servicetest runs the Error Handler service in-process for the
// tests and examples of the framework adapters (contrib/...): package
// server on a SQLite store in a temporary directory, behind an
// httptest.Server, as triage serve runs it. Only tests import it.
package servicetest
