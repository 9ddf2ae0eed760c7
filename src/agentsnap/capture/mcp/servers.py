"""Who an MCP session talks to: the server as its transport names it, fit to store.

A transport's arguments identify the server: a stdio server by its command and
arguments (``StdioServerParameters``), a remote one by its URL. :class:`Server`
is that identity as it is stored in the golden (the ``connect`` step's
``transport``) and matched in replay:

* stdio: ``command`` and ``args`` as given, except that an absolute path is
  stored by its file name (a checkout or a temporary directory differs from
  machine to machine) and any Python interpreter as ``python``; of the ``env``
  passed to the server only the names;
* URL transports: the URL scrubbed (query secrets, ``user:password@``), without
  the port when the host is a loopback address (test servers bind a free
  port); of the headers only the names.

Secrets never reach the golden: the values of credential-looking env variables
and headers given to a server are remembered
(:func:`agentsnap.storage.scrub.remember_credentials`), so they are scrubbed from
every stored byte, the server's own answers included.
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from ...storage.scrub import remember_credentials, scrub_text, scrub_url

__all__ = ["UNKNOWN", "Server", "stdio_server", "url_server"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]")
#: headers an HTTP client sends by itself (an ``httpx.AsyncClient``'s defaults): not the user's
_CLIENT_DEFAULTS = frozenset(
    (
        "accept",
        "accept-encoding",
        "connection",
        "user-agent",
        "host",
        "content-length",
        "content-type",
    )
)


@dataclass(frozen=True)
class Server:
    """One MCP server as a transport names it.

    ``kind``: ``stdio``, ``streamable-http``, ``sse``, ``websocket`` or ``unknown``
    (a session over streams agentsnap did not see opened); ``label``: a short name
    used until the server names itself (``serverInfo.name``); ``described``: the
    stored ``transport`` of the session's ``connect`` step.
    """

    kind: str
    label: str
    described: Mapping[str, Any] = field(hash=False, compare=True)


#: a session whose streams were not opened by a transport agentsnap hooks (in-memory, custom)
UNKNOWN = Server("unknown", "mcp", {"kind": "unknown"})


#: a Python interpreter however the machine names it (``python3.11``, ``python.exe``)
_PYTHON = re.compile(r"python(\d+(\.\d+)?)?(\.exe)?", re.IGNORECASE)


def _file_name(arg: str) -> str:
    if posixpath.isabs(arg):
        return posixpath.basename(arg) or arg
    if ntpath.isabs(arg) and (":" in arg[:3] or arg.startswith("\\\\")):
        return ntpath.basename(arg) or arg
    return arg


def _command(command: str) -> str:
    """The stored command: its file name, and ``python`` for any Python interpreter (a golden
    recorded in one venv replays, and records the same bytes, in another)."""
    name = _file_name(command)
    return "python" if _PYTHON.fullmatch(name) else name


def _stem(arg: str) -> str:
    name = posixpath.basename(ntpath.basename(arg.rstrip("/\\"))) or arg
    for ext in (".py", ".js", ".mjs", ".ts", ".exe"):
        if name.endswith(ext):
            return name[: -len(ext)]
    return name


def _remember_env(env: Mapping[str, Any]) -> None:
    # env names read as header names ("GITHUB_TOKEN" -> "github-token"): the same rules pick credentials
    remember_credentials([(str(k).lower().replace("_", "-"), str(v)) for k, v in env.items()])


def stdio_server(params: object) -> Server:
    """The server a ``StdioServerParameters`` (``command``, ``args``, ``env``) starts."""
    command = str(getattr(params, "command", "") or "")
    args = [str(a) for a in (getattr(params, "args", None) or ())]
    env = getattr(params, "env", None) or {}
    if isinstance(env, Mapping):
        _remember_env(env)
    described: dict[str, Any] = {
        "kind": "stdio",
        "command": scrub_text(_command(command)),
        "args": [scrub_text(_file_name(a)) for a in args],
    }
    if isinstance(env, Mapping) and env:
        described["env"] = sorted(str(k) for k in env)
    named = [a for a in args if a and not a.startswith("-")]
    label = _stem(named[-1]) if named else _stem(command)
    return Server("stdio", scrub_text(label) or "stdio", described)


def url_server(kind: str, url: object, headers: object = None) -> Server:
    """The server at ``url`` (``str`` or ``httpx.URL``) reached by transport ``kind``;
    ``headers``: a mapping or ``(name, value)`` pairs sent with every request."""
    text = str(url or "")
    pairs = _header_pairs(headers)
    remember_credentials(pairs, None)
    try:
        parts = urlsplit(text)
        host = (parts.hostname or "").lower()
        netloc = parts.netloc.rpartition("@")[2]
        if host in _LOOPBACK and parts.port is not None:
            netloc = netloc.rsplit(":", 1)[0]
        shown = scrub_url(urlunsplit((parts.scheme, netloc, parts.path, parts.query, "")))
    except ValueError:
        host, shown = "", scrub_text(text)
    if "@" in text:
        remember_credentials((), text)
    described: dict[str, Any] = {"kind": kind, "url": shown}
    names = sorted({str(k).lower() for k, _ in pairs} - _CLIENT_DEFAULTS)
    if names:
        described["headers"] = names
    return Server(kind, host or kind, described)


def _header_pairs(headers: object) -> list[tuple[str, str]]:
    if headers is None:
        return []
    items: Iterable[Any]
    if hasattr(headers, "multi_items"):
        items = headers.multi_items()
    elif isinstance(headers, Mapping) or hasattr(headers, "items"):
        items = headers.items()
    else:
        items = headers  # type: ignore[assignment]
    out = []
    for k, v in items:
        key = k.decode("latin-1") if isinstance(k, bytes) else str(k)
        val = v.decode("latin-1") if isinstance(v, bytes) else str(v)
        out.append((key, val))
    return out
