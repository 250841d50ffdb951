package store

import "time"

// Why a store is not ready (NotReadyError.Reason).
const (
	// NotReachable: the database does not answer.
	NotReachable = "unreachable"
	// DiskFull: a write failed for want of space (SQLITE_FULL; SQLSTATE
	// 53100 disk_full).
	DiskFull = "disk_full"
	// ReadOnly: the database refuses writes (SQLITE_READONLY: a file or
	// directory the process may not write; SQLSTATE 25006: a standby, or
	// default_transaction_read_only).
	ReadOnly = "read_only"
	// IOError: the storage failed to read or write (SQLITE_IOERR,
	// SQLITE_CANTOPEN; SQLSTATE 58030 io_error).
	IOError = "io_error"
	// Corrupt: the database file is damaged (SQLITE_CORRUPT,
	// SQLITE_NOTADB; SQLSTATE XX001, XX002).
	Corrupt = "corrupt"
	// WriteFailed: the probe's write failed otherwise (a timeout, a lock
	// held too long).
	WriteFailed = "write_failed"
)

// NotReadyError is the error of Store.Ready: why a write cannot be
// committed now.
type NotReadyError struct {
	// Reason is one of the constants above.
	Reason string
	// Since is when the failure was first seen (the zero time when not
	// known).
	Since time.Time
	// Err is the database's error.
	Err error
}

func (e *NotReadyError) Error() string {
	return "store: not ready (" + e.Reason + "): " + e.Err.Error()
}

func (e *NotReadyError) Unwrap() error { return e.Err }

// ReadyProbeEvery bounds Ready's probes: within it of the last, Ready
// answers that probe's outcome (or a write's failure seen since) without
// writing again, whoever asks how often.
const ReadyProbeEvery = time.Second

// ReadyFresh is how recent a committed write must be for Ready to answer
// without a probe (when no write failed since).
const ReadyFresh = 5 * time.Second
