// Package storetest is the conformance suite of store.Store: every
// implementation runs it, so that each behaves as package store documents.
//
//	func TestConformance(t *testing.T) {
//		storetest.Run(t, func(t *testing.T, opts store.Config) store.Store {
//			s, err := mystore.Open(t.Context(), …, opts)
//			if err != nil {
//				t.Fatal(err)
//			}
//			return s
//		})
//	}
//
// Each subtest opens a fresh, empty store and drives its clock through
// Options.Now. Run closes the stores it opens; open may register the
// removal of what it made (a file, a schema) with t.Cleanup, which runs
// after the store is closed.
//
// Where package store leaves a detail open, the suite settles it:
//   - Times keep their nanoseconds. An Agent's zero UpdatedAt and an
//     Occurrence's zero ReceivedAt are the store's clock's now.
//   - A record's FirstSeen and LastSeen are the earliest and the latest
//     ReceivedAt of its occurrences; its QueryID, AgentID, ErrorType,
//     Severity, Report and Feedback are those of the occurrence received
//     last. An occurrence without a DeliveryKey is never a duplicate.
//   - An error's occurrences come the latest received first, and those
//     received at one instant the latest saved first.
//   - History.Record counts the failures in [at-window, at], as
//     memory.History does.
//   - Deliveries.Claim's and BeginRequest's take-over starts a new lease; a
//     stored feedback or response never expires.
//   - The job queue (River) runs on the real clock, not Options.Now: a
//     NewJob's zero RunAt is the real now, and a job's times are kept to
//     the millisecond. The jobs group runs Work loops with short
//     WorkOptions and waits for the jobs' states with deadlines.
//   - A checkpoint loads as it was saved (through checkpoint.New, equal
//     by reflect.DeepEqual for a state that round-trips through JSON): a
//     nil and an empty Path or Branches stay apart. SaveCheckpoint replaces
//     the run's checkpoint whatever its step, and leaves it as it was when
//     it fails; SavedAt is the store's clock's now.
//   - A run's StartedAt and FinishedAt are the store's clock's now, its
//     fault loads as the same JSON value, and an empty Fault is nil.
//
// ResumeAfterRestart is the suite's test of a graph run resumed from a
// store opened anew on the same database, and WorkOnTwoInstances its test
// of two stores on one database working its jobs; each store runs them
// too.
package storetest
