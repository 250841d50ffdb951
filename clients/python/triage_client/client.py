"""The client of the Triage Error Handler service's API."""

from __future__ import annotations

import email.utils
import http.client
import json
import random
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from .errors import FieldError, ProblemError, TransportError, TriageError

__all__ = ["Client", "Page", "RetryPolicy", "new_idempotency_key", "DEFAULT_TIMEOUT", "USER_AGENT"]

#: How long one attempt may take, in seconds, by default.
DEFAULT_TIMEOUT = 60.0
#: The User-Agent the client sends.
USER_AGENT = "triage-python-client/0.1"
#: The longest Idempotency-Key the service takes.
MAX_IDEMPOTENCY_KEY = 255
#: The largest answer the client reads, in bytes (a record with its reports).
MAX_ANSWER = 16 << 20

# The code an error answer that is not a problem document (a proxy's, a
# load balancer's) stands for, by its status, and whether it is worth
# another attempt (as the Go client reads them).
_STATUS_CODES = {
    400: ("INVALID_REQUEST", False), 401: ("TENANT_REQUIRED", False), 403: ("TENANT_UNAUTHORIZED", False),
    404: ("NOT_FOUND", False), 408: ("TIMEOUT", True), 409: ("SESSION_BUSY", True),
    413: ("PAYLOAD_TOO_LARGE", False), 422: ("INVALID_REQUEST", False), 429: ("RATE_LIMITED", True),
    502: ("TRANSPORT_ERROR", True), 503: ("SERVICE_UNAVAILABLE", True), 504: ("TIMEOUT", True),
}


@dataclass(frozen=True)
class RetryPolicy:
    """When and how often a call is tried again.

    Only a retryable failure is retried: a problem the service marks
    ``retryable`` (rate limited, busy, unavailable, timed out; and
    ``SESSION_BUSY``, the same Idempotency-Key still in flight), an error
    status that stands for one (408, 429, 502, 503, 504) and a connection
    that failed or timed out. A report is retried with the same
    Idempotency-Key, so the service records it once.

    Each wait is the backoff (``base_delay``, doubling each attempt, at
    most ``max_delay``, less up to ``jitter`` of it at random) or the
    service's ``Retry-After``, whichever is longer. A ``Retry-After``
    longer than ``max_retry_after`` ends the call at once with that
    failure (its ``retry_after`` tells when to come back), so that a call
    is never parked for hours. The defaults are the Go client's.
    """

    #: Attempts, the first included (1: no retry).
    max_attempts: int = 3
    #: The first backoff, in seconds.
    base_delay: float = 0.5
    #: The longest backoff, in seconds (a Retry-After may be longer).
    max_delay: float = 30.0
    #: The longest Retry-After, in seconds, the client waits for.
    max_retry_after: float = 120.0
    #: The fraction of each backoff taken off at random (0: none).
    jitter: float = 0.2

    def __post_init__(self) -> None:
        if self.max_attempts < 1:
            raise ValueError("RetryPolicy.max_attempts must be 1 or more")
        if self.base_delay < 0 or self.max_delay < 0 or self.max_retry_after < 0:
            raise ValueError("RetryPolicy's delays must not be negative")
        if not 0 <= self.jitter <= 1:
            raise ValueError("RetryPolicy.jitter must be between 0 and 1")

    def backoff(self, attempt: int, rand: Callable[[], float] = random.random) -> float:
        """The backoff after failed attempt ``attempt`` (1 for the first)."""
        delay = min(self.base_delay * (2 ** min(attempt - 1, 30)), self.max_delay)
        return delay - rand() * self.jitter * delay


@dataclass(frozen=True)
class Page:
    """One page of error records (GET /v1/errors): their summaries, the
    cursor of the next page (``None`` on the last), and how many records
    the filters select (``total_capped``: more than ``total``)."""

    records: list[dict[str, Any]]
    next_cursor: str | None = None
    total: int = 0
    total_capped: bool = False


def new_idempotency_key() -> str:
    """A new random Idempotency-Key: a version 4 UUID."""
    return str(uuid.uuid4())


def _valid_token(s: str) -> bool:
    return bool(s) and all(" " < c <= "~" for c in s)


class Client:
    """A client of the Triage Error Handler service.

    ``base_url`` is the service's address (``http://127.0.0.1:8080``);
    ``api_key`` the tenant's API key, sent as ``Authorization: Bearer``
    (leave it out for a service without API keys). ``timeout`` bounds
    each attempt, in seconds; ``retry`` says when to try again.
    ``sleep`` and ``now`` are ``time.sleep`` and ``time.time`` unless a
    test replaces them.

    The client keeps no connection and no state between calls: one may be
    shared by threads.
    """

    def __init__(self, base_url: str, *, api_key: str | None = None, timeout: float = DEFAULT_TIMEOUT,
                 retry: RetryPolicy | None = None, user_agent: str = USER_AGENT,
                 sleep: Callable[[float], None] = time.sleep, now: Callable[[], float] = time.time) -> None:
        u = urllib.parse.urlsplit(base_url)
        if u.scheme not in ("http", "https") or not u.hostname:
            raise ValueError("base_url must be an http or https URL with a host")
        if u.username is not None or u.password is not None:
            raise ValueError("base_url must not carry credentials; pass api_key")
        if u.query or u.fragment:
            raise ValueError("base_url must not have a query or a fragment")
        if api_key is not None and not _valid_token(api_key):
            raise ValueError("api_key must be printable ASCII without spaces")
        if "\r" in user_agent or "\n" in user_agent:
            raise ValueError("user_agent must be one line")
        if timeout <= 0:
            raise ValueError("timeout must be more than 0")
        self._base = base_url.rstrip("/") + "/"
        self._api_key = api_key or None
        self._timeout = timeout
        self._retry = retry or RetryPolicy()
        self._user_agent = user_agent
        self._sleep = sleep
        self._now = now
        self._opener = urllib.request.build_opener(_NoRedirect)

    def __repr__(self) -> str:  # never the key
        return f"Client({self._base!r})"

    # --- the API ---------------------------------------------------------

    def report(self, report: Mapping[str, Any], *, idempotency_key: str | None = None) -> dict[str, Any]:
        """Report an error (POST /v1/errors) and return the service's
        feedback: ``error_id``, the diagnosis, the user message, the
        recovery and ``next_action``; ``duplicate`` is true when the
        service had it already.

        ``report`` is the report as the API takes it (``agent_id``,
        ``data`` with ``message``, ``error_type``, ``query_id``, ...);
        ``timestamp`` defaults to now and ``status`` to ``"error"``.
        Every attempt is sent with the same Idempotency-Key and the same
        body: ``idempotency_key``, or a new random one. Pass your own when
        you retry a report yourself (after a restart, from a queue), so
        that the service records it once; then give the report its
        ``timestamp`` too, as a retry must send the same body (the same
        key with another body is a ``ProblemError``, 422).
        """
        key = idempotency_key if idempotency_key is not None else new_idempotency_key()
        if not (_valid_token(key) and len(key) <= MAX_IDEMPOTENCY_KEY and '"' not in key and "\\" not in key):
            raise ValueError(f"idempotency_key must be 1 to {MAX_IDEMPOTENCY_KEY} printable ASCII characters "
                             "without spaces, quotes or backslashes")
        body = dict(report)
        body.setdefault("timestamp", datetime.now(timezone.utc).isoformat().replace("+00:00", "Z"))
        body.setdefault("status", "error")
        data = json.dumps(body, ensure_ascii=False, separators=(",", ":")).encode()
        feedback = self._call("POST", "v1/errors", body=data, idempotency_key=key, ok=(200, 201))
        if not isinstance(feedback, dict) or not feedback.get("error_id"):
            raise TransportError("The service's feedback has no error_id.", code="PROTOCOL_ERROR")
        return feedback

    def get(self, error_id: str) -> dict[str, Any]:
        """An error record (GET /v1/errors/{error_id}): its status, counts,
        latest report and feedback. A record the tenant does not have is a
        ``ProblemError`` with code ``NOT_FOUND``."""
        if not error_id:
            raise ValueError("error_id is required")
        return self._call("GET", "v1/errors/" + urllib.parse.quote(error_id, safe=""))

    def list_page(self, *, cursor: str | None = None, limit: int | None = None, **filters: Any) -> Page:
        """One page of error records (GET /v1/errors), the filters as the
        API names them: ``agent_id``, ``query_id``, ``error_type``,
        ``severity``, ``status``, ``since`` (a ``datetime`` or an RFC 3339
        string), ``q`` (full-text search), ``sort`` (``last_seen``,
        ``first_seen``, ``count``), ``window`` (with ``sort="count"``: a
        ``timedelta`` of whole hours, or ``"24h"``, ``"7d"``); ``limit``
        records a page, from ``cursor`` (the previous page's
        ``next_cursor``)."""
        query = _list_query(filters, cursor, limit)
        target = "v1/errors" + ("?" + urllib.parse.urlencode(query) if query else "")
        page = self._call("GET", target)
        if not isinstance(page, dict) or not isinstance(page.get("records"), list):
            raise TransportError("The service's page has no records.", code="PROTOCOL_ERROR")
        return Page(records=page["records"], next_cursor=page.get("next_cursor") or None,
                    total=int(page.get("total") or 0), total_capped=bool(page.get("total_capped")))

    def list(self, *, limit: int | None = None, **filters: Any) -> Iterator[dict[str, Any]]:
        """Every error record the filters select (see ``list_page``), page
        after page, as an iterator of record summaries: the next page is
        asked for only when the iteration gets there. ``limit`` is the size
        of each page."""
        cursor: str | None = None
        while True:
            page = self.list_page(cursor=cursor, limit=limit, **filters)
            yield from page.records
            if not page.next_cursor:
                return
            cursor = page.next_cursor

    # --- the machinery ---------------------------------------------------

    def _call(self, method: str, target: str, *, body: bytes | None = None,
              idempotency_key: str | None = None, ok: tuple[int, ...] = (200,)) -> Any:
        policy = self._retry
        attempt = 0
        while True:
            attempt += 1
            try:
                return self._attempt(method, target, body, idempotency_key, ok)
            except TriageError as err:
                err.attempts = attempt
                if not err.retryable or attempt >= policy.max_attempts:
                    raise
                if err.retry_after is not None and err.retry_after > policy.max_retry_after:
                    raise
                self._sleep(max(policy.backoff(attempt), err.retry_after or 0.0))

    def _attempt(self, method: str, target: str, body: bytes | None, key: str | None, ok: tuple[int, ...]) -> Any:
        req = urllib.request.Request(self._base + target, data=body, method=method)
        req.add_header("Accept", "application/json, application/problem+json")
        req.add_header("User-Agent", self._user_agent)
        if body is not None:
            req.add_header("Content-Type", "application/json")
        if key is not None:
            req.add_header("Idempotency-Key", key)
        if self._api_key:
            req.add_header("Authorization", "Bearer " + self._api_key)
        try:
            with self._opener.open(req, timeout=self._timeout) as resp:
                status, headers, data = resp.status, resp.headers, _read(resp)
        except urllib.error.HTTPError as resp:
            with resp:
                status, headers, data = resp.code, resp.headers, _read(resp)
        except (TimeoutError, urllib.error.URLError, OSError, http.client.HTTPException) as exc:
            reason = getattr(exc, "reason", exc)
            timed_out = isinstance(reason, TimeoutError) or "timed out" in str(reason)
            raise TransportError(
                ("The Error Handler service did not answer in time: " if timed_out
                 else "Cannot reach the Error Handler service: ") + self._scrub(str(reason)),
                code="TIMEOUT" if timed_out else "TRANSPORT_ERROR", retryable=True) from None
        if status in ok:
            try:
                return json.loads(data)
            except ValueError:
                raise TransportError(f"The service's answer ({status}) is not JSON.", code="PROTOCOL_ERROR") from None
        if 400 <= status <= 599:
            raise self._problem(status, headers, data)
        raise TransportError(f"The service answered an unexpected status {status}.", code="PROTOCOL_ERROR")

    def _problem(self, status: int, headers: Any, data: bytes) -> ProblemError:
        retry_after = _retry_after(headers.get("Retry-After"), self._now())
        ctype = (headers.get("Content-Type") or "").split(";")[0].strip().lower()
        doc: dict[str, Any] = {}
        if ctype == "application/problem+json":
            try:
                parsed = json.loads(data)
                doc = parsed if isinstance(parsed, dict) else {}
            except ValueError:
                doc = {}
        # Any other status: a 4xx is a request the peer refused, a 5xx its
        # own failure; neither is retried.
        fallback_code, fallback_retryable = _STATUS_CODES.get(status, ("INVALID_REQUEST" if status < 500 else "INTERNAL_ERROR", False))
        code = _str(doc.get("code")) or fallback_code
        retryable = doc.get("retryable") if isinstance(doc.get("retryable"), bool) else fallback_retryable
        if code == "SESSION_BUSY":
            retryable = True  # the same key in flight: once it ends, a retry gets its outcome
        if retry_after is None and isinstance(doc.get("retry_after"), (int, float)) and doc["retry_after"] > 0:
            retry_after = float(doc["retry_after"])
        errors = [FieldError(self._scrub(_str(e.get("field"))), self._scrub(_str(e.get("message"))))
                  for e in doc.get("errors") or [] if isinstance(e, dict)]
        details = doc.get("details") if isinstance(doc.get("details"), dict) else {}
        session_valid = doc.get("session_valid") if isinstance(doc.get("session_valid"), bool) else None
        return ProblemError(status=status, code=code, title=self._scrub(_str(doc.get("title"))),
                            detail=self._scrub(_str(doc.get("detail"))), type=_str(doc.get("type")) or "about:blank",
                            instance=_str(doc.get("instance")), retryable=retryable, retry_after=retry_after,
                            errors=errors, details=details, category=_str(doc.get("category")),
                            domain=_str(doc.get("domain")), session_valid=session_valid)

    def _scrub(self, s: str) -> str:
        """s without the API key, should a peer echo it."""
        return s.replace(self._api_key, "[REDACTED]") if self._api_key else s


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Redirects are not followed: urllib would send the API key to
    wherever they point (and turn a POST into a GET)."""

    def redirect_request(self, req, fp, code, msg, headers, newurl):  # type: ignore[no-untyped-def]
        return None


def _read(resp: Any) -> bytes:
    data = resp.read(MAX_ANSWER + 1)
    if len(data) > MAX_ANSWER:
        raise TransportError(f"The service's answer is longer than {MAX_ANSWER} bytes.", code="PROTOCOL_ERROR")
    return data


def _str(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _retry_after(value: str | None, now: float) -> float | None:
    """A Retry-After header's delay in seconds: delay-seconds or an
    HTTP-date (RFC 9110, section 10.2.3); None when absent or unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(int(value))
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError, IndexError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=timezone.utc)
    return max(0.0, when.timestamp() - now)


def _list_query(filters: Mapping[str, Any], cursor: str | None, limit: int | None) -> list[tuple[str, str]]:
    allowed = ("agent_id", "query_id", "error_type", "severity", "status", "since", "q", "sort", "window")
    unknown = sorted(set(filters) - set(allowed))
    if unknown:
        raise TypeError(f"unknown filter(s): {', '.join(unknown)}; the filters are {', '.join(allowed)}")
    query: list[tuple[str, str]] = []
    for name in allowed:
        v = filters.get(name)
        if v is None or v == "":
            continue
        if name == "since" and isinstance(v, datetime):
            if v.tzinfo is None:
                raise ValueError("since must be an aware datetime (with a time zone)")
            v = v.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")
        elif name == "window" and isinstance(v, timedelta):
            hours, rest = divmod(v, timedelta(hours=1))
            if rest or hours < 1:
                raise ValueError("window must be whole hours")
            v = f"{hours}h"
        query.append((name, str(v)))
    if limit is not None:
        if limit < 1:
            raise ValueError("limit must be 1 or more")
        query.append(("limit", str(limit)))
    if cursor:
        query.append(("cursor", cursor))
    return query
