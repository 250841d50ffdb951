// Package cputime reads the CPU time the test process has used, user and
// system, every thread (the garbage collector's included), for benchmarks
// that report CPU per operation beside wall time: on a loaded machine the
// wall time of a benchmark says little, its CPU time still says what the
// work cost.
package cputime
