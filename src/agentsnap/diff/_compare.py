"""``compute_diff``: run every check on a golden and a new snapshot."""

from __future__ import annotations

import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..legacy import is_legacy_version, messages_match
from .arguments import IgnoreRule, diff_values, parse_ignored_fields
from .hints import fact_hints
from .report import CHECK_ORDER, COMPONENTS, SEMANTIC_PREFIX, DiffReport
from .semantic import (
    LEXICAL_LLM_THRESHOLD,
    LEXICAL_SEMANTIC_THRESHOLD,
    as_text,
    meets_threshold,
)
from .structural import (
    ToolRef,
    llm_calls,
    requested_tools,
    sequence_diff,
    tool_calls,
    trace_steps,
)

__all__ = ["compute_diff"]

#: ``new_output`` not given: ``new`` is a whole snapshot
_NO_OUTPUT: Any = object()

_EXCERPT_WIDTH = 100
_EXCERPT_CONTEXT = 20


def _check_threshold(name: str, value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise TypeError(f"{name} must be a number in [0, 1], got {value!r}")
    if not (math.isfinite(value) and 0.0 <= value <= 1.0):
        raise ValueError(f"{name} must be in [0, 1], got {value!r}")
    return float(value)


def _pair_diffs(
    check: str,
    golden: Sequence[ToolRef],
    new: Sequence[ToolRef],
    aligned: Iterable[Sequence[int]],
    rules: tuple[IgnoreRule, ...],
    strict: bool = False,
) -> list[dict[str, Any]]:
    out = []
    for gi, ni in aligned:
        g, n = golden[gi], new[ni]
        changes = diff_values(g.args, n.args, root="args", ignored_fields=rules, strict=strict)
        if changes:
            out.append(
                {
                    "check": check,
                    "index": gi,
                    "tool": g.name,
                    "golden_step": g.step,
                    "new_step": n.step,
                    "changes": changes,
                }
            )
    return out


def _common_prefix_length(a: str, b: str) -> int:
    for index, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return index
    return min(len(a), len(b))


def _excerpts(golden: str, new: str) -> tuple[str, str]:
    """Short excerpts of two texts, starting a little before their first difference."""
    common = _common_prefix_length(golden, new)
    start = common - _EXCERPT_CONTEXT if common > _EXCERPT_CONTEXT else 0

    def cut(text: str) -> str:
        piece = text[start : start + _EXCERPT_WIDTH]
        return ("…" if start else "") + piece + ("…" if start + _EXCERPT_WIDTH < len(text) else "")

    return cut(golden), cut(new)


def _response_text(step: Mapping[str, Any]) -> str:
    value = step.get("response")
    return "" if value is None else as_text(value)


def _request_body(step: Mapping[str, Any]) -> Any:
    """The recorded request body of an llm_call step (None when not recorded)."""
    exchange = step.get("exchange")
    if not isinstance(exchange, Mapping):
        return None
    request = exchange.get("request")
    if not isinstance(request, Mapping) or not isinstance(request.get("body"), Mapping):
        return None
    return request["body"]


def compute_diff(
    golden: Mapping[str, Any],
    new: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    new_output: Any = _NO_OUTPUT,
    config: Any = None,
    *,
    structural_tolerance: int = 0,
    ignored_fields: Iterable[str] = (),
    semantic_threshold: float = 0.92,
    llm_threshold: float = 0.75,
    embed_fn: Callable[[list[str]], Sequence[Sequence[float]]] | None = None,
    compare_requests: bool = False,
    name: str = "",
    embedding_backend: Any = "auto",
    lexical_semantic_threshold: float = LEXICAL_SEMANTIC_THRESHOLD,
    lexical_llm_threshold: float = LEXICAL_LLM_THRESHOLD,
    judge: Any = None,
    strict_facts: bool = False,
    strict: bool = False,
    weights: Mapping[str, float] | None = None,
    min_score: float | None = None,
    gate: str = "checks",
    **old_keywords: Any,
) -> DiffReport:
    """Compare a new snapshot with its golden on every layer; return a :class:`DiffReport`.

    ``golden`` and ``new`` are snapshot dicts as loaded from the snapshot
    JSON; only ``trace`` (list of step dicts) and ``output`` are read.
    agentsnap 0.5.1's form works too: ``compute_diff(golden, new_trace,
    new_output, config=DiffConfig(...))`` (``new`` a list of steps, then the
    output; ``config`` a :class:`~agentsnap.diff.DiffConfig` whose fields
    replace the matching keywords; ``normalize=`` is accepted and ignored). Steps
    of type ``tool_call`` and ``llm_call`` are used, other types (``http``,
    future ones) are ignored, and every key is read with ``.get`` so 0.5.1
    snapshots (llm_call steps with only messages/response/tokens/
    tool_requests) work. The raw ``exchange`` of a step is never looked at.

    Checks, named as they appear in ``failed_checks``:

    * ``"structural"`` — Levenshtein distance between the golden and new
      sequences of executed ``tool_call`` names; fails when distance >
      ``structural_tolerance`` (so distance == tolerance passes). Against a
      golden written by agentsnap 0.5.1 (``version`` ``1.x``), which never
      derived tool calls from the conversation, the new trace's derived
      ones (``"derived": true``) are left out on every check: like is
      compared with like.
    * ``"arguments"`` — deep diff of ``args`` for each *aligned* pair of tool
      calls. Alignment: positions the edit script keeps unchanged (same name),
      so arguments of two different tools are never compared and an
      inserted, deleted or replaced call is left to the structural check.
      Any remaining change fails. List order inside args is significant, key
      order never is; ``1`` equals ``1.0`` unless ``strict=True``.
    * ``"model_tools"`` — the same distance check, same tolerance (one knob
      for both, as documented for ``structural_tolerance``), on the names in
      all ``llm_call`` steps' ``tool_requests``, flattened in trace order.
      Skipped (never failed) when any llm_call on either side has no
      ``tool_requests`` key at all.
    * ``"model_tool_args"`` — deep diff of the aligned requests' ``args``.
    * ``"llm_requests"`` — only with ``compare_requests=True`` (replay mode):
      the request of llm_call *i* in golden and new, for each *i* both have:
      the whole recorded request body (``exchange.request.body``: messages,
      tools offered, model, parameters) when both steps carry one, else the
      ``messages``; any difference fails (a golden written by agentsnap
      0.5.1 — ``version`` ``1.x`` — kept the caller's list, which the agent
      may have extended after the call: there the new messages must be the
      start of the recorded ones). Paths read ``messages[3].content``,
      ``tools[0].function.name``.
    * ``"llm_call[i]"`` — the response text of llm_call *i* (both sides have
      it) must score >= ``llm_threshold``; a missing/None response is ``""``.
    * ``"output"`` — the final ``output`` must score >= ``semantic_threshold``;
      non-strings are compared as sorted-key JSON, so ``None`` vs ``None`` is
      1.0.
    * ``"score"`` — only with ``min_score``: :attr:`DiffReport.score` (the
      weighted composite) must be >= ``min_score`` (with the same 1e-9 slack,
      so an exact replay never fails on float noise).

    Text checks: identical texts score 1.0 and call nothing. Otherwise, with
    a ``judge`` every differing text is scored by ``judge.score(golden,
    new)`` (its reason goes to ``reasons``); without one, by the
    meaning check :func:`agentsnap.diff.meaning.compare_many` — sentences
    aligned (by the MiniLM vectors of the embedding backend: ``embed_fn``,
    else ``embedding_backend``, see
    :func:`agentsnap.diff.embeddings.get_backend`; by character trigrams on
    ``lexical``), then facts, polarity, roles, steps and added claims
    compared; its findings go to ``reasons`` (worst first) and
    ``details["semantic"][check]["findings"]``. Every backend reports
    on that one scale, so ``semantic_threshold`` / ``llm_threshold`` always
    apply, explicit or default. Every differing pair is also checked by
    :func:`agentsnap.diff.hints.fact_hints` (numbers, negation words,
    capitalised names) into ``["hints"]``; with ``strict_facts=True`` (or a
    judge) their messages join ``reasons`` and, with
    ``strict_facts``, a hint fails the check whatever its score.

    A different number of llm_calls is reported in ``structural_diff
    ["llm_calls"]`` and in the ``[STRUCTURAL]`` section but fails nothing by
    itself; the extra calls are not compared.

    Args:
        structural_tolerance: edit-distance budget (int >= 0) of the
            structural and model_tools checks.
        ignored_fields: argument paths left out of the ``arguments`` and
            ``model_tool_args`` diffs (not of request messages). A bare key
            (``"timestamp"``) is ignored at any depth; a dotted path
            (``"meta.request_id"``) only at that place from the root of args;
            ``[n]`` and ``*`` address list items / any key. See
            :func:`agentsnap.diff.arguments.parse_ignored_fields`.
        semantic_threshold: minimum score in [0, 1] of the final output.
        llm_threshold: minimum score in [0, 1] of each llm_call response.
        embed_fn: batch embedder ``list[str] -> list[vector]``; when given,
            it aligns the sentences of the meaning check (it beats
            ``embedding_backend``); it is called with sentences, then with
            replaced words. Identical texts always score 1.0 without calling
            it. A score passes when ``score + 1e-9 >= threshold``.
        compare_requests: also run the ``llm_requests`` check.
        name: snapshot name, used in the report's text.
        embedding_backend: ``"auto"`` (default: the best installed of
            ``onnx``, ``sentence-transformers``, ``lexical``), one of those
            names, or a :class:`agentsnap.diff.embeddings.Backend` object.
        lexical_semantic_threshold, lexical_llm_threshold: validated and
            recorded in ``settings`` only. They were the thresholds of raw
            difflib ratios; since every backend reports on the meaning
            check's scale, ``semantic_threshold`` / ``llm_threshold`` apply
            to lexical runs too. Kept so existing configurations load.
        judge: an object with ``score(golden, new) -> (score, reason)``
            (:class:`agentsnap.judge.LLMJudge`), or None.
        strict_facts: fail a text check whose pair has fact hints.
        strict: argument and request comparison by pure equality (``1`` vs
            ``1.0`` is a type change); default: numbers compare by value.
        weights: ``{component: weight >= 0}`` for :attr:`DiffReport.score`;
            components are :data:`agentsnap.diff.report.COMPONENTS`, unnamed
            ones keep weight 1.0.
        min_score: run the ``"score"`` check with this minimum in [0, 1].
        gate: ``"checks"`` (default): every check above decides; ``"score"``:
            the ``"score"`` check decides (the one-line ``snapshot(actual)``
            form, where ``min_score`` is the tolerance), plus ``"llm_requests"``
            — in replay a changed request was served another request's
            response, which no score can excuse. The other checks' findings
            stay in the report but are not in ``failed_checks``. Needs
            ``min_score``.

    Raises:
        TypeError: a snapshot is not a mapping, its trace not a list of dicts,
            an option has the wrong type, or ``embed_fn`` is not callable.
        ValueError: ``structural_tolerance`` < 0, a threshold or
            ``min_score`` outside [0, 1], a malformed ``ignored_fields`` entry,
            bad ``weights``, an unknown ``embedding_backend``, or ``embed_fn``
            returned the wrong number or shape of vectors. Exceptions raised
            by ``embed_fn`` or ``judge.score`` (such as
            :class:`agentsnap.judge.JudgeError`) propagate unchanged.
        agentsnap.diff.embeddings.EmbeddingBackendError: the backend named is
            not installed or a model file fails its sha256 check.
    """
    if old_keywords:
        # agentsnap 0.5.1 also took normalize= (volatile fields are never compared here)
        unknown = sorted(set(old_keywords) - {"normalize"})
        if unknown:
            raise TypeError(
                f"compute_diff() got unexpected keyword argument(s) {', '.join(unknown)}"
            )
    if not isinstance(new, Mapping) and isinstance(new, Sequence):
        # agentsnap 0.5.1's call: compute_diff(golden_snapshot, new_trace, new_output, config=...)
        new = {"trace": list(new), "output": None if new_output is _NO_OUTPUT else new_output}
    elif new_output is not _NO_OUTPUT:
        new = {**new, "output": new_output}
    if config is not None:
        from .options import DiffConfig

        if not isinstance(config, DiffConfig):
            raise TypeError(f"config must be a DiffConfig, got {config!r}")
        picked = config.options()
        semantic_threshold, llm_threshold = picked["semantic_threshold"], picked["llm_threshold"]
        structural_tolerance, ignored_fields = (
            picked["structural_tolerance"],
            picked["ignored_fields"],
        )
        judge = picked["judge"] if picked["judge"] is not None else judge
        compare_requests = picked["compare_requests"] or compare_requests
    if isinstance(structural_tolerance, bool) or not isinstance(structural_tolerance, int):
        raise TypeError(f"structural_tolerance must be an int >= 0, got {structural_tolerance!r}")
    if structural_tolerance < 0:
        raise ValueError(f"structural_tolerance must be >= 0, got {structural_tolerance}")
    semantic_threshold = _check_threshold("semantic_threshold", semantic_threshold)
    llm_threshold = _check_threshold("llm_threshold", llm_threshold)
    lexical_semantic_threshold = _check_threshold(
        "lexical_semantic_threshold", lexical_semantic_threshold
    )
    lexical_llm_threshold = _check_threshold("lexical_llm_threshold", lexical_llm_threshold)
    if min_score is not None:
        min_score = _check_threshold("min_score", min_score)
    if gate not in ("checks", "score"):
        raise ValueError(f"gate must be 'checks' or 'score', got {gate!r}")
    if gate == "score" and min_score is None:
        raise ValueError("gate='score' needs min_score")
    weights = _check_weights(weights)
    if embed_fn is not None and not callable(embed_fn):
        raise TypeError(f"embed_fn must be callable or None, got {embed_fn!r}")
    if judge is not None and not callable(getattr(judge, "score", None)):
        raise TypeError(f"judge must have a score(golden, new) method, got {judge!r}")
    rules = parse_ignored_fields(ignored_fields)

    g_steps = trace_steps(golden, "golden")
    n_steps = trace_steps(new, "new")
    legacy = is_legacy_version(golden.get("version"))
    if legacy:
        # agentsnap 0.5.1 recorded only the tool calls its adapters saw, never ones
        # derived from the conversation: view the new trace the same way
        n_steps = [
            s for s in n_steps if not (s.get("type") == "tool_call" and s.get("derived") is True)
        ]
    failed: set[str] = set()
    argument_diffs: list[dict[str, Any]] = []

    # structural + arguments ------------------------------------------------
    g_tools, n_tools = tool_calls(g_steps), tool_calls(n_steps)
    tools = sequence_diff(g_tools, n_tools, tolerance=structural_tolerance)
    if not tools["passed"]:
        failed.add("structural")
    entries = _pair_diffs("arguments", g_tools, n_tools, tools["aligned"], rules, strict)
    if entries:
        failed.add("arguments")
    argument_diffs += entries

    # model tools ------------------------------------------------------------
    g_req, n_req = requested_tools(g_steps), requested_tools(n_steps)
    model = sequence_diff(g_req or [], n_req or [], tolerance=structural_tolerance)
    if g_req is None or n_req is None:
        side = "golden" if g_req is None else "new"
        if g_req is None and n_req is None:
            side = "golden and new"
        model["passed"] = True
        model["compared"] = False
        model["skipped_reason"] = (
            f"{side} snapshot has llm_call steps without tool_requests "
            "(recorded before model tool requests were captured; re-record to compare them)"
        )
    else:
        model["compared"] = True
        model["skipped_reason"] = None
        if not model["passed"]:
            failed.add("model_tools")
        entries = _pair_diffs("model_tool_args", g_req, n_req, model["aligned"], rules, strict)
        if entries:
            failed.add("model_tool_args")
        argument_diffs += entries

    # llm requests -------------------------------------------------------------
    g_llm, n_llm = llm_calls(g_steps), llm_calls(n_steps)
    common = min(len(g_llm), len(n_llm))
    if compare_requests:
        for i in range(common):
            (g_no, g_step), (n_no, n_step) = g_llm[i], n_llm[i]
            g_body, n_body = _request_body(g_step), _request_body(n_step)
            if g_body is not None and n_body is not None:
                # the whole request: messages, tools offered, model, parameters
                changes = [
                    {**c, "path": c["path"].lstrip(".") or "(request body)"}
                    for c in diff_values(g_body, n_body, root="", strict=strict)
                ]
            elif legacy and messages_match(g_step.get("messages"), n_step.get("messages")):
                changes = []  # 0.5.1 stored the caller's list, extended after the call
            else:
                changes = diff_values(
                    g_step.get("messages"),
                    n_step.get("messages"),
                    root="messages",
                    strict=strict,
                )
            if changes:
                argument_diffs.append(
                    {
                        "check": "llm_requests",
                        "index": i,
                        "tool": None,
                        "golden_step": g_no,
                        "new_step": n_no,
                        "changes": changes,
                    }
                )
                failed.add("llm_requests")

    # semantic -------------------------------------------------------------------
    keys: list[str] = []
    pairs: list[tuple[str, str]] = []
    for i in range(common):
        keys.append(f"llm_call[{i}]")
        pairs.append((_response_text(g_llm[i][1]), _response_text(n_llm[i][1])))
    keys.append("output")
    pairs.append((as_text(golden.get("output")), as_text(new.get("output"))))

    scores, reasons, backend_name, backend_info, scale, findings = _score_texts(
        pairs, keys=keys, judge=judge, embed_fn=embed_fn, embedding_backend=embedding_backend
    )
    semantic_scores: dict[str, float] = {}
    semantic_reasons: dict[str, list[str]] = {}
    semantic_details: dict[str, dict[str, Any]] = {}
    semantic_failed: list[str] = []
    for index, (key, (g_text, n_text)) in enumerate(zip(keys, pairs, strict=True)):
        score = scores[index]
        is_output = key == "output"
        # one scale for every backend (the meaning check or the judge): the documented thresholds apply
        threshold = semantic_threshold if is_output else llm_threshold
        hints = fact_hints(g_text, n_text)
        score_ok = meets_threshold(score, threshold)
        ok = score_ok and not (strict_facts and hints)
        semantic_scores[key] = score
        shown_hints = (
            [hint.message for hint in hints] if (strict_facts or scale[index] == "judge") else []
        )
        semantic_reasons[key] = reasons[index] + shown_hints
        was, now = _excerpts(g_text, n_text) if not ok else (None, None)
        telling = [f for f in findings[index] if f.severity != "harmless" and (f.golden or f.new)]
        worst = next((f for f in telling if f.golden and f.new), telling[0] if telling else None)
        if not ok and worst is not None:
            was, now = worst.golden or None, worst.new or None
            if was and now and max(len(was), len(now)) > _EXCERPT_WIDTH:
                was, now = _excerpts(was, now)
        semantic_details[key] = {
            "threshold": threshold,
            "backend": "exact" if g_text == n_text else backend_name,
            "passed": ok,
            "verdict": _verdict_word(findings[index], g_text == n_text, scale[index]),
            "findings": [
                {
                    "kind": f.kind,
                    "severity": f.severity,
                    "golden": f.golden,
                    "new": f.new,
                    "message": f.message,
                }
                for f in findings[index]
            ],
            "golden_excerpt": was,
            "new_excerpt": now,
            "hints": [
                {
                    "kind": h.kind,
                    "golden": list(h.golden),
                    "new": list(h.new),
                    "message": h.message,
                }
                for h in hints
            ],
            "failed_by": None if ok else ("threshold" if not score_ok else "strict_facts"),
        }
        if not ok:
            semantic_failed.append(key)
    overall_backend = backend_name

    structural_diff: dict[str, Any] = {
        "tools": tools,
        "model_tools": model,
        "llm_calls": {
            "golden": len(g_llm),
            "new": len(n_llm),
            "golden_steps": [no for no, _ in g_llm],
            "new_steps": [no for no, _ in n_llm],
            "requests_compared": bool(compare_requests),
        },
        "semantic": semantic_details,
        "settings": {
            "structural_tolerance": structural_tolerance,
            "semantic_threshold": semantic_threshold,
            "llm_threshold": llm_threshold,
            "ignored_fields": [rule.source for rule in rules],
            "compare_requests": bool(compare_requests),
            "lexical_semantic_threshold": lexical_semantic_threshold,
            "lexical_llm_threshold": lexical_llm_threshold,
            "strict_facts": bool(strict_facts),
            "strict": bool(strict),
            "weights": dict(weights),
            "min_score": min_score,
            "gate": gate,
        },
    }
    structural_diff["components"] = _components(
        structural_diff, argument_diffs, semantic_scores, tools, model, common
    )
    failed_checks = [c for c in CHECK_ORDER if c in failed] + [
        SEMANTIC_PREFIX + k for k in semantic_failed
    ]
    if gate == "score":
        failed_checks = [c for c in failed_checks if c == "llm_requests"]
    report = DiffReport(
        structural_diff=_sequence_line("Tool sequence", tools),
        argument_diffs=_legacy_argument_diffs(
            argument_diffs,
            (g_tools, n_tools, tools.get("aligned") or []),
            (g_req or [], n_req or [], model.get("aligned") or []),
            g_llm,
            n_llm,
        ),
        semantic_scores=semantic_scores,
        failed_checks=failed_checks,
        model_tools_diff=_sequence_line("Model-requested tool sequence", model)
        if model.get("compared")
        else None,
        details=structural_diff,
        changes=argument_diffs,
        reasons=semantic_reasons,
        name=name,
        backend=overall_backend,
        semantic_backend=backend_info,
    )
    if min_score is not None and not meets_threshold(report.score, min_score):
        report.failed_checks.append("score")
        report.passed = False
    return report


def _sequence_line(what: str, seq: Mapping[str, Any]) -> str | None:
    """0.5.1's one-line ``structural_diff``: None for equal sequences."""
    golden, new = list(seq.get("golden") or []), list(seq.get("new") or [])
    if golden == new:
        return None
    return f"{what} changed (edit distance {seq.get('distance')}): {golden!r} -> {new!r}"


def _top_level(old: Any, new: Any) -> dict[str, Any]:
    if not isinstance(old, Mapping) or not isinstance(new, Mapping):
        return {"added": {}, "removed": {}, "changed": {}}
    return {
        "added": {k: v for k, v in new.items() if k not in old},
        "removed": {k: v for k, v in old.items() if k not in new},
        "changed": {k: [old[k], new[k]] for k in old if k in new and old[k] != new[k]},
    }


def _legacy_argument_diffs(
    entries: list[dict[str, Any]],
    tools: tuple[Sequence[ToolRef], Sequence[ToolRef], Iterable[Sequence[int]]],
    requests: tuple[Sequence[ToolRef], Sequence[ToolRef], Iterable[Sequence[int]]],
    g_llm: Sequence[tuple[Any, Mapping[str, Any]]],
    n_llm: Sequence[tuple[Any, Mapping[str, Any]]],
) -> dict[str, Any]:
    """``DiffReport.argument_diffs`` in agentsnap 0.5.1's shape, keyed ``tool[i]`` (see DiffReport)."""
    out: dict[str, Any] = {}
    g_steps = {no: step for no, step in g_llm}
    n_steps = {no: step for no, step in n_llm}
    for entry in entries:
        check, index = entry["check"], entry["index"]
        if check == "llm_requests":
            key = f"llm_call[{index}].messages"
            g_step, n_step = (
                g_steps.get(entry.get("golden_step"), {}),
                n_steps.get(entry.get("new_step"), {}),
            )
            old, new = _request_body(g_step), _request_body(n_step)
            if old is None or new is None:
                old, new = (
                    {"messages": g_step.get("messages")},
                    {"messages": n_step.get("messages")},
                )
        else:
            golden_refs, new_refs, aligned = tools if check == "arguments" else requests
            prefix = "" if check == "arguments" else "model_tool:"
            key = f"{prefix}{entry.get('tool')}[{index}]"
            pair = dict((gi, ni) for gi, ni in aligned)
            old = golden_refs[index].args if index < len(golden_refs) else None
            ni = pair.get(index)
            new = new_refs[ni].args if ni is not None and ni < len(new_refs) else None
        out[key] = {"old": old, "new": new, **_top_level(old, new), "changes": entry["changes"]}
    return out


def _check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    if weights is None:
        return {}
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping of component to weight, got {weights!r}")
    out: dict[str, float] = {}
    for key, value in weights.items():
        if key not in COMPONENTS:
            raise ValueError(f"unknown weights key {key!r}; components are {', '.join(COMPONENTS)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"weight of {key!r} must be a number >= 0, got {value!r}")
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"weight of {key!r} must be a finite number >= 0, got {value!r}")
        out[key] = float(value)
    return out


def _judge_one(judge: Any, pair: tuple[str, str], key: str | None) -> tuple[float, str]:
    """One judge verdict as ``(score, reason)``, whatever the judge returns.

    :class:`agentsnap.judge.LLMJudge` returns a float carrying ``.reason``; a
    (score, reason) pair works; so does a 0.5.1-style judge whose ``score(old,
    new, key=None)`` returns a plain float and keeps reasons in ``last_reasons()``.
    """
    import inspect

    try:
        takes_key = "key" in inspect.signature(judge.score).parameters
    except (TypeError, ValueError):
        takes_key = False
    verdict = judge.score(pair[0], pair[1], key=key) if takes_key else judge.score(pair[0], pair[1])
    if isinstance(verdict, (tuple, list)):
        return float(verdict[0]), str(verdict[1]) if len(verdict) > 1 else ""
    reason = getattr(verdict, "reason", None)
    if reason is None and key is not None and callable(getattr(judge, "last_reasons", None)):
        reason = (judge.last_reasons() or {}).get(key)
    return float(verdict), str(reason or "")


def _score_texts(
    pairs: list[tuple[str, str]],
    *,
    keys: list[str] | None = None,
    judge: Any,
    embed_fn: Any,
    embedding_backend: Any,
) -> tuple[list[float], list[list[str]], str, dict[str, Any], list[str], list[list[Any]]]:
    """Per pair: score, reasons, scale (``exact``/``judge``/``meaning``) and meaning findings; the backend's name and description.

    Without a judge every differing pair goes through :func:`agentsnap.diff.meaning.compare_many`,
    whose sentences are aligned with the backend's encoder (MiniLM) or, for ``lexical``, by
    character trigrams alone.
    """
    scores = [1.0] * len(pairs)
    reasons: list[list[str]] = [[] for _ in pairs]
    scale = ["exact"] * len(pairs)
    findings: list[list[Any]] = [[] for _ in pairs]
    pending = [i for i, (g, n) in enumerate(pairs) if g != n]
    if not pending:
        return scores, reasons, "exact", {}, scale, findings
    if judge is not None:
        for i in pending:
            verdict = _judge_one(judge, pairs[i], keys[i] if keys else None)
            scores[i] = float(verdict[0])
            reason = verdict[1]
            if reason:
                reasons[i].append(f"judge: {reason}")
            scale[i] = "judge"
        describe = getattr(judge, "describe", None)
        info = describe() if callable(describe) else {"backend": "judge"}
        return scores, reasons, "judge", info, scale, findings
    from .embeddings import get_backend
    from .meaning import compare_many

    backend = get_backend(embedding_backend, embed_fn)
    verdicts = compare_many([pairs[i] for i in pending], backend.encoder())
    for i, meant in zip(pending, verdicts, strict=True):
        scores[i] = float(meant.score)
        reasons[i] = meant.reasons()
        findings[i] = list(meant.findings)
        scale[i] = "meaning"
    return scores, reasons, backend.name, backend.describe(), scale, findings


def _verdict_word(findings: list[Any], identical: bool, scale: str) -> str:
    """``identical``, ``same meaning`` (only harmless differences), ``soft difference``, ``changed`` or ``judge``."""
    if identical:
        return "identical"
    if scale == "judge":
        return "judge"
    levels = {f.severity for f in findings}
    if "harmful" in levels:
        return "changed"
    if "soft" in levels:
        return "soft difference"
    return "same meaning"


def _fraction_same(entries: list[dict[str, Any]], check: str, total: int) -> float:
    if total <= 0:
        return 1.0
    changed = len({e["index"] for e in entries if e.get("check") == check})
    return max(0.0, 1.0 - changed / total)


def _components(
    structural_diff: dict[str, Any],
    argument_diffs: list[dict[str, Any]],
    semantic_scores: dict[str, float],
    tools: dict[str, Any],
    model: dict[str, Any],
    common: int,
) -> dict[str, float]:
    """Per-component scores in [0, 1] for :attr:`DiffReport.score` (see ``COMPONENTS``)."""
    out: dict[str, float] = {
        "structural": float(tools.get("similarity", 1.0)),
        "arguments": _fraction_same(argument_diffs, "arguments", len(tools.get("aligned", []))),
    }
    if model.get("compared"):
        out["model_tools"] = float(model.get("similarity", 1.0))
        out["model_tool_args"] = _fraction_same(
            argument_diffs, "model_tool_args", len(model.get("aligned", []))
        )
    if structural_diff["llm_calls"]["requests_compared"] and common:
        out["llm_requests"] = _fraction_same(argument_diffs, "llm_requests", common)
    llm_scores = [min(1.0, max(0.0, v)) for k, v in semantic_scores.items() if k != "output"]
    if llm_scores:
        out["llm_calls"] = math.fsum(llm_scores) / len(llm_scores)
    out["output"] = min(1.0, max(0.0, semantic_scores["output"]))
    return out
