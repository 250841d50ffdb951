// Package memory keeps the Error Handler's state in the process: State
// (attempts, recent failures and deliveries, with Start claiming, counting
// and recording at once), Synonyms, Cache and Notifier. They are
// what package handler uses when its Config gives none, and what tests and
// single-process tools use; the service keeps the same state durably in
// package store.
//
// Attempts and Deliveries forget their oldest keys beyond Max (DefaultMax),
// and History keeps at most triage.MaxKept failures per agent and code, so
// that a long-running process does not grow without bound. Every type is
// safe for concurrent use, and its zero value is ready.
package memory
