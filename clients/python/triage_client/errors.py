"""The errors the client raises: the service's problems (RFC 9457), typed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class FieldError:
    """One field of a request the service refused, by its path ("data.message")."""

    field: str
    message: str


class TriageError(Exception):
    """Any failure of a call to the service.

    ``code`` is the failure's stable reason (Triage's taxonomy:
    ``RATE_LIMITED``, ``INVALID_REQUEST``, ``TRANSPORT_ERROR``, ...),
    ``retryable`` whether the same call may succeed later, ``retry_after``
    the delay the service asked for, in seconds (``None`` when it asked
    none), and ``attempts`` how many times the client tried.
    """

    def __init__(self, message: str, *, code: str, retryable: bool = False,
                 retry_after: float | None = None, attempts: int = 1) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.retryable = retryable
        self.retry_after = retry_after
        self.attempts = attempts


class ProblemError(TriageError):
    """The service answered with an error: its problem details (RFC 9457).

    ``status`` is the HTTP status, ``title`` and ``detail`` the problem's
    (``detail`` is safe to show a user), ``type`` its type URI,
    ``errors`` the field errors of a refused request, ``details`` the
    problem's structured metadata. An error answer that is not a problem
    document (a proxy's) is one too, its code taken from its status.
    """

    def __init__(self, *, status: int, code: str, title: str = "", detail: str = "",
                 type: str = "about:blank", instance: str = "", retryable: bool = False,
                 retry_after: float | None = None, errors: list[FieldError] | None = None,
                 details: dict[str, Any] | None = None, category: str = "", domain: str = "",
                 session_valid: bool | None = None, attempts: int = 1) -> None:
        message = f"{status} {code}: {detail or title or 'the service refused the request'}"
        super().__init__(message, code=code, retryable=retryable, retry_after=retry_after, attempts=attempts)
        self.status = status
        self.title = title
        self.detail = detail
        self.type = type
        self.instance = instance
        self.errors = list(errors or [])
        self.details = dict(details or {})
        self.category = category
        self.domain = domain
        self.session_valid = session_valid


class TransportError(TriageError):
    """The service could not be reached, or the connection broke or timed
    out before its answer (code ``TRANSPORT_ERROR`` or ``TIMEOUT``;
    retryable), or its answer was not what the API sends (code
    ``PROTOCOL_ERROR``; not retryable)."""
