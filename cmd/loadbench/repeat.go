package main

// Repeats (-repeat P, issue 28): a deployment's errors recur, and a
// recurring error is the common case for a service that groups them. P %
// of a load's requests resend the report of an earlier request of the
// same load: the same query_id, so the same fingerprint and record, with
// their own timestamp, so their own delivery key (triage.DeliveryKey: the
// report's time, then its fingerprint). A repeat is a new occurrence of a
// recorded error, and a new attempt at its query (the attempt key is the
// query and the code), never a duplicate delivery: loadbench sends no
// Idempotency-Key.

// repeatShare is -repeat, the percentage (0–100) of each load's requests
// that are repeats.
var repeatShare int

// repeatLag is how many requests a repeat's source comes before it at
// least: more than the clients of a load, so that the source was, as a
// rule, answered before the repeat is sent (its record is there).
const repeatLag = 64

// mix64 is SplitMix64's finalizer: a request's number made into bits that
// look random, the same in every run.
func mix64(x uint64) uint64 {
	x += 0x9e3779b97f4a7c15
	x = (x ^ x>>30) * 0xbf58476d1ce4e5b9
	x = (x ^ x>>27) * 0x94d049bb133111eb
	return x ^ x>>31
}

// isRepeat tells whether request i (from 1) of a load is a repeat when p %
// of them are: the first repeatLag never are, having nothing to repeat.
func isRepeat(i int64, p int) bool {
	return p > 0 && i > repeatLag && int(mix64(uint64(i))%100) < p
}

// source is the request whose report request i sends when p % are
// repeats: i itself for a new error; for a repeat, a new error's request
// at least repeatLag before it, chosen in the same way in every run (a
// repeat's choice that is itself a repeat is followed to its source).
func source(i int64, p int) int64 {
	for isRepeat(i, p) {
		i = 1 + int64(mix64(uint64(i)^0x5bd1e995)%uint64(i-repeatLag))
	}
	return i
}
