"""One WebSocket connection's record (:class:`Connection`) and the stored form of its frames.

A connection is what the client saw: the URL and the handshake (status, negotiated
subprotocol), then every data message in the order it crossed the wire — ``send``
(client to server) and ``recv`` — with the time since the handshake began, and the close.
Control frames (ping, pong) are not kept: the library answers them itself.

Stored form of one message (:func:`stored_frame`), a JSON object:

* ``{"dir": "send" | "recv", "at": seconds, "json": value}`` — a text message that is JSON,
  parsed, like an HTTP body (scrubbed with :func:`~agentsnap.storage.scrub.scrub_json`);
* ``{"dir", "at", "text": str}`` — other text (scrubbed);
* ``{"dir", "at", "json": value, "frame": "binary"}`` — a binary message holding JSON text
  (Gemini Live sends its messages so), replayed as a binary frame;
* ``{"dir", "at", "binary": {"$bytes_b64", "sha256"}}`` — any other binary message.

Inside a JSON message, a base64 string of :data:`BLOB_MIN` or more characters (audio, an
image) is kept as ``{"$blob": "blobs/<sha256>", "sha256", "size", "base64": true}``: its
decoded bytes go to the snapshot's content-addressed side folder (as large tool values do,
:mod:`agentsnap.storage.serialize`), so a golden stays readable and small. Replay reads the
side file back (:func:`restored_frame`) only by its digest, and checks the digest.

``at`` is volatile (:mod:`agentsnap.storage.volatile`): a re-recording whose messages are
the same does not rewrite the golden.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
import os
import re
import stat
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ...exceptions import AgentsnapError
from ...storage.scrub import scrub_bytes, scrub_json, scrub_text
from ...storage.serialize import BLOB_DIR, blob_reference
from ...storage.wire import envelope, envelope_bytes, next_seq

__all__ = [
    "BLOB_MIN",
    "Connection",
    "Message",
    "message_value",
    "restored_frame",
    "stored_frame",
]

#: base64 strings at least this long inside a JSON message go to a side file
BLOB_MIN = 4096
_BASE64 = re.compile(r"[A-Za-z0-9+/]+={0,2}")
_DIGEST = re.compile(r"[0-9a-f]{64}")

#: one data message as the client saw it: (direction, seconds since the handshake, text or bytes)
Message = tuple[str, float, "str | bytes"]


class Connection:
    """The record of one WebSocket connection, fed by :mod:`.seams` (thread-safe).

    ``described``: who it talks to, scrubbed (``{"kind": "websocket", "url", "headers"?}``,
    :func:`agentsnap.capture.mcp.servers.url_server`); ``path``: the URL's path, which replay
    matches a recorded connection by.
    """

    def __init__(self, described: Mapping[str, Any], path: str) -> None:
        self.described = dict(described)
        self.path = path
        self.started = time.monotonic()
        self.ended: float | None = None
        self.seq = next_seq()
        self._lock = threading.Lock()
        self.messages: list[Message] = []
        #: each message's place in the process-wide sequence that orders exchanges (next_seq)
        self.seqs: list[int] = []
        #: each message's :func:`message_value`, filled by :meth:`snapshot`
        self._values: list[object] = []
        #: the handshake's status (101 when accepted), and the subprotocol the server chose
        self.status: int | None = None
        self.subprotocol: str | None = None
        #: the close: code, reason, and which side sent it first
        self.close: dict[str, Any] | None = None
        #: fragments of a message being sent / received (a message sent in frames)
        self._partial: dict[str, list[bytes]] = {}
        self._partial_text: dict[str, bool] = {}
        #: replay: the golden's connection number this one was served from, its step, and
        #: where a message the client sent differs from the recorded one (JSON paths)
        self.replay_connection: int | None = None
        self.replay_step: int | None = None
        self.drift: list[str] = []
        #: replay: the golden's server frames the fake sent, in order (its ``served`` list)
        self.served: list[Mapping[str, Any]] | None = None

    def fragment(self, direction: str, text: bool | None, data: bytes, fin: bool) -> None:
        """One data frame (``text`` None: a continuation frame)."""
        with self._lock:
            if text is not None:
                self._partial[direction] = [data]
                self._partial_text[direction] = text
            else:
                self._partial.setdefault(direction, []).append(data)
            if not fin:
                return
            raw = b"".join(self._partial.pop(direction, []))
            is_text = self._partial_text.pop(direction, True)
            value: str | bytes = raw
            if is_text:
                try:
                    value = raw.decode("utf-8")
                except UnicodeDecodeError:
                    value = raw
            self.messages.append((direction, time.monotonic() - self.started, value))
            self.seqs.append(next_seq())

    def closed(self, direction: str, code: int | None, reason: str) -> None:
        """A close frame; the first one names who closed."""
        with self._lock:
            if self.close is None:
                self.close = {"by": "client" if direction == "send" else "server"}
                if code is not None:
                    self.close["code"] = code
                if reason:
                    self.close["reason"] = scrub_text(reason)
            self.ended = time.monotonic()

    def snapshot(self) -> tuple[list[Message], list[object], list[int]]:
        """The messages so far, each one's :func:`message_value` (parsed once, kept) and its
        place in the sequence that orders exchanges."""
        with self._lock:
            messages, seqs = list(self.messages), list(self.seqs)
        values = self._values
        values += [message_value(p) for _, _, p in messages[len(values) :]]
        return messages, values[: len(messages)], seqs

    def _stored(self, messages: list[Message], values: list[object]) -> list[dict[str, Any]]:
        """Every message's stored form. In replay, a received message is a server frame of the
        golden (``served``, in the order the fake sent them): its stored form is taken as it is
        (it was scrubbed, and its side files written, when it was recorded)."""
        served = list(self.served) if self.served is not None else []
        out: list[dict[str, Any]] = []
        taken = 0
        for message, value in zip(messages, values, strict=True):
            if message[0] == "recv" and taken < len(served):
                frame = {k: v for k, v in served[taken].items() if k != "at"}
                taken += 1
                out.append({"dir": "recv", "at": round(message[1], 3), **frame})
            else:
                out.append(stored_frame(message, value))
        return out

    def step(self, number: int, api: str | None) -> dict[str, Any]:
        """The ``websocket`` step of this connection (``number``: its ``connection``)."""
        messages, values, _ = self.snapshot()
        out: dict[str, Any] = {
            "type": "websocket",
            "connection": number,
            "url": self.described.get("url"),
        }
        if api:
            out["api"] = api
        if self.described.get("headers"):
            out["headers"] = list(self.described["headers"])
        if self.status is not None:
            out["status"] = self.status
        if self.subprotocol:
            out["subprotocol"] = self.subprotocol
        out["frames"] = self._stored(messages, values)
        if self.close is not None:
            out["close"] = dict(self.close)
        if self.drift:
            out["request_drift"] = list(self.drift)
        return out


def message_value(message: str | bytes) -> object:
    """A message as JSON when it is JSON text (an object or array; a binary message too, when
    its bytes are such UTF-8 text), else the message."""
    if message[:1] in ("{", "[", b"{", b"["):
        try:
            return json.loads(message)
        except ValueError:
            return message
    return message


def _to_blobs(value: object) -> Any:
    if isinstance(value, str):
        if len(value) >= BLOB_MIN and _BASE64.fullmatch(value):
            try:
                data = base64.b64decode(value, validate=True)
            except (binascii.Error, ValueError):
                return value
            if base64.b64encode(data).decode("ascii") != value:
                return value  # not the canonical encoding: kept as it is, so replay sends the same text
            return {**blob_reference(data), "base64": True}
        return value
    if isinstance(value, dict):
        return {k: _to_blobs(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_to_blobs(v) for v in value]
    return value


def stored_frame(message: Message, value: object = None) -> dict[str, Any]:
    """One message as the golden keeps it (see the module doc); ``value``: its
    :func:`message_value`, when the caller has it."""
    direction, at, payload = message
    out: dict[str, Any] = {"dir": direction, "at": round(at, 3)}
    if value is None:
        value = message_value(payload)
    if isinstance(value, bytes):
        out["binary"] = envelope(scrub_bytes(value))
        return out
    if isinstance(payload, bytes):
        out["frame"] = "binary"
    if isinstance(value, str):
        out["text"] = scrub_text(value)
    elif len(payload) < BLOB_MIN:  # no string in it is long enough for a side file
        out["json"] = scrub_json(value)
    else:
        out["json"] = _to_blobs(scrub_json(value))
    return out


class BlobMissing(AgentsnapError, Exception):
    """A side file a recorded message refers to is absent or does not match its digest."""


#: the largest side file replay reads back (a recorded message's audio or image)
BLOB_MAX = 256 * 1024 * 1024


def _read_blob(target: Path, root: Path, size: int) -> bytes:
    """The side file's bytes: a regular file inside ``root`` (no symbolic link on the way, no
    device or pipe), of exactly ``size`` bytes, else :class:`BlobMissing`."""
    from ...storage.atomic import refuse_links

    try:
        refuse_links(target, root)
        fd = os.open(
            target, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except (OSError, AgentsnapError) as exc:
        raise BlobMissing(f"{target} cannot be read ({exc})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise BlobMissing(f"{target} is not a regular file")
        if info.st_size != size:
            raise BlobMissing(f"{target} holds {info.st_size} bytes, the golden says {size}")
        with os.fdopen(fd, "rb", closefd=False) as handle:
            return handle.read(size + 1)
    finally:
        os.close(fd)


def _from_blobs(value: object, root: Path | None) -> Any:
    if isinstance(value, dict):
        if "$blob" in value:
            if value.get("base64") is not True or not isinstance(value.get("$blob"), str):
                raise BlobMissing(f'a side-file reference without "base64": true: {value!r}')
            digest = str(value.get("sha256") or "")
            if not _DIGEST.fullmatch(digest) or value["$blob"] != f"{BLOB_DIR}/{digest}":
                raise BlobMissing(f"a side-file reference that is not blobs/<sha256>: {value!r}")
            if root is None:
                raise BlobMissing(f"{BLOB_DIR}/{digest} (the snapshot's folder is not known)")
            size = value.get("size")
            if not isinstance(size, int) or isinstance(size, bool) or not 0 <= size <= BLOB_MAX:
                raise BlobMissing(
                    f"{BLOB_DIR}/{digest}: its size {size!r} is not a whole number up to {BLOB_MAX}"
                )
            data = _read_blob(root / BLOB_DIR / digest, root, size)
            if hashlib.sha256(data).hexdigest() != digest:
                raise BlobMissing(
                    f"{root / BLOB_DIR / digest} does not hold the bytes its name says"
                )
            return base64.b64encode(data).decode("ascii")
        return {k: _from_blobs(v, root) for k, v in value.items()}
    if isinstance(value, list):
        return [_from_blobs(v, root) for v in value]
    return value


def restored_frame(frame: Mapping[str, Any], root: Path | None) -> str | bytes:
    """The message a stored frame holds, as replay sends it (side files read back from
    ``root``, the snapshot's folder). Raises :class:`BlobMissing`, ``KeyError``, ``ValueError``."""
    if "json" in frame:
        text = json.dumps(frame["json"], ensure_ascii=False)
        if '"$blob"' in text:  # a side-file reference in it: read back
            text = json.dumps(_from_blobs(frame["json"], root), ensure_ascii=False)
        return text.encode("utf-8") if frame.get("frame") == "binary" else text
    if "text" in frame:
        return str(frame["text"])
    binary = frame["binary"]
    if not isinstance(binary, Mapping):
        raise ValueError("'binary' is not an object")
    return envelope_bytes(binary)
