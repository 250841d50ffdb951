// Package pgtest gives tests a PostgreSQL of their own: the database named
// by TRIAGE_TEST_POSTGRES, with a fresh schema first in the search path,
// dropped when the test ends. Without TRIAGE_TEST_POSTGRES the test is
// skipped, saying why.
package pgtest
