package webhook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/triage-go/triage"
	"github.com/triage-go/triage/fault"
)

// UserAgent is the User-Agent of every post.
const UserAgent = "triage"

// DefaultTimeout bounds a post made with a nil *http.Client.
const DefaultTimeout = 10 * time.Second

// Post is one POST of a JSON body.
type Post struct {
	// What names the target in errors: "webhook", "callback".
	What string
	// URL is where the body goes. Errors never quote it.
	URL string
	// Body is the JSON sent.
	Body []byte
	// Key is the Idempotency-Key sent, "" for none.
	Key string
	// Header holds more headers to send (a trace context); nil for none.
	// Content-Type, User-Agent and Idempotency-Key are Send's.
	Header http.Header
}

// Escalation returns the Post of escalation e to target: its JSON, with
// Key(e) as its Idempotency-Key.
func Escalation(target string, e triage.Escalation) (Post, error) {
	body, err := json.Marshal(e)
	if err != nil {
		return Post{}, err
	}
	return Post{What: "webhook", URL: target, Body: body, Key: Key(e)}, nil
}

// Key is the Idempotency-Key of escalation e: its error's ID, its attempt
// and the time of the report that raised it ("err_…:3:2025-08-08T12:20:05Z").
// It is the same for every post of one escalation, and differs between two
// escalations of one error (another attempt, or a later report of it),
// which the error's ID and attempt alone would not tell apart.
func Key(e triage.Escalation) string {
	return e.ErrorID + ":" + strconv.Itoa(e.Attempt) + ":" + e.ReportedAt.UTC().Format(time.RFC3339Nano)
}

// Send posts p with client (nil: a client with DefaultTimeout). A 2xx
// answer is success. Any other is a *fault.Error (fault.FromStatus, so a
// Retry-After is its RetryAfter) whose message names the target by scheme
// and host; a 4xx other than 408, 409 and 429 is Permanent. A network
// failure is client's *url.Error with its URL cut to scheme and host (it
// stays a *url.Error: errors.Is and errors.As see through it).
func Send(ctx context.Context, client *http.Client, p Post) error {
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, p.URL, bytes.NewReader(p.Body))
	if err != nil {
		// url.Parse's error quotes the URL, and its reason may quote a part.
		return permanent{fmt.Errorf("the %s URL does not parse", p.What)}
	}
	for k, vs := range p.Header {
		req.Header[k] = vs
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", UserAgent)
	if p.Key != "" {
		req.Header.Set("Idempotency-Key", p.Key)
	}
	if client == nil {
		client = &http.Client{Timeout: DefaultTimeout}
	}
	origin := Origin(req.URL)
	resp, err := client.Do(req)
	if err != nil {
		return originOnly(err)
	}
	defer resp.Body.Close()
	_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10))
	if resp.StatusCode/100 == 2 {
		return nil
	}
	f := fault.FromStatus(resp.StatusCode, resp.Header, time.Now())
	f.Message = fmt.Sprintf("the %s %s answered %d", p.What, origin, resp.StatusCode)
	switch resp.StatusCode {
	case http.StatusRequestTimeout, http.StatusConflict, http.StatusTooManyRequests:
		return f
	}
	if resp.StatusCode/100 == 4 {
		return permanent{f}
	}
	return f
}

// Notifier posts each escalation to URL (a triage.Notifier): Escalation,
// then Send.
type Notifier struct {
	URL string
	// Client sends the posts. Defaults to a client with DefaultTimeout;
	// give one whose Transport is a resilience.Transport to retry a
	// failing webhook (the post's Idempotency-Key makes it safe to).
	Client *http.Client
}

// Notify posts e.
func (n Notifier) Notify(ctx context.Context, e triage.Escalation) error {
	p, err := Escalation(n.URL, e)
	if err != nil {
		return err
	}
	return Send(ctx, n.Client, p)
}

// Permanent reports whether err, from Send, is a failure that posting the
// same again would meet: a URL that does not parse, or a 4xx answer other
// than 408, 409 and 429.
func Permanent(err error) bool {
	var p permanent
	return errors.As(err, &p)
}

// permanent marks a failure Permanent; its message is its error's.
type permanent struct{ error }

func (p permanent) Unwrap() error { return p.error }

// Origin is u's scheme://host[:port]: none of its userinfo, path, query
// or fragment.
func Origin(u *url.URL) string {
	return (&url.URL{Scheme: u.Scheme, Host: u.Host}).String()
}

// originOnly cuts the URL of err, an http.Client's *url.Error ("Post
// \"https://hooks.example/services/T/B/secret\": dial tcp …"), to its
// scheme and host. It stays a *url.Error, a copy (Client.Do returns it
// bare, at the top), so Timeout(), errors.Is and errors.As see through it
// as before. (A redirect's error names the URL redirected to: its origin,
// then.)
func originOnly(err error) error {
	var ue *url.Error
	if !errors.As(err, &ue) {
		return err
	}
	cut := *ue
	cut.URL = "(URL withheld)"
	if u, perr := url.Parse(ue.URL); perr == nil {
		cut.URL = Origin(u)
	}
	return &cut
}
