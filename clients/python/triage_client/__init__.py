"""A client of the Triage Error Handler service, with the standard library only.

Report an error, read a record, list records::

    from triage_client import Client

    client = Client("http://127.0.0.1:8080", api_key=None)
    feedback = client.report({"agent_id": "query_engine",
                              "data": {"error_type": "query_error", "message": "Query timed out after 30s",
                                       "query_id": "q_456"}})
    record = client.get(feedback["error_id"])
    for summary in client.list(agent_id="query_engine", status="unresolved"):
        print(summary["error_id"], summary["title"])

A failure is a ``TriageError``: a ``ProblemError`` when the service
answered with problem details (RFC 9457: ``code``, ``status``, ``title``,
``detail``, ``errors``), a ``TransportError`` when it could not be
reached. Retryable failures are retried (``RetryPolicy``), honouring
``Retry-After``; a report keeps its Idempotency-Key across them.
"""

from .client import DEFAULT_TIMEOUT, USER_AGENT, Client, Page, RetryPolicy, new_idempotency_key
from .errors import FieldError, ProblemError, TransportError, TriageError

__all__ = [
    "Client", "Page", "RetryPolicy", "new_idempotency_key", "DEFAULT_TIMEOUT", "USER_AGENT",
    "TriageError", "ProblemError", "TransportError", "FieldError",
]
__version__ = "0.1.0"
