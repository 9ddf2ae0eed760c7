"""The socket guard: while a test must run offline, only loopback is reachable.

Active while a :class:`~agentsnap.capture.recording.Recording` in ``replay`` mode is
started — a test replaying from its snapshot, or a CI run with no usable
snapshot (blocked) — and removed when the last such recording stops. While
active, in every thread and event loop of the process:

* ``socket.socket.connect`` / ``connect_ex`` / ``sendto`` to an IPv4 or IPv6
  address that is not loopback (``127.0.0.0/8``, ``::1``, the unspecified
  address, IPv4-mapped loopback) raise
  :class:`~agentsnap.exceptions.NetworkBlockedError`; so does a host *name*
  passed straight to ``connect``. ``AF_UNIX`` and other local families pass.
  ``ssl`` sockets, ``socket.create_connection``, httpx/httpcore, urllib,
  asyncio's selector loops (``sock_connect`` / ``create_connection`` call
  ``sock.connect``) and worker threads all go through these methods.
* ``socket.getaddrinfo`` / ``gethostbyname`` / ``gethostbyname_ex`` refuse a
  name that is not allowed *before* any DNS query leaves the machine, and the
  error names the host the code asked for (not just an IP address). asyncio
  resolves through ``socket.getaddrinfo`` in an executor thread, so the same
  check applies.
* On Windows, the proactor loop's ``sock_connect`` (which bypasses
  ``socket.connect``) is checked too.

Allowed besides loopback: ``localhost`` and ``*.localhost``, and each entry
of ``allowed_hosts`` (``[tool.agentsnap]``): a host name (exact, or a glob
such as ``*.svc.cluster.local``), an IP address or a CIDR network
(``10.0.0.0/8``). A name that is allowed resolves normally and the addresses
it resolves to are allowed for the rest of the run.

Not covered: C extensions that open sockets themselves (pycurl, grpc's C
core, uvloop's ``sock_connect``).

Installation is reference-counted and tolerant of other patches: each
patched attribute is restored only if it still holds agentsnap's wrapper; if
another plugin patched on top meanwhile, agentsnap's wrapper stays in its
chain but does nothing once the guard is off.
"""

from __future__ import annotations

import fnmatch
import ipaddress
import socket
import sys
import threading
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from ..exceptions import NetworkBlockedError

__all__ = ["activate", "active", "configure", "deactivate", "guarded", "host_allowed"]

_lock = threading.RLock()
_scopes: list[_Scope] = []
_configured: tuple[str, ...] = ()
_names: tuple[str, ...] = ()
_networks: tuple[Any, ...] = ()
_resolved: set[str] = set()
_on = False  # read lock-free by the wrappers


@dataclass(eq=False)
class _Scope:
    reason: str
    extra: tuple[str, ...]


def parse_hosts(allowed_hosts: Iterable[str] | None) -> tuple[str, ...]:
    """The ``allowed_hosts`` entries (names, globs, IPs, CIDRs), stripped.
    Raises ``ValueError`` for an empty entry."""
    hosts = tuple(str(h).strip() for h in (allowed_hosts or ()))
    if any(not h for h in hosts):
        raise ValueError("allowed_hosts: empty host name")
    return hosts


def configure(allowed_hosts: Iterable[str] | None) -> None:
    """Set the configured ``allowed_hosts`` (see :func:`parse_hosts`).
    :func:`agentsnap.config.apply` calls this. Raises ``ValueError`` for an empty entry."""
    global _configured
    hosts = parse_hosts(allowed_hosts)
    with _lock:
        _configured = hosts
        _compile()


def _compile() -> None:
    global _names, _networks
    names: list[str] = []
    networks: list[Any] = []
    for entry in (*_configured, *(h for scope in _scopes for h in scope.extra)):
        text = entry.strip().strip("[]").lower().rstrip(".")
        try:
            networks.append(ipaddress.ip_network(text, strict=False))
        except ValueError:
            names.append(text)
    _names, _networks = tuple(names), tuple(networks)


def _normalise(host: object) -> str:
    if isinstance(host, (bytes, bytearray, memoryview)):
        # async httpx clients pass the host as bytes; the idna codec only allows errors="strict"
        raw = bytes(host)
        try:
            host = raw.decode("idna")
        except UnicodeError:
            host = raw.decode("ascii", "replace")
    text = str(host).strip().strip("[]")
    return text.split("%", 1)[0].rstrip(".").lower()


def _ip(text: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(text)
    except ValueError:
        return None


def _local_ip(ip: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    if ip.is_loopback or ip.is_unspecified:
        return True
    mapped = getattr(ip, "ipv4_mapped", None)
    return mapped is not None and (mapped.is_loopback or mapped.is_unspecified)


def host_allowed(host: object) -> bool:
    """Whether ``host`` (a name or an IP address) may be reached while the guard is on."""
    text = _normalise(host)
    if text in ("", "localhost") or text.endswith(".localhost"):
        return True
    ip = _ip(text)
    if ip is not None:
        if _local_ip(ip) or text in _resolved:
            return True
        return any(ip.version == net.version and ip in net for net in _networks)
    return any(text == name or fnmatch.fnmatchcase(text, name) for name in _names)


def _blocked(host: object, port: object, what: str) -> NetworkBlockedError:
    from .remedies import live_or_record

    reason = _scopes[-1].reason if _scopes else "agentsnap blocks network access here"
    name = _normalise(host) or str(host)
    where = f"{name}:{port}" if port not in (None, "", 0) else name
    port_num = port if isinstance(port, int) else None
    return NetworkBlockedError(
        f"agentsnap: blocked {what} {where}: {reason}. Only loopback (127.0.0.1, ::1, localhost) is reachable. "
        f'If this is your own local service, allow it: allowed_hosts = ["{name}"] in [tool.agentsnap]; '
        f"to call the real API, {live_or_record()}.",
        host=name,
        port=port_num,
    )


def _check_address(family: object, address: object, what: str) -> None:
    if not _on:
        return
    if family not in (socket.AF_INET, socket.AF_INET6):
        return  # AF_UNIX and other local families
    if not isinstance(address, tuple) or not address:
        return
    host = address[0]
    if not host_allowed(host):
        raise _blocked(host, address[1] if len(address) > 1 else None, what)


def _check_name(host: object, port: object = None) -> None:
    if not _on or host is None:
        return
    text = _normalise(host)
    if _ip(text) is not None:
        return  # a literal address needs no lookup; connect checks it
    if not host_allowed(text):
        raise _blocked(host, port, "a DNS lookup of")


def _remember(host: Any, infos: Any) -> Any:
    """Addresses an allowed (non-local) name resolved to are allowed too."""
    text = _normalise(host)
    if text and _ip(text) is None and text != "localhost" and not text.endswith(".localhost"):
        try:
            for info in infos:
                _resolved.add(_normalise(info[4][0]))
        except (TypeError, IndexError):
            pass
    return infos


# -- wrappers ---------------------------------------------------------------------


def _wrap_connect(previous: Callable[..., Any]) -> Callable[..., Any]:
    def connect(self: socket.socket, address: object) -> Any:
        _check_address(self.family, address, "a connection to")
        return previous(self, address)

    return connect


def _wrap_sendto(previous: Callable[..., Any]) -> Callable[..., Any]:
    def sendto(self: socket.socket, data: object, *args: object) -> Any:
        if args:
            _check_address(self.family, args[-1], "a datagram to")
        return previous(self, data, *args)

    return sendto


def _wrap_getaddrinfo(previous: Callable[..., Any]) -> Callable[..., Any]:
    def getaddrinfo(host: object, port: object, *args: object, **kwargs: object) -> Any:
        _check_name(host, port)
        infos = previous(host, port, *args, **kwargs)
        return _remember(host, infos) if _on and host is not None else infos

    return getaddrinfo


def _wrap_gethostbyname(previous: Callable[..., Any]) -> Callable[..., Any]:
    def gethostbyname(hostname: object, *args: object, **kwargs: object) -> Any:
        _check_name(hostname)
        result = previous(hostname, *args, **kwargs)
        if _on:
            if isinstance(result, str):
                addresses = [result]
            elif isinstance(result, tuple) and len(result) == 3:
                addresses = list(result[2])
            else:
                addresses = []
            _remember(hostname, [(0, 0, 0, "", (a, 0)) for a in addresses])
        return result

    return gethostbyname


def _wrap_sock_connect(previous: Callable[..., Any]) -> Callable[..., Any]:
    async def sock_connect(self: object, sock: object, address: object) -> Any:
        _check_address(getattr(sock, "family", None), address, "a connection to")
        return await previous(self, sock, address)

    return sock_connect


class _Patch:
    """One patched attribute, restored only while it still holds agentsnap's wrapper."""

    def __init__(
        self, owner: object, name: str, make: Callable[[Callable[..., Any]], Callable[..., Any]]
    ) -> None:
        self.owner, self.name, self.make = owner, name, make
        self.installed: Any = None
        self.previous: Any = None
        self.had_own = False

    def apply(self) -> None:
        current = getattr(self.owner, self.name)
        if getattr(current, "_agentsnap_guard", False):
            self.installed = current  # still in place (or restored by someone else's undo)
            return
        self.had_own = self.name in vars(self.owner)
        self.previous = current
        wrapper = self.make(current)
        wrapper._agentsnap_guard = True  # type: ignore[attr-defined]
        wrapper.__wrapped__ = current  # type: ignore[attr-defined]
        wrapper.__name__ = getattr(current, "__name__", self.name)
        wrapper.__doc__ = getattr(current, "__doc__", None)
        setattr(self.owner, self.name, wrapper)
        self.installed = wrapper

    def remove(self) -> None:
        if self.installed is None or self.previous is None:
            return
        if vars(self.owner).get(self.name) is self.installed:
            if self.had_own:
                setattr(self.owner, self.name, self.previous)
            else:
                delattr(self.owner, self.name)
        # else another patch sits on top: ours stays in its chain, inert while the guard is off
        self.installed = None


_patches: list[_Patch] = []


def _targets() -> list[_Patch]:
    targets = [
        _Patch(socket.socket, "connect", _wrap_connect),
        _Patch(socket.socket, "connect_ex", _wrap_connect),
        _Patch(socket.socket, "sendto", _wrap_sendto),
        _Patch(socket, "getaddrinfo", _wrap_getaddrinfo),
        _Patch(socket, "gethostbyname", _wrap_gethostbyname),
        _Patch(socket, "gethostbyname_ex", _wrap_gethostbyname),
    ]
    if (
        sys.platform == "win32"
    ):  # pragma: no cover - the proactor loop connects without socket.connect
        from asyncio import proactor_events

        targets.append(
            _Patch(proactor_events.BaseProactorEventLoop, "sock_connect", _wrap_sock_connect)
        )
    return targets


def activate(reason: str, allowed_hosts: Iterable[str] = ()) -> object:
    """Turn the guard on (nested calls stack); returns a token for :func:`deactivate`.

    ``reason``: why the test must be offline, quoted in the error.
    ``allowed_hosts``: extra entries for this scope, on top of the configured ones.
    """
    global _on, _patches
    scope = _Scope(reason, tuple(allowed_hosts))
    with _lock:
        _scopes.append(scope)
        _compile()
        if not _patches:
            _patches = _targets()
        for patch in _patches:
            patch.apply()
        _on = True
    return scope


def deactivate(token: object) -> None:
    """Undo one :func:`activate` (any order; unknown tokens are ignored). The last one removes the patches."""
    global _on, _patches
    with _lock:
        for i in range(len(_scopes) - 1, -1, -1):
            if _scopes[i] is token:
                del _scopes[i]
                break
        else:
            return
        _compile()
        if not _scopes:
            _on = False
            _resolved.clear()
            for patch in reversed(_patches):
                patch.remove()
            _patches = []


def active() -> bool:
    """Whether the guard is on."""
    return _on


class guarded:
    """``with guarded("why"):`` — the guard on for the block (also ``allowed_hosts=[...]``)."""

    def __init__(
        self, reason: str = "this code must run offline", allowed_hosts: Iterable[str] = ()
    ) -> None:
        self.reason = reason
        self.allowed_hosts = tuple(allowed_hosts)
        self._token: object | None = None

    def __enter__(self) -> guarded:
        self._token = activate(self.reason, self.allowed_hosts)
        return self

    def __exit__(self, *exc: object) -> None:
        if self._token is not None:
            deactivate(self._token)
            self._token = None
