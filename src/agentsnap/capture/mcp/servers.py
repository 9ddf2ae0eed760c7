"""Who an MCP session talks to: the server as its transport names it, fit to store.

A transport's arguments identify the server: a stdio server by its command and
arguments (``StdioServerParameters``), a remote one by its URL. :class:`Server`
is that identity as it is stored in the golden (the ``connect`` step's
``transport``) and matched in replay:

* stdio: ``command`` and ``args`` as given, except that an absolute path is
  stored by its file name (a checkout or a temporary directory differs from
  machine to machine) and any Python interpreter as ``python``; of the ``env``
  passed to the server only the names of the variables set on purpose (not
  those copied from the test process's environment: ``env=dict(os.environ)``
  would store the machine);
* URL transports: the URL scrubbed (a query parameter whose name says key,
  token, secret, auth …; a path segment that reads like a token;
  ``user:password@``), without the port when the host is a loopback address
  (test servers bind a free port); of the headers only the names.

Secrets never reach the golden: those values, the values of env variables
whose name says key, token, secret, pass, auth, credential, private, cookie,
session, cert or signature, and of credential headers are remembered
(:func:`agentsnap.storage.scrub.remember_secret`), so they are scrubbed from
every stored byte, the server's own answers included. Replay matches a session
with a recorded one by :func:`server_key` (kind, command and args, or URL).
"""

from __future__ import annotations

import ntpath
import posixpath
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from ...storage.scrub import REDACTED, remember_credentials, remember_secret, scrub_text, scrub_url

__all__ = ["UNKNOWN", "Server", "server_key", "stdio_server", "url_server"]

_LOOPBACK = ("127.0.0.1", "localhost", "::1", "[::1]", "0.0.0.0")
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


#: words in a name (an env variable, a query parameter) that say its value is a credential
_SECRET_WORDS = (
    "key", "token", "secret", "pass", "pwd", "auth", "credential", "private", "cookie", "session",
    "cert", "signature",
)  # fmt: skip
#: a URL path segment that reads like a token (``/u/<key>/mcp``): long, letters and digits
_TOKEN_LIKE = re.compile(r"(?=[A-Za-z0-9_-]*[0-9])(?=[A-Za-z0-9_-]*[A-Za-z])[A-Za-z0-9_-]{20,}")


def _secret_name(name: str) -> bool:
    low = name.lower()
    return any(word in low for word in _SECRET_WORDS)


def _explicit_env(env: Mapping[str, Any]) -> list[str]:
    """The names of the variables ``env`` sets on purpose (not copied from this process's
    environment, as ``env=dict(os.environ)`` does), sorted; the values of the credential-named
    ones, and of every credential-named one copied along, are remembered as secrets."""
    import os

    explicit = []
    for key, value in env.items():
        name, text = str(key), str(value)
        if _secret_name(name):
            remember_secret(text)
        if os.environ.get(name) != text:
            explicit.append(name)
    return sorted(explicit)


def _stored_args(args: list[str]) -> list[str]:
    """The stdio arguments as stored: a value after a credential-named flag (``--api-key V``,
    ``--token=V``) redacted and remembered, a path (alone or after ``=``) by its file name."""
    out: list[str] = []
    secret_next = False
    for arg in args:
        if secret_next:
            remember_secret(arg)
            out.append(REDACTED)
            secret_next = False
            continue
        flag, eq, value = arg.partition("=")
        if arg.startswith("-") and _secret_name(flag.lstrip("-")):
            if eq:
                remember_secret(value)
                out.append(f"{flag}={REDACTED}")
            else:
                out.append(arg)
                secret_next = True
            continue
        if eq and not arg.startswith("/"):
            out.append(scrub_text(f"{flag}={_file_name(value)}"))
        else:
            out.append(scrub_text(_file_name(arg)))
    return out


def stdio_server(params: object) -> Server:
    """The server a ``StdioServerParameters`` (``command``, ``args``, ``env``) starts."""
    command = str(getattr(params, "command", "") or "")
    args = [str(a) for a in (getattr(params, "args", None) or ())]
    env = getattr(params, "env", None) or {}
    named_env = _explicit_env(env) if isinstance(env, Mapping) else []
    described: dict[str, Any] = {
        "kind": "stdio",
        "command": scrub_text(_command(command)),
        "args": _stored_args(args),
    }
    if named_env:
        described["env"] = named_env
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
        query = []
        for key, value in parse_qsl(parts.query, keep_blank_values=True):
            if _secret_name(key):
                remember_secret(value)
                value = REDACTED
            query.append((key, value))
        path = "/".join(_path_segment(seg) for seg in parts.path.split("/"))
        shown = scrub_url(urlunsplit((parts.scheme, netloc, path, urlencode(query, safe="<>"), "")))
    except ValueError:
        host, shown = "", scrub_text(text)
    if "@" in text:
        remember_credentials((), text)
    described: dict[str, Any] = {"kind": kind, "url": shown}
    names = sorted({str(k).lower() for k, _ in pairs} - _CLIENT_DEFAULTS)
    if names:
        described["headers"] = names
    return Server(kind, host or kind, described)


def _path_segment(segment: str) -> str:
    if _TOKEN_LIKE.fullmatch(segment):
        remember_secret(segment)
        return REDACTED
    return segment


def server_key(described: Mapping[str, Any]) -> tuple[str, ...]:
    """What identifies a server when a replayed session is matched with a recorded one: the
    transport kind, the command and arguments or the URL, and the names of the env variables
    set on purpose (not the header names, nor any value)."""
    return (
        str(described.get("kind")),
        str(described.get("command", "")),
        repr(described.get("args", [])),
        str(described.get("url", "")),
        repr(described.get("env", [])),
    )


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
