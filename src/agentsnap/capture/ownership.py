"""Which agentsnap layer handles the current request: each request is captured once.

An outer transport (httpx over an aiohttp transport, requests over
``http.client``) marks the request it handles with :func:`owned`; a layer
below it sees :func:`owner` set and lets the request pass untouched.
``owned(INTERNAL)`` marks agentsnap's own traffic (the LLM judge), which no
transport captures and the never-silent observer does not report.
"""

from __future__ import annotations

import contextlib
import contextvars
from collections.abc import Iterator

__all__ = ["INTERNAL", "owned", "owner"]


_owner: contextvars.ContextVar[str | None] = contextvars.ContextVar(
    "agentsnap_capture_owner", default=None
)


def owner() -> str | None:
    """The transport already handling the current request in this thread / task, or None.

    A layer below it (the aiohttp session under litellm's httpx transport, the
    ``http.client`` connection under urllib3) sees it set and lets the request
    pass untouched: each request is captured once, by the outermost hook.
    """
    return _owner.get()


#: the owner name of agentsnap's own traffic (the LLM judge): no transport captures it
#: and the never-silent observer does not report it
INTERNAL = "agentsnap-internal"


@contextlib.contextmanager
def owned(transport: str) -> Iterator[None]:
    """Mark the current thread / task as handling a captured request (see :func:`owner`);
    ``owned(INTERNAL)`` marks agentsnap's own requests, which are never captured."""
    token = _owner.set(transport)
    try:
        yield
    finally:
        _owner.reset(token)
