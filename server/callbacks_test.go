package server

import (
	"bytes"
	"strings"
	"testing"

	"github.com/triage-go/triage/store"
)

const callbackKey = "acme-key-0123456789ab"

// TestCallbacksRefusePrivate: with API keys, a callback at a loopback
// address fails for good without its server seeing a request, whether
// registered as 127.0.0.1 or as a name resolving to it (both stored as
// they were before the check, since PUT /v1/agents now refuses them);
// with PrivateCallbacks it is called. The operator's webhook, on
// loopback too, is called either way.
func TestCallbacksRefusePrivate(t *testing.T) {
	t.Parallel()
	auth := map[string]string{"X-API-Key": callbackKey}
	agent := newCallbacks(t)
	hook := newCallbacks(t)
	port := agent.srv.URL[strings.LastIndexByte(agent.srv.URL, ':')+1:]
	f := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{callbackKey: "acme"}
		c.Webhook = hook.srv.URL + "/escalations"
	})
	for id, cb := range map[string]string{"literal_agent": agent.srv.URL + "/retry", "named_agent": "http://localhost:" + port + "/retry"} {
		if err := f.store.Tenant("acme").PutAgent(t.Context(), store.Agent{ID: id, CallbackURL: cb, UpdatedAt: scenarioNow}); err != nil {
			t.Fatal(err)
		}
	}
	post := func(report []byte) string {
		t.Helper()
		r := f.do("POST", "/v1/errors", report, auth)
		if r.status != 201 {
			t.Fatalf("POST: %d %s", r.status, r.body)
		}
		return r.json(t)["error_id"].(string)
	}
	literal := post(timeoutReport("literal_agent", "q_1"))
	named := post(timeoutReport("named_agent", "q_2"))
	outage := post(readFile(t, goldenDir+"/service_outage.json"))
	runWorker(t, f.srv)
	for _, c := range []struct{ id, origin string }{
		{literal, agent.srv.URL},
		{named, "http://localhost:" + port},
	} {
		rec := f.waitJobsAs(auth, c.id, c.origin, oneJobIn(store.JobCancelled))
		want := "the callback " + c.origin + " is at a loopback, private or link-local address"
		if j := rec.Jobs[0]; j.Attempt != 1 || len(j.Attempts) != 1 || !strings.Contains(j.Attempts[0].Error, want) ||
			!strings.Contains(j.Attempts[0].Error, "--private-callbacks") {
			t.Errorf("%s: job %+v", c.origin, j)
		}
	}
	f.waitJobsAs(auth, outage, "the escalation", oneJobIn(store.JobCompleted))
	if agent.count() != 0 || hook.count() != 1 {
		t.Errorf("the callback had %d calls (want none), the webhook %d (want 1)", agent.count(), hook.count())
	}

	allowed := newFixture(t, func(c *Config) {
		fastJobs(c)
		c.APIKeys = map[string]string{callbackKey: "acme"}
		c.PrivateCallbacks = true
	})
	if r := allowed.do("PUT", "/v1/callbacks/query_engine", []byte(`{"callback_url":"`+agent.srv.URL+`/retry"}`), auth); r.status != 200 {
		t.Fatalf("PUT with PrivateCallbacks: %d %s", r.status, r.body)
	}
	r := allowed.do("POST", "/v1/errors", readFile(t, goldenDir+"/db_timeout.json"), auth)
	if r.status != 201 {
		t.Fatalf("POST: %d %s", r.status, r.body)
	}
	runWorker(t, allowed.srv)
	allowed.waitJobsAs(auth, r.json(t)["error_id"].(string), "with PrivateCallbacks", oneJobIn(store.JobCompleted))
	if agent.count() != 1 {
		t.Errorf("with PrivateCallbacks: %d calls", agent.count())
	}
}

// TestPutAgentRefusesPrivate: with API keys, PUT /v1/agents refuses a
// callback_url whose host is localhost or a private IP address with a
// 422 naming the field; with PrivateCallbacks, or without API keys, it
// takes them.
func TestPutAgentRefusesPrivate(t *testing.T) {
	t.Parallel()
	auth := map[string]string{"X-API-Key": callbackKey}
	keyed := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{callbackKey: "acme"} })
	for _, cb := range []string{"http://169.254.169.254/latest/meta-data/", "http://127.0.0.1:8081/retry", "https://LOCALHOST./",
		"http://app.localhost/", "http://10.1.2.3/", "http://192.168.0.1/", "http://[::1]:80/", "http://[fe80::1%25eth0]/",
		"http://[fd00:ec2::254]/", "http://0.0.0.0/", "http://[::ffff:127.0.0.1]/", "http://224.0.0.1/"} {
		r := keyed.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"`+cb+`"}`), auth)
		if r.status != 422 || codeOf(t, r) != "INVALID_REQUEST" || !bytes.Contains(r.body, []byte(`"callback_url"`)) ||
			!bytes.Contains(r.body, []byte("private")) {
			t.Errorf("%s: %d %s", cb, r.status, r.body)
		}
	}
	if r := keyed.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"https://agents.example/retry"}`), auth); r.status != 200 {
		t.Errorf("a public host: %d %s", r.status, r.body)
	}
	allowed := newFixture(t, func(c *Config) { c.APIKeys = map[string]string{callbackKey: "acme"}; c.PrivateCallbacks = true })
	open := newFixture(t, nil)
	for name, r := range map[string]response{
		"PrivateCallbacks": allowed.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"http://169.254.169.254/"}`), auth),
		"no API keys":      open.do("PUT", "/v1/agents/query_engine", []byte(`{"callback_url":"http://169.254.169.254/"}`), nil),
	} {
		if r.status != 200 {
			t.Errorf("%s: %d %s", name, r.status, r.body)
		}
	}
}
