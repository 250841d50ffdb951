// Package disktest makes storage fail in tests as it fails in production,
// with no mount and no privilege: a database file the service may not
// write (file permissions, which bind any user but root: the test runs
// again as nobody when it runs as root) and a full disk (a file size
// limit, RLIMIT_FSIZE, set in a process of its own). Each runs the test
// again, alone, in a subprocess of the test binary.
package disktest
