package store

import "context"

// Announcer is a store that tells every instance on its database of what
// any of them committed, so that event streams wake on a change instead of
// polling for it (PostgreSQL: LISTEN/NOTIFY). A store without it (SQLite,
// one process) is read at each poll.
type Announcer interface {
	// Announce tells the instances listening that tenant has new events
	// (feedback saved, a run ended). It is sent after the commit it
	// announces; an announcement may come for nothing new, and a reader
	// reads from its stream position either way.
	Announce(ctx context.Context, tenant string) error
	// Listen calls wake with the tenant of each announcement, any
	// instance's, until ctx ends. It reconnects after a failure, and then
	// calls wake with "" (a reader should read whatever it may have
	// missed). It returns nil when ctx ends.
	Listen(ctx context.Context, wake func(tenant string)) error
}
