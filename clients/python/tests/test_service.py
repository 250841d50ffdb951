"""Integration tests: the client against a real `triage serve`.

TRIAGE_BIN names the triage binary (`go build -o triage ./cmd/triage`);
without it these tests skip, saying so. `go test ./cmd/triage -run
TestPythonClient` builds the binary and runs them with it set."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import unittest
import uuid

from triage_client import Client, FieldError, ProblemError, RetryPolicy

KEY = "acme-key-0123456789ab"
BIN = os.environ.get("TRIAGE_BIN", "")
SKIP = "TRIAGE_BIN is not set: build the service (go build -o triage ./cmd/triage) and set TRIAGE_BIN to it to run the integration tests"


class Service:
    """`triage serve` on a free loopback port, with its own database and
    one tenant's API key, until stop()."""

    def __init__(self, *args: str, keys: str = "acme=" + KEY) -> None:
        self.dir = tempfile.mkdtemp(prefix="triage-py-")
        env = {**os.environ, "TRIAGE_API_KEYS": keys, "TRIAGE_API_KEYS_FILE": "", "TRIAGE_CORS_ORIGINS": ""}
        self.proc = subprocess.Popen([BIN, "serve", "--addr", "127.0.0.1:0", "--db", os.path.join(self.dir, "triage.db"), *args],
                                     cwd=self.dir, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline() if self.proc.stdout else ""
        if "listening on " not in line:
            self.stop()
            raise RuntimeError(f"triage serve did not start: {line!r}")
        self.url = line.split("listening on ", 1)[1].split(" ", 1)[0]
        # The rest of its output is drained, so that it never blocks on a full pipe.
        threading.Thread(target=lambda: self.proc.stdout and self.proc.stdout.read(), daemon=True).start()

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()
        if self.proc.stdout:
            self.proc.stdout.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def report(agent: str, message: str, query: str | None = None) -> dict:
    return {"agent_id": agent, "data": {"error_type": "query_error", "error_code": "DB_TIMEOUT", "message": message,
                                        "query_id": query or "q_" + uuid.uuid4().hex[:8],
                                        "context": {"row_count": 48000000}}}


@unittest.skipUnless(BIN, SKIP)
class ServiceTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls) -> None:
        cls.service = Service()
        cls.addClassCleanup(cls.service.stop)
        cls.client = Client(cls.service.url, api_key=KEY, retry=RetryPolicy(max_attempts=2, base_delay=0.05))

    def test_report_get_and_a_duplicate(self) -> None:
        key = "py-" + uuid.uuid4().hex
        # The same report again: with its timestamp, the same body.
        r = {**report("py_reporter", "Query timed out after 30s"), "timestamp": "2025-08-08T12:20:05Z"}
        fb = self.client.report(r, idempotency_key=key)
        self.assertTrue(fb["error_id"].startswith("err_"), fb)
        self.assertFalse(fb.get("duplicate", False))
        self.assertEqual(fb["fault"]["code"], "TIMEOUT")
        self.assertIn(fb["next_action"], ("resume", "retry", "escalate", "abort", "ask_user"))
        again = self.client.report(r, idempotency_key=key)
        self.assertEqual(again["error_id"], fb["error_id"])
        # The same key with another body is refused, not recorded.
        with self.assertRaises(ProblemError) as cm:
            self.client.report({**r, "timestamp": "2025-08-08T12:20:06Z"}, idempotency_key=key)
        self.assertEqual((cm.exception.status, cm.exception.code), (422, "INVALID_REQUEST"))
        record = self.client.get(fb["error_id"])
        self.assertEqual(record["error_id"], fb["error_id"])
        self.assertEqual(record["agent_id"], "py_reporter")

    def test_list_pages_through_every_record_of_an_agent(self) -> None:
        agent = "py_lister_" + uuid.uuid4().hex[:6]
        ids = {self.client.report(report(agent, f"Query {i} timed out after 30s"))["error_id"] for i in range(3)}
        self.assertEqual(len(ids), 3)
        page = self.client.list_page(agent_id=agent, limit=2)
        self.assertEqual((len(page.records), page.total), (2, 3))
        self.assertIsNotNone(page.next_cursor)
        listed = [s["error_id"] for s in self.client.list(agent_id=agent, limit=2)]
        self.assertEqual(sorted(listed), sorted(ids))
        self.assertEqual(list(self.client.list(agent_id=agent, q="nothingmatchesthis")), [])

    def test_an_invalid_report_is_a_typed_problem(self) -> None:
        with self.assertRaises(ProblemError) as cm:
            self.client.report({"agent_id": "py reporter", "data": {"query_id": "q_1"}})
        e = cm.exception
        self.assertEqual((e.status, e.code, e.retryable, e.attempts), (422, "INVALID_REQUEST", False, 1))
        self.assertTrue(e.title and e.detail and e.type.endswith("/errors/invalid-request"), vars(e))
        fields = {f.field for f in e.errors}
        self.assertIn("data.message", fields)
        self.assertTrue(all(isinstance(f, FieldError) and f.message for f in e.errors))

    def test_a_wrong_key_and_an_unknown_record(self) -> None:
        with self.assertRaises(ProblemError) as cm:
            Client(self.service.url, api_key="not-the-key-0123456789").get("err_0123456789abcdef")
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.attempts), (403, "TENANT_UNAUTHORIZED", 1))
        self.assertNotIn("not-the-key-0123456789", str(cm.exception))
        with self.assertRaises(ProblemError) as cm:
            Client(self.service.url).get("err_0123456789abcdef")
        self.assertEqual((cm.exception.status, cm.exception.code), (401, "TENANT_REQUIRED"))
        with self.assertRaises(ProblemError) as cm:
            self.client.get("err_0123456789abcdef")
        self.assertEqual((cm.exception.status, cm.exception.code, cm.exception.retryable), (404, "NOT_FOUND", False))


@unittest.skipUnless(BIN, SKIP)
class ReadmeTest(unittest.TestCase):
    """The root README's "Use it from Python" lines work as written,
    against a service without API keys, as the README's is."""

    def test_readme_example(self) -> None:
        root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))
        with open(os.path.join(root, "README.md"), encoding="utf-8") as f:
            readme = f.read()
        self.assertIn("#### Use it from Python", readme)
        section = readme.split("#### Use it from Python", 1)[1]
        start = "PYTHONPATH=clients/python python3 - <<'EOF'\n"
        self.assertIn(start, section)
        script = section.split(start, 1)[1].split("\nEOF\n", 1)[0]
        service = Service(keys="")
        self.addCleanup(service.stop)
        self.assertIn("http://127.0.0.1:8080", script)
        script = script.replace("http://127.0.0.1:8080", service.url)
        env = {**os.environ, "PYTHONPATH": os.path.join(root, "clients", "python"), "PYTHONDONTWRITEBYTECODE": "1"}
        out = subprocess.run([sys.executable, "-"], input=script, capture_output=True, text=True, cwd=root, env=env, timeout=60)
        self.assertEqual(out.returncode, 0, out.stderr)
        lines = out.stdout.splitlines()
        self.assertEqual(len(lines), 2, out.stdout)
        error_id, next_action, user_message = lines[0].split(" ", 2)
        self.assertRegex(error_id, r"^err_[0-9a-f]{16}$")
        self.assertTrue(next_action and user_message, lines[0])
        self.assertEqual(lines[1], f"{error_id} Query timed out after 30s")


@unittest.skipUnless(BIN, SKIP)
class RateLimitTest(unittest.TestCase):
    """The service's rate limit (a request every 2 s, no burst beyond one):
    the client waits the Retry-After it is told, and its report is
    recorded once."""

    def test_retry_after_is_honoured(self) -> None:
        service = Service("--rate-limit", "0.5", "--rate-burst", "1")
        self.addCleanup(service.stop)
        waits: list[float] = []

        def sleep(s: float) -> None:
            waits.append(s)
            time.sleep(s)

        client = Client(service.url, api_key=KEY, retry=RetryPolicy(max_attempts=3, base_delay=0.01, jitter=0), sleep=sleep)
        first = client.report(report("py_limited", "Query timed out after 30s"))
        start = time.monotonic()
        second = client.report(report("py_limited", "Another query timed out after 30s"))
        elapsed = time.monotonic() - start
        self.assertNotEqual(first["error_id"], second["error_id"])
        self.assertTrue(waits and all(w >= 1 for w in waits), waits)  # Retry-After (whole seconds), not the 0.01 s backoff
        self.assertGreaterEqual(elapsed, waits[0])
        # Without retries the limit is a typed, retryable problem. Two
        # calls in a row meet it unless 2 s pass between them; on a loaded
        # machine one call can take that long, so a few tries are allowed
        # (each further one is another chance to be limited, never a pass).
        once = Client(service.url, api_key=KEY, retry=RetryPolicy(max_attempts=1))
        limited: ProblemError | None = None
        for _ in range(5):
            try:
                once.list_page()
            except ProblemError as problem:
                limited = problem
                break
        self.assertIsNotNone(limited, "five calls in a row at 0.5/s were never limited")
        e = limited
        self.assertEqual((e.status, e.code, e.retryable), (429, "RATE_LIMITED", True))
        self.assertIsNotNone(e.retry_after)
        self.assertGreater(e.retry_after, 0)


if __name__ == "__main__":
    unittest.main()
