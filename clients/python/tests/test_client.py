"""Unit tests of the client against a local stub of the service
(http.server): what it sends, its retries, Retry-After, idempotency and
problems. No real waits: the client's sleep and clock are the test's."""

from __future__ import annotations

import json
import socket
import socketserver
import threading
import time
import unittest
import uuid
from datetime import datetime, timedelta, timezone
from email.utils import format_datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

from triage_client import Client, FieldError, ProblemError, RetryPolicy, TransportError, TriageError

FEEDBACK = {"error_id": "err_0123456789abcdef", "next_action": "resume", "duplicate": False}
PROBLEM = "application/problem+json"


class QuickServer(ThreadingHTTPServer):
    """ThreadingHTTPServer without its reverse DNS lookup of the address
    (socket.getfqdn), which can take seconds."""

    def server_bind(self) -> None:
        socketserver.TCPServer.server_bind(self)
        self.server_name, self.server_port = self.server_address[:2]


class Stub:
    """A scripted service: each request gets the next answer (status,
    headers, body), and is kept (method, path, headers, body)."""

    def __init__(self) -> None:
        self.answers: list[tuple[int, dict[str, str], bytes, float]] = []
        self.requests: list[tuple[str, str, dict[str, str], bytes]] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args):  # quiet
                pass

            def handle_one(self) -> None:
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                with stub.lock:
                    stub.requests.append((self.command, self.path, dict(self.headers), body))
                    status, headers, data, delay = stub.answers.pop(0) if stub.answers else (500, {}, b"no answer scripted", 0)
                if delay:
                    time.sleep(delay)
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                try:
                    self.wfile.write(data)
                except OSError:  # the client gave up (a timeout test)
                    pass

            do_GET = do_POST = handle_one

        self.server = QuickServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.01}, daemon=True)
        self.thread.start()
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"

    def answer(self, status: int, body: object = None, headers: dict[str, str] | None = None, delay: float = 0) -> None:
        h = dict(headers or {})
        if isinstance(body, (dict, list)):
            data = json.dumps(body).encode()
            h.setdefault("Content-Type", PROBLEM if status >= 400 else "application/json")
        else:
            data = body or b""
        self.answers.append((status, h, data, delay))

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def problem(status: int, code: str, detail: str, retryable: bool = False, **extra: object) -> dict:
    return {"type": "/errors/" + code.lower().replace("_", "-"), "title": code.replace("_", " ").title(),
            "status": status, "detail": detail, "code": code, "retryable": retryable, **extra}


class ClientTest(unittest.TestCase):
    def setUp(self) -> None:
        self.stub = Stub()
        self.addCleanup(self.stub.close)
        self.sleeps: list[float] = []
        self.clock = 1_800_000_000.0

    def client(self, **kw: object) -> Client:
        kw.setdefault("retry", RetryPolicy(jitter=0))
        return Client(self.stub.url, sleep=self.sleeps.append, now=lambda: self.clock, **kw)  # type: ignore[arg-type]

    def test_report_sends_the_report_with_a_key_and_an_idempotency_key(self) -> None:
        self.stub.answer(201, FEEDBACK)
        fb = self.client(api_key="k-tenant-a-0123456789").report(
            {"agent_id": "query_engine", "data": {"message": "Query timed out after 30s", "query_id": "q_456"}})
        self.assertEqual(fb, FEEDBACK)
        [(method, path, headers, body)] = self.stub.requests
        self.assertEqual((method, path), ("POST", "/v1/errors"))
        self.assertEqual(headers["Authorization"], "Bearer k-tenant-a-0123456789")
        self.assertEqual(headers["Content-Type"], "application/json")
        self.assertEqual(uuid.UUID(headers["Idempotency-Key"]).version, 4)
        sent = json.loads(body)
        self.assertEqual(sent["status"], "error")
        self.assertTrue(sent["timestamp"].endswith("Z"), sent["timestamp"])
        self.assertEqual(sent["data"]["query_id"], "q_456")

    def test_each_report_has_its_own_key_unless_given_one(self) -> None:
        for _ in range(3):
            self.stub.answer(201, FEEDBACK)
        c = self.client()
        c.report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        c.report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        c.report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}}, idempotency_key="order-42-attempt")
        keys = [r[2]["Idempotency-Key"] for r in self.stub.requests]
        self.assertNotEqual(keys[0], keys[1])
        self.assertEqual(keys[2], "order-42-attempt")
        for bad in ["", "has space", 'quo"te', "back\\slash", "é", "x" * 256]:
            with self.assertRaises(ValueError, msg=bad):
                c.report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}}, idempotency_key=bad)
        self.assertEqual(len(self.stub.requests), 3)

    def test_retries_honour_retry_after_with_the_same_idempotency_key(self) -> None:
        self.stub.answer(503, problem(503, "SERVICE_UNAVAILABLE", "The service is busy.", True, retry_after=7), {"Retry-After": "7"})
        self.stub.answer(429, problem(429, "RATE_LIMITED", "Too many requests.", True, retry_after=3), {"Retry-After": "3"})
        self.stub.answer(201, FEEDBACK)
        fb = self.client(retry=RetryPolicy(max_attempts=3, jitter=0)).report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        self.assertEqual(fb["error_id"], FEEDBACK["error_id"])
        self.assertEqual(self.sleeps, [7.0, 3.0])  # Retry-After, longer than the backoff (0.5, 1)
        keys = {r[2]["Idempotency-Key"] for r in self.stub.requests}
        bodies = {r[3] for r in self.stub.requests}
        self.assertEqual((len(self.stub.requests), len(keys), len(bodies)), (3, 1, 1))

    def test_backoff_when_no_retry_after_is_longer(self) -> None:
        self.stub.answer(503, problem(503, "SERVICE_UNAVAILABLE", "busy", True))
        self.stub.answer(504, problem(504, "TIMEOUT", "slow", True), {"Retry-After": "1"})
        self.stub.answer(503, problem(503, "SERVICE_UNAVAILABLE", "busy", True))
        with self.assertRaises(ProblemError) as cm:
            self.client(retry=RetryPolicy(max_attempts=3, base_delay=0.5, jitter=0)).get("err_1")
        self.assertEqual(self.sleeps, [0.5, 1.0])  # 0.5, then max(1.0 backoff, 1 Retry-After)
        self.assertEqual((cm.exception.attempts, cm.exception.code, cm.exception.status), (3, "SERVICE_UNAVAILABLE", 503))

    def test_jitter_only_shortens_the_backoff(self) -> None:
        p = RetryPolicy(base_delay=1, max_delay=4, jitter=0.2)
        self.assertEqual(p.backoff(1, rand=lambda: 0.0), 1.0)
        self.assertAlmostEqual(p.backoff(2, rand=lambda: 1.0), 1.6)
        self.assertEqual(p.backoff(10, rand=lambda: 0.0), 4.0)

    def test_retry_after_as_an_http_date(self) -> None:
        when = datetime.fromtimestamp(self.clock, timezone.utc) + timedelta(seconds=12)
        self.stub.answer(503, b"<html>maintenance</html>", {"Content-Type": "text/html", "Retry-After": format_datetime(when, usegmt=True)})
        self.stub.answer(200, {"error_id": "err_1"})
        self.assertEqual(self.client().get("err_1"), {"error_id": "err_1"})
        self.assertEqual(self.sleeps, [12.0])

    def test_a_retry_after_past_the_bound_ends_the_call_at_once(self) -> None:
        self.stub.answer(429, problem(429, "RATE_LIMITED", "Too many requests.", True), {"Retry-After": "3600"})
        with self.assertRaises(ProblemError) as cm:
            self.client(retry=RetryPolicy(max_retry_after=120)).report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        e = cm.exception
        self.assertEqual((e.code, e.status, e.retryable, e.retry_after, e.attempts), ("RATE_LIMITED", 429, True, 3600.0, 1))
        self.assertEqual((self.sleeps, len(self.stub.requests)), ([], 1))

    def test_a_problem_that_is_not_retryable_is_raised_typed_at_once(self) -> None:
        self.stub.answer(422, problem(422, "INVALID_REQUEST", "The report is invalid.", False,
                                      errors=[{"field": "data.message", "message": "is required"},
                                              {"field": "agent_id", "message": "must be an identifier"}],
                                      details={"fields": 2}, instance="/v1/errors"))
        with self.assertRaises(ProblemError) as cm:
            self.client().report({"agent_id": "a b", "data": {}})
        e = cm.exception
        self.assertIsInstance(e, TriageError)
        self.assertEqual((e.status, e.code, e.title, e.detail, e.type, e.instance), (
            422, "INVALID_REQUEST", "Invalid Request", "The report is invalid.", "/errors/invalid-request", "/v1/errors"))
        self.assertEqual(e.errors, [FieldError("data.message", "is required"), FieldError("agent_id", "must be an identifier")])
        self.assertEqual((e.details, e.retryable, e.attempts), ({"fields": 2}, False, 1))
        self.assertIn("422 INVALID_REQUEST: The report is invalid.", str(e))
        self.assertEqual((self.sleeps, len(self.stub.requests)), ([], 1))

    def test_session_busy_is_retried(self) -> None:
        # The same Idempotency-Key still in flight: a retry gets its outcome.
        self.stub.answer(409, problem(409, "SESSION_BUSY", "The same report is still being handled.", False), {"Retry-After": "1"})
        self.stub.answer(201, FEEDBACK)
        self.assertEqual(self.client().report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}}), FEEDBACK)
        self.assertEqual(self.sleeps, [1.0])

    def test_an_error_status_without_a_problem_stands_for_its_code(self) -> None:
        self.stub.answer(502, b"Bad Gateway", {"Content-Type": "text/plain"})
        self.stub.answer(404, b"not here", {"Content-Type": "text/html"})
        with self.assertRaises(ProblemError) as cm:
            self.client().get("err_1")
        e = cm.exception
        self.assertEqual((e.status, e.code, e.retryable, e.attempts), (404, "NOT_FOUND", False, 2))
        self.assertEqual(self.sleeps, [0.5])  # the 502 was retried, the 404 not

    def test_an_internal_error_without_a_problem_is_not_retried(self) -> None:
        self.stub.answer(500, b"oops", {"Content-Type": "text/plain"})
        with self.assertRaises(ProblemError) as cm:
            self.client().get("err_1")
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.retryable, cm.exception.attempts), (500, "INTERNAL_ERROR", False, 1))
        self.assertEqual(len(self.stub.requests), 1)

    def test_a_wrong_key_is_not_retried_and_never_shown(self) -> None:
        key = "k-secret-0123456789"
        self.stub.answer(403, problem(403, "TENANT_UNAUTHORIZED", f"The API key {key} is not valid."))
        with self.assertRaises(ProblemError) as cm:
            self.client(api_key=key).get("err_1")
        self.assertEqual((cm.exception.code, cm.exception.attempts), ("TENANT_UNAUTHORIZED", 1))
        self.assertNotIn(key, str(cm.exception) + cm.exception.detail + repr(self.client(api_key=key)))

    def test_connection_failures_are_retried_then_raised(self) -> None:
        with socket.socket() as s:  # a port nobody listens on
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        c = Client(f"http://127.0.0.1:{port}", retry=RetryPolicy(max_attempts=2, jitter=0), sleep=self.sleeps.append)
        with self.assertRaises(TransportError) as cm:
            c.report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        self.assertEqual((cm.exception.code, cm.exception.retryable, cm.exception.attempts), ("TRANSPORT_ERROR", True, 2))
        self.assertEqual(self.sleeps, [0.5])

    def test_a_slow_service_times_out(self) -> None:
        self.stub.answer(200, {"error_id": "err_1"}, delay=1.0)
        c = self.client(timeout=0.2, retry=RetryPolicy(max_attempts=1))
        with self.assertRaises(TransportError) as cm:
            c.get("err_1")
        self.assertEqual((cm.exception.code, cm.exception.retryable), ("TIMEOUT", True))

    def test_redirects_are_not_followed(self) -> None:
        self.stub.answer(307, b"", {"Location": "http://evil.example/v1/errors"})
        with self.assertRaises(TransportError) as cm:
            self.client(api_key="k-tenant-a-0123456789").report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
        self.assertEqual(cm.exception.code, "PROTOCOL_ERROR")
        self.assertEqual(len(self.stub.requests), 1)

    def test_get_escapes_the_id(self) -> None:
        self.stub.answer(200, {"error_id": "err_1"})
        self.client().get("err_1/../../healthz?x")
        self.assertEqual(self.stub.requests[0][1], "/v1/errors/err_1%2F..%2F..%2Fhealthz%3Fx")

    def test_list_pages_with_the_cursor_and_the_filters(self) -> None:
        self.stub.answer(200, {"records": [{"error_id": "err_1"}, {"error_id": "err_2"}], "next_cursor": "c1", "total": 3})
        self.stub.answer(200, {"records": [{"error_id": "err_3"}], "total": 3})
        since = datetime(2025, 8, 8, 14, 0, tzinfo=timezone(timedelta(hours=2)))
        it = self.client().list(agent_id="query_engine", status="unresolved", since=since, q="timeout",
                                sort="count", window=timedelta(hours=24), limit=2)
        self.assertEqual(len(self.stub.requests), 0)  # lazily
        self.assertEqual([r["error_id"] for r in it], ["err_1", "err_2", "err_3"])
        first, second = (parse_qs(urlsplit(r[1]).query) for r in self.stub.requests)
        self.assertEqual(first, {"agent_id": ["query_engine"], "status": ["unresolved"], "since": ["2025-08-08T12:00:00Z"],
                                 "q": ["timeout"], "sort": ["count"], "window": ["24h"], "limit": ["2"]})
        self.assertEqual(second, {**first, "cursor": ["c1"]})

    def test_list_page(self) -> None:
        self.stub.answer(200, {"records": [], "total": 100000, "total_capped": True})
        page = self.client().list_page(severity="high")
        self.assertEqual((page.records, page.next_cursor, page.total, page.total_capped), ([], None, 100000, True))
        with self.assertRaises(TypeError):
            self.client().list_page(agent="x")
        with self.assertRaises(ValueError):
            self.client().list_page(since=datetime(2025, 1, 1))

    def test_an_answer_that_is_not_the_apis(self) -> None:
        self.stub.answer(201, b"<html>", {"Content-Type": "text/html"})
        self.stub.answer(201, {"no": "id"})
        for _ in range(2):
            with self.assertRaises(TransportError) as cm:
                self.client().report({"agent_id": "a", "data": {"message": "m", "query_id": "q"}})
            self.assertEqual((cm.exception.code, cm.exception.retryable), ("PROTOCOL_ERROR", False))

    def test_configuration_is_checked(self) -> None:
        for url in ["ftp://x", "127.0.0.1:8080", "http://u:p@x", "http://x/?a=1", "http://x/#f"]:
            with self.assertRaises(ValueError, msg=url):
                Client(url)
        with self.assertRaises(ValueError):
            Client("http://x", api_key="has space")
        with self.assertRaises(ValueError):
            RetryPolicy(max_attempts=0)


if __name__ == "__main__":
    unittest.main()
