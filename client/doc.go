// Package client is the Go client that pipeline agents use to report their
// errors to the Error Handler service (triage serve) and get its feedback:
// what went wrong, a message for the user, and how to go on.
//
//	c, err := client.New("https://triage.internal", client.Config{APIKey: os.Getenv("TRIAGE_API_KEY")})
//	if err != nil {
//		return err
//	}
//	fb, err := c.Report(ctx, &triage.Report{
//		AgentID: "sql_agent",
//		Data:    triage.Data{ErrorCode: "DB_TIMEOUT", Message: "query timed out", QueryID: "q_456"},
//	}, nil)
//	if err != nil {
//		return err // a *fault.Error: errors.As, fault.As or fault.CodeOf read it
//	}
//	switch fb.NextAction {
//	case triage.Resume: …
//	}
//
// Report posts the report to POST /v1/errors. The service answers 201 with
// the feedback for a new error and 200 with the feedback given before
// (Duplicate true) for one it has seen; both return the *triage.Feedback.
// Report fills in the report's Timestamp (now) and Status ("error") when
// they are empty, on a copy: the caller's report is not changed. Get reads
// the service's record of an error (GET /v1/errors/{error_id}), a
// *triage.Record: its latest report and feedback with its latest
// occurrences; Occurrences reads the others, a *triage.OccurrencePage at a
// time, from the cursor the record or the page before gives (GET
// /v1/errors/{error_id}/occurrences). Runs lists the tenant's AG-UI run
// records (GET /v1/runs), a *triage.RunPage at a time, filtered by a
// RunQuery.
//
// # Retries and idempotency
//
// Every call runs through a resilience.Policy (see Config.Resilience and
// Config.Policy; by default three attempts, exponential backoff from 500ms).
// Each attempt's failure becomes a *fault.Error: an error response is read
// as the RFC 9457 problem document the service writes (its code, status,
// retryable, retry_after and field errors), and a transport error is
// classified by fault.From. The policy retries only what is retryable and
// never before the fault's RetryAfter: in practice RATE_LIMITED (429) and
// SERVICE_UNAVAILABLE (503) after their Retry-After, SESSION_BUSY (409),
// transport failures and timeouts. It never retries INVALID_REQUEST (400,
// 422), TENANT_REQUIRED (401), TENANT_UNAUTHORIZED (403) or any other fault
// the service marks as not retryable. A retry whose wait would pass the
// context's deadline is not made: the fault comes back at once, its
// RetryAfter intact.
//
// POST /v1/errors is not idempotent by nature, so the client makes it so:
// every Report call sends an Idempotency-Key header, a random key generated
// once per call and sent again, unchanged, on each of its retries. The
// service answers a repeated key with the feedback of the first request, so
// repeating the request cannot record the error twice; that is why the
// client tells the policy the operation is idempotent, and why it retries
// even a timeout or a reset connection, after which the service may or may
// not have processed the report. A retry of a report the service had
// already answered on an earlier attempt gets that answer again, replayed
// (a 201 stays a 201). A caller that retries on its own, across Report
// calls or across restarts, passes its own key in
// ReportOptions.IdempotencyKey, so that every try is the same request;
// NewIdempotencyKey makes one.
//
// SESSION_BUSY (409) means a request with the same Idempotency-Key is still
// in flight: the first attempt is being processed while a retry arrives.
// The client always treats it as retryable, whatever the document's
// retryable member says, and a 409 without a problem document is read as
// SESSION_BUSY too: the retry waits (the Retry-After, or the backoff) and
// then gets the first request's feedback.
//
// # Errors
//
// Every error Report returns is a *fault.Error. Its Code is the service's
// (a problem document whose code the code table knows is trusted); its
// Status the response's; FieldErrors lists the invalid fields of a 422;
// RetryAfter the delay the service asked for. When retries ran out,
// Details["attempts"] holds the number of attempts. A response that is not
// a problem document is classified by its status: 401 is TENANT_REQUIRED,
// 403 TENANT_UNAUTHORIZED, 404 NOT_FOUND, 409 SESSION_BUSY, 400 and 422
// INVALID_REQUEST, and the others as fault.FromStatus says (429 RATE_LIMITED, 503
// SERVICE_UNAVAILABLE, other 5xx a retryable UPSTREAM_ERROR). A success
// whose body is not the feedback's JSON, or a status the API does not use,
// is a PROTOCOL_ERROR, not retried. A cancelled context is CANCELLED and an
// expired one TIMEOUT; errors.Is still finds context.Canceled and
// context.DeadlineExceeded.
//
// The API key never appears in an error: it is registered with
// fault.RegisterSecret, so that fault.Redact removes it from any text, and
// the client also removes it from the faults it decodes, however short it
// is. A feedback is read up to 1 MiB, a record or a page of occurrences up
// to 16 MiB (the service bounds them to 4 MiB of documents, or one
// occurrence when it alone is more).
//
// Do not give the client an http.Client whose transport retries on its own
// (a resilience.Transport): retries would multiply.
package client
