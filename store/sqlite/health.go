package sqlite

import (
	"database/sql/driver"
	"errors"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/triage-go/triage/store"
)

// reason is the store.NotReadyError reason of an error of SQLite's
// storage, "" for any other error.
func reason(err error) string {
	var e *msqlite.Error
	if !errors.As(err, &e) {
		return ""
	}
	switch e.Code() & 0xff { // the primary code of an extended one
	case sqlite3.SQLITE_FULL:
		return store.DiskFull
	case sqlite3.SQLITE_READONLY:
		return store.ReadOnly
	case sqlite3.SQLITE_IOERR, sqlite3.SQLITE_CANTOPEN:
		return store.IOError
	case sqlite3.SQLITE_CORRUPT, sqlite3.SQLITE_NOTADB:
		return store.Corrupt
	}
	return ""
}

// settle tells the store's health the outcome of one of the writer's
// transactions (err nil: it committed), and drops the writer's connection
// after a failure that may be the connection's own: SQLite opens a file it
// may not write read-only, silently, and the connection stays read-only
// once the file is writable again; a connection whose file was replaced
// (SQLITE_READONLY_DBMOVED) or whose I/O failed may stay broken likewise.
// The next write opens a connection afresh.
func (w *writer) settle(err error) {
	switch w.health.Observe(err) {
	case store.ReadOnly, store.IOError, store.Corrupt:
		w.reconnect()
	}
}

// reconnect closes the writer's connection (idle: the writer holds no
// transaction), so that the next write opens another, and the readers'
// idle ones: the connections of a process to one file share its -shm
// (SQLite's unix VFS keeps one mapping per file and process), which the
// first opened read-only when it could not write it; it is opened afresh
// only once every connection closed it. A reader busy now is closed at
// the next failure.
func (w *writer) reconnect() {
	if c, err := w.db.Conn(w.ctx); err == nil {
		_ = c.Raw(func(any) error { return driver.ErrBadConn }) // database/sql closes a bad connection
		_ = c.Close()
	}
	if w.readers != nil {
		n := w.readers.Stats().MaxOpenConnections
		w.readers.SetMaxIdleConns(0) // closes the idle ones
		w.readers.SetMaxIdleConns(n)
	}
	w.reconnects.Add(1)
}
