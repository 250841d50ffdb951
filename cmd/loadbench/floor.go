package main

import (
	"bytes"
	"database/sql"
	"encoding/json"
	"io"
	"net/http"
	"net/url"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/handler"
)

// durableLog is the least storage a service that answers only once a
// request is committed can have on SQLite: one row per request in a table
// with no index but its rowid, inserted by one writer goroutine that
// commits every request waiting in one transaction (group commit, one
// fsync), with the store's own durability (WAL, synchronous=FULL).
type durableLog struct {
	db     *sql.DB
	insert *sql.Stmt
	reqs   chan logWrite
	done   chan struct{}
}

type logWrite struct {
	body []byte
	err  chan error
}

func openLog(path string) (*durableLog, error) {
	q := url.Values{}
	// SQLite's default pages (4 KB), not the store's 2 KB: the floor's
	// one row per report appends to one table, whose right-most leaf a
	// commit writes once for all its rows; bigger pages hold a report's
	// ~3 KB row without an overflow page. The floor is the least storage
	// costs, so it keeps the size that serves an append best.
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "synchronous(FULL)")
	q.Set("_txlock", "immediate")
	db, err := sql.Open("sqlite", path+"?"+q.Encode())
	if err != nil {
		return nil, err
	}
	db.SetMaxOpenConns(1)
	if _, err := db.Exec(`CREATE TABLE log (id INTEGER PRIMARY KEY, body BLOB NOT NULL)`); err != nil {
		db.Close()
		return nil, err
	}
	insert, err := db.Prepare(`INSERT INTO log (body) VALUES (?)`)
	if err != nil {
		db.Close()
		return nil, err
	}
	l := &durableLog{db: db, insert: insert, reqs: make(chan logWrite, 1024), done: make(chan struct{})}
	go l.loop()
	return l, nil
}

func (l *durableLog) loop() {
	defer close(l.done)
	for w := range l.reqs {
		batch := []logWrite{w}
	more:
		for len(batch) < 128 {
			select {
			case w, ok := <-l.reqs:
				if !ok {
					break more
				}
				batch = append(batch, w)
			default:
				break more
			}
		}
		err := l.commit(batch)
		for _, w := range batch {
			w.err <- err
		}
	}
}

func (l *durableLog) commit(batch []logWrite) error {
	tx, err := l.db.Begin()
	if err != nil {
		return err
	}
	stmt := tx.Stmt(l.insert)
	for _, w := range batch {
		if _, err := stmt.Exec(w.body); err != nil {
			_ = tx.Rollback()
			return err
		}
	}
	return tx.Commit()
}

// append returns once body is committed.
func (l *durableLog) append(body []byte) error {
	w := logWrite{body: body, err: make(chan error, 1)}
	l.reqs <- w
	return <-w.err
}

func (l *durableLog) close() {
	close(l.reqs)
	<-l.done
	l.db.Close()
}

// bare is bareHandler with the request committed before the answer.
func (l *durableLog) bare() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		if err := l.append(body); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		bareHandler(w, &http.Request{Body: io.NopCloser(bytes.NewReader(body))})
	})
}

// pipeline runs the Error Handler on each report, with its state in memory
// (attempts, history, deliveries, scheduled retries), and commits the
// report with its feedback as one row before answering: the least a
// durable service running this handler can do.
func (l *durableLog) pipeline() (http.Handler, error) {
	h, err := handler.New(handler.Config{})
	if err != nil {
		return nil, err
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 1<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		rep, err := triage.DecodeReport(body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		fb, err := h.HandleReport(r.Context(), rep)
		if err != nil {
			http.Error(w, err.Error(), http.StatusUnprocessableEntity)
			return
		}
		out, err := json.Marshal(fb)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if err := l.append(append(append(body, '\n'), out...)); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusCreated)
		_, _ = w.Write(out)
	}), nil
}
