// Package sse frames Server-Sent Events: a Writer that streams frames to an
// HTTP response (or any io.Writer) and flushes each one (or each batch),
// and a Reader that parses a stream the way a browser's EventSource does.
//
// A frame on the wire is a few "field: value" lines and a blank line:
//
//	event: RUN_ERROR
//	id: 42
//	data: {"type":"RUN_ERROR","message":"Request timed out."}
//
// Lines end in LF only. Every field is optional except data; a payload with
// line breaks becomes several data lines, which a reader joins with LF.
// Comments (": keep-alive") keep idle connections open and are ignored by
// readers.
//
// # Writing
//
// A handler sets the headers, then writes frames; each frame is written with
// one Write call and flushed at once, so a client sees it without waiting for
// a buffer to fill:
//
//	sse.SetHeaders(w.Header())
//	sw := sse.NewWriter(w)
//	sw.WriteFrame(sse.Frame{Event: "RUN_ERROR", Data: string(payload)})
//	sw.WriteComment("keep-alive")
//
// A producer that often has several events ready at once uses
// NewBatchWriter instead: its frames wait until Flush (or a comment, or 16
// KiB of them), so that a burst costs one write and one flush; it calls
// Flush whenever it has nothing more ready, so no frame waits for the
// next. WriteData writes a frame from a []byte, as JSON encoders make them.
//
// The Writer refuses a frame that could not be read back as written: an event
// name or id containing a line break, an id containing NUL, text that is not
// UTF-8.
//
// # Reading
//
// Reader follows the parsing rules of the WHATWG HTML standard's
// "Server-sent events" section: lines end in CRLF, LF or CR; one leading
// U+FEFF (byte order mark) is skipped; "field: value" loses one space after
// the colon; data lines are joined with LF; comments and unknown fields are
// ignored; retry takes ASCII digits only; id persists across frames
// (LastEventID) and an id containing NUL is ignored; a block without data
// dispatches nothing; an unfinished frame at the end of the stream is
// discarded; invalid UTF-8 becomes U+FFFD as the standard's decoder replaces
// it.
//
// A Reader holds at most one frame in memory, and bounds it: a frame larger
// than its maximum (DefaultMaxFrameSize, or the size given to
// NewReaderSize) stops the Reader with an error matching ErrFrameTooLarge,
// rather than letting a peer that never sends a blank line grow the buffer
// without limit.
//
// # Round trip
//
// Every frame the Writer accepts reads back identically, with two
// normalizations that the format itself imposes: line breaks in Data come
// back as LF, and Retry is whole milliseconds (rounded up). The fuzz target
// FuzzReader checks this property.
package sse
