"""``compute_diff``: run every registered check on a golden and a new snapshot."""

from __future__ import annotations

import copy
import dataclasses
import functools
import math
import operator
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import msgspec

from ..exceptions import AgentsnapError
from ..jsondiff import parse_ignored_fields
from ..knobs import CompareOptions, check_weights, declared_knobs
from ..storage.legacy import is_legacy_version
from ._text import excerpts as _excerpts  # noqa: F401  # the old private name
from .checks import Check, CheckContext, ReportDraft, registered_checks, registered_components
from .checks.semantic import judge_one as _judge_one  # noqa: F401  # the old private names
from .checks.semantic import score_texts as _score_texts  # noqa: F401
from .meaning.scores import (
    LEXICAL_LLM_THRESHOLD,
    LEXICAL_SEMANTIC_THRESHOLD,
    as_text,
    meets_threshold,
)
from .report import DiffReport
from .sequence import trace_steps

__all__ = ["compute_diff"]

#: ``new_output`` not given: ``new`` is a whole snapshot
_NO_OUTPUT: Any = object()


def _check_weights(weights: Mapping[str, float] | None) -> dict[str, float]:
    """``weights`` checked against the registered components (see :func:`~agentsnap.diff.options.check_weights`)."""
    return check_weights(weights, registered_components())


#: :func:`_answers_for_its_run` by check class
_TRUSTED: dict[type[Any], bool] = {}


def _answers_for_its_run(kind: type[Check[Any]]) -> bool:
    """Whether ``kind``'s short answer (:meth:`~agentsnap.diff.checks.Check.same_inputs`, ``reads``,
    ``unchanged``) was declared for the ``run`` it has: by the class that defines that ``run`` or
    one below it. A subclass that overrides ``run`` alone (of a built-in check) runs in full: what
    its parent declared it reads says nothing of what the new ``run`` reads."""
    known = _TRUSTED.get(kind)
    if known is None:
        mro = kind.__mro__
        run_owner = next(c for c in mro if "run" in c.__dict__)
        declared = ("same_inputs", "reads", "reads_snapshot", "unchanged")
        owner = next(c for c in mro if any(name in c.__dict__ for name in declared))
        known = _TRUSTED[kind] = issubclass(owner, run_owner)
    return known


def compute_diff(
    golden: Mapping[str, Any],
    new: Mapping[str, Any] | Sequence[Mapping[str, Any]],
    new_output: Any = _NO_OUTPUT,
    config: Any = None,
    *,
    structural_tolerance: int = 0,
    trajectory: str = "turns",
    tool_args: str = "exact",
    tools: Mapping[str, Mapping[str, Any]] = MappingProxyType({}),
    before: Iterable[Sequence[str]] = (),
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
    judge_mode: str = "confirm",
    strict_facts: bool = False,
    validate_tool_calls: str = "auto",
    budgets: Mapping[str, float] | None = None,
    strict: bool = False,
    weights: Mapping[str, float] | None = None,
    min_score: float | None = None,
    gate: str = "checks",
    **knob_values: Any,
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

    The checks are the ones registered in :mod:`agentsnap.diff.checks`, run
    in registry order (each reads a :class:`~agentsnap.diff.checks.CheckContext`
    holding the validated :class:`~agentsnap.diff.options.CompareOptions`); a
    check added with :func:`~agentsnap.diff.checks.register_check` runs after
    these, is listed under its name and stores its result in
    ``details["checks"]``. The built-in checks, named as they appear in
    ``failed_checks``:

    * ``"structural"`` — the executed ``tool_call`` names matched under the
      ``trajectory`` mode (default ``turns``: the Levenshtein distance of the
      two sequences, the calls of one model turn in any order; see
      :mod:`agentsnap.diff.trajectory`); fails when that distance >
      ``structural_tolerance`` (so distance == tolerance passes) or a ``before``
      constraint is broken. Against a
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
    meaning check :func:`agentsnap.diff.meaning.verdict.compare_many` — sentences
    aligned (by the MiniLM vectors of the embedding backend: ``embed_fn``,
    else ``embedding_backend``, see
    :func:`agentsnap.diff.meaning.backends.get_backend`; by character trigrams on
    ``lexical``), then facts, polarity, roles, steps and added claims
    compared; its findings go to ``reasons`` (worst first) and
    ``details["semantic"][check]["findings"]``. Every backend reports
    on that one scale, so ``semantic_threshold`` / ``llm_threshold`` always
    apply, explicit or default. Every differing pair is also checked by
    :func:`agentsnap.diff.meaning.hints.fact_hints` (numbers, negation words,
    capitalised names) into ``["hints"]``; with ``strict_facts=True`` (or a
    judge) their messages join ``reasons`` and, with
    ``strict_facts``, a hint fails the check whatever its score.

    A different number of llm_calls is reported in ``structural_diff
    ["llm_calls"]`` and in the ``[STRUCTURAL]`` section but fails nothing by
    itself; the extra calls are not compared.

    Args:
        structural_tolerance: edit-distance budget (int >= 0) of the
            structural and model_tools checks (under a multiset mode: the
            missing and extra calls it counts).
        trajectory: ``"turns"`` (default), ``"strict"``, ``"unordered"``,
            ``"subset"`` or ``"superset"`` (:mod:`agentsnap.diff.trajectory`).
        tool_args: ``"exact"`` (default), ``"ignore"``, ``"subset"`` or
            ``"superset"``: which argument differences of matched calls count.
        tools: per-tool ``{"args": mode, "optional": bool}`` overrides.
        before: ``[[first, then], ...]``: when the new run called ``then``, it
            called ``first`` at an earlier step.
        ignored_fields: argument paths left out of the ``arguments`` and
            ``model_tool_args`` diffs (not of request messages). A bare key
            (``"timestamp"``) is ignored at any depth; a dotted path
            (``"meta.request_id"``) only at that place from the root of args;
            ``[n]`` and ``*`` address list items / any key. See
            :func:`agentsnap.jsondiff.parse_ignored_fields`.
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
            names, or a :class:`agentsnap.diff.meaning.backends.Backend` object.
        lexical_semantic_threshold, lexical_llm_threshold: validated and
            recorded in ``settings`` only. They were the thresholds of raw
            difflib ratios; since every backend reports on the meaning
            check's scale, ``semantic_threshold`` / ``llm_threshold`` apply
            to lexical runs too. Kept so existing configurations load.
        judge: an object with ``score(golden, new) -> (score, reason)``
            (:class:`agentsnap.diff.meaning.judge.LLMJudge`), or None.
        judge_mode: ``"confirm"`` (default): the meaning check scores every text and the
            judge confirms each failing verdict near its threshold (majority of up to 3
            calls); ``"score"``: the judge scores every differing text (agentsnap 0.5.1).
        strict_facts: fail a text check whose pair has fact hints.
        validate_tool_calls: ``"auto"`` (unless ``compare_requests``: replay), ``"on"`` or
            ``"off"``: each tool call of ``new`` against the JSON Schema its request gave the
            tool (the ``tool_schema`` check).
        budgets: limits of the ``budgets`` check (``{"max_tokens_growth": 0.2}``: allowed
            growth as a fraction, ceilings per test; keys in
            :data:`agentsnap.knobs.BUDGET_GROWTH_KEYS` / ``BUDGET_CEILING_KEYS``); None or
            ``{}``: the quantities are reported, nothing fails.
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
            :class:`agentsnap.diff.meaning.judge.JudgeError`) propagate unchanged.
        agentsnap.diff.meaning.models.EmbeddingBackendError: the backend named is
            not installed or a model file fails its sha256 check.
    """
    # the knobs checks declare in their own modules (agentsnap.knobs.declare), and agentsnap
    # 0.5.1's normalize= (volatile fields are never compared here)
    declared_names = {k.name for k in declared_knobs()}
    declared = {k: v for k, v in knob_values.items() if k in declared_names}
    unknown = sorted(set(knob_values) - declared_names - {"normalize"})
    if unknown:
        raise TypeError(f"compute_diff() got unexpected keyword argument(s) {', '.join(unknown)}")
    if not isinstance(new, Mapping) and isinstance(new, Sequence):
        # agentsnap 0.5.1's call: compute_diff(golden_snapshot, new_trace, new_output, config=...)
        new = {"trace": list(new), "output": None if new_output is _NO_OUTPUT else new_output}
    elif new_output is not _NO_OUTPUT:
        new = {**new, "output": new_output}
    if config is not None:
        from .legacy_config import DiffConfig

        if not isinstance(config, DiffConfig):
            raise TypeError(f"config must be a DiffConfig, got {config!r}")
        picked = config.options()
        semantic_threshold, llm_threshold = picked["semantic_threshold"], picked["llm_threshold"]
        structural_tolerance, ignored_fields = (
            picked["structural_tolerance"],
            picked["ignored_fields"],
        )
        if picked["judge"] is not None:  # 0.5.1's DiffConfig: its judge scores every text
            judge, judge_mode = picked["judge"], "score"
        compare_requests = picked["compare_requests"] or compare_requests
    options = CompareOptions(
        semantic_threshold=semantic_threshold,
        llm_threshold=llm_threshold,
        structural_tolerance=structural_tolerance,
        trajectory=trajectory,
        tool_args=tool_args,
        tools=tools,  # type: ignore[arg-type]  # checked by validated()
        before=before,  # type: ignore[arg-type]  # checked by validated()
        ignored_fields=ignored_fields,  # type: ignore[arg-type]  # parsed below, any iterable
        min_score=min_score,
        weights=weights,  # type: ignore[arg-type]  # checked by validated()
        strict=strict,
        strict_facts=strict_facts,
        validate_tool_calls=validate_tool_calls,
        budgets=budgets,  # type: ignore[arg-type]  # checked by validated()
        embedding_backend=embedding_backend,
        lexical_semantic_threshold=lexical_semantic_threshold,
        lexical_llm_threshold=lexical_llm_threshold,
        embed_fn=embed_fn,
        judge=judge,
        judge_mode=judge_mode,
        compare_requests=compare_requests,
        gate=gate,  # type: ignore[arg-type]  # checked by validated()
        declared=declared,
    )
    return run_checks(golden, new, _validated(options), name=name)


#: options validated lately: ``{key: (validated options, the objects the key holds by identity)}``
#: (:func:`_validated`); a pytest run compares every test with the same options
_VALIDATED: dict[tuple[object, ...], tuple[CompareOptions, list[object]]] = {}
_VALIDATED_KEPT = 8
_VALIDATED_LOCK = threading.Lock()
#: the fields whose value is an object compared by identity (a judge, an embedder, a backend):
#: its rule reads no state of it that could change (has a ``score``, is callable, or no rule)
_BY_IDENTITY = frozenset({"judge", "embed_fn", "embedding_backend"})
_PLAIN = frozenset({type(None), bool, int, str})  # (a set: one hash look, not four compares)


def _frozen(value: object, field: str, held: list[object]) -> object:
    """A hashable image of ``value`` equal only for values its rule reads alike: each level's
    exact type kept (``1`` is not ``True`` nor ``1.0``), floats by ``repr`` (``-0.0``, not
    ``0.0``), order kept; an object of :data:`_BY_IDENTITY`'s fields by identity (``held``
    keeps it alive). Raises ``TypeError`` for anything else (a generator, a custom mapping): its
    validation is not remembered."""
    kind = type(value)
    if kind in _PLAIN:
        return (kind, value)
    if kind is float:
        return (kind, repr(value))
    if kind in (list, tuple):
        return (kind, tuple(_frozen(item, field, held) for item in value))  # type: ignore[attr-defined]
    if kind is dict or kind is MappingProxyType:
        items = value.items()  # type: ignore[attr-defined]
        return (kind, tuple((_frozen(k, field, held), _frozen(v, field, held)) for k, v in items))
    if field in _BY_IDENTITY:
        held.append(value)
        return (kind, id(value))
    raise TypeError(f"{field}: {kind.__name__} is not remembered")


def _validated(options: CompareOptions) -> CompareOptions:
    """``options.validated()``, remembered for the same values (:func:`_frozen`) while the
    registered checks' score components stay the same (``weights`` are checked against them);
    not with declared knobs (their rules are the checks' own). What fails is never remembered:
    it raises each time. The checks and the report read the options and never change them; the
    report's ``settings`` are copies."""
    if options.declared:
        return options.validated()
    held: list[object] = []
    parts: list[object] = []
    try:
        # every field read by one C call; a plain value or a float (spelled as _frozen spells
        # one) is two parts, anything else one (a tuple): the key reads back one way
        for name, value in zip(_option_names(), _option_values(options), strict=True):
            kind = type(value)
            if kind in _PLAIN:  # (most knobs: one look)
                parts += (kind, value)
            elif kind is float:
                parts += (kind, repr(value))
            else:
                parts.append(_frozen(value, name, held))
    except TypeError:
        return options.validated()
    if options.weights:
        parts.append(registered_components())
    key = tuple(parts)
    found = _VALIDATED.get(key)
    if found is not None:
        return found[0]
    checked = options.validated()
    # ``ignored_fields`` passes its rule as given (parsed by the checks: one string is one path,
    # None no rule): a list the caller changes later must not change what these values validated to
    if type(checked.ignored_fields) is list:
        checked = dataclasses.replace(checked, ignored_fields=copy.deepcopy(checked.ignored_fields))
    with _VALIDATED_LOCK:  # (threads comparing at once: one evicts, the others find it gone)
        if len(_VALIDATED) >= _VALIDATED_KEPT:
            _VALIDATED.pop(next(iter(_VALIDATED)), None)
        _VALIDATED[key] = (checked, held)
    return checked


@functools.cache
def _option_names() -> tuple[str, ...]:
    """:class:`CompareOptions`' fields but ``declared`` (fixed when the class is made)."""
    return tuple(f.name for f in dataclasses.fields(CompareOptions) if f.name != "declared")


def _option_values(options: CompareOptions) -> tuple[Any, ...]:
    """The values of :func:`_option_names`' fields of ``options``, in that order."""
    return _option_getter()(options)


@functools.cache
def _option_getter() -> Callable[[CompareOptions], tuple[Any, ...]]:
    return operator.attrgetter(*_option_names())


def run_checks(
    golden: Mapping[str, Any],
    new: Mapping[str, Any],
    options: CompareOptions,
    *,
    name: str = "",
    full: bool = False,
) -> DiffReport:
    """Run every registered check (in order) with validated ``options``; the :class:`DiffReport`.

    A check whose inputs are the same on both sides (:meth:`~agentsnap.diff.checks.Check.same_inputs`:
    the step keys it declares) answers with :meth:`~agentsnap.diff.checks.Check.unchanged`, the
    same result by less work; ``full``: every check runs in full (the reference that answer is
    tested against).

    Raises what :func:`compute_diff` documents for malformed snapshots, a bad
    ``ignored_fields`` entry and the embedding backend or judge.
    """
    rules = parse_ignored_fields(options.ignored_fields)
    g_steps = trace_steps(golden, "golden")
    n_steps = trace_steps(new, "new")
    legacy = is_legacy_version(golden.get("version"))
    if legacy:
        # agentsnap 0.5.1 recorded only the tool calls its adapters saw, never ones
        # derived from the conversation: view the new trace the same way
        n_steps = [
            s for s in n_steps if not (s.get("type") == "tool_call" and s.get("derived") is True)
        ]
    shape = None
    if g_steps is n_steps and not full:  # one list of steps on both sides (compare_run)
        shape = _itself_shape(golden, new, g_steps, options, legacy)
        if shape is not None and (known := _ITSELF.get(shape)) is not None:
            return DiffReport(**known[1](), name=name)
    ctx = CheckContext(golden, new, list(g_steps), list(n_steps), options, rules, legacy)
    if g_steps is n_steps:
        ctx.one_trace()
    draft = ReportDraft()
    checks = registered_checks()
    for check in checks:
        short = not full and _answers_for_its_run(type(check)) and check.same_inputs(ctx)
        result = check.unchanged(ctx) if short else check.run(ctx)
        ctx.results[check.name] = result
        check.contribute(result, draft)

    draft.details["settings"] = {
        "structural_tolerance": options.structural_tolerance,
        "trajectory": options.trajectory,
        "tool_args": options.tool_args,
        "tools": {tool: dict(spec) for tool, spec in options.tools.items()},
        "before": [list(pair) for pair in options.before],
        "semantic_threshold": options.semantic_threshold,
        "llm_threshold": options.llm_threshold,
        "ignored_fields": [rule.source for rule in rules],
        "compare_requests": bool(options.compare_requests),
        "lexical_semantic_threshold": options.lexical_semantic_threshold,
        "lexical_llm_threshold": options.lexical_llm_threshold,
        "strict_facts": bool(options.strict_facts),
        "judge_mode": options.judge_mode,
        "validate_tool_calls": options.validate_tool_calls,
        "budgets": dict(options.budgets),
        "strict": bool(options.strict),
        "weights": dict(options.weights or {}),
        "min_score": options.min_score,
        "gate": options.gate,
        **{knob.name: knob.get(options) for knob in declared_knobs()},
    }
    draft.details["components"] = draft.components
    deciding = {c.name for c in checks if c.always_decides}
    failed_checks = [
        entry for check, entry in draft.failed if options.gate != "score" or check in deciding
    ]
    report = DiffReport(
        structural_diff=draft.structural_diff,
        argument_diffs=draft.argument_diffs,
        semantic_scores=draft.semantic_scores,
        failed_checks=failed_checks,
        model_tools_diff=draft.model_tools_diff,
        details=draft.details,
        changes=draft.changes,
        reasons=draft.reasons,
        name=name,
        backend=draft.backend,
        semantic_backend=draft.semantic_backend,
    )
    if options.min_score is not None and not meets_threshold(report.score, options.min_score):
        report.failed_checks.append("score")
        report.passed = False
    if shape is not None:
        _remember_itself(shape, options, report)
    return report


#: the report of a trace compared with itself, by :func:`_itself_shape`: ``{shape: (the options
#: validated, a function returning the report's fields but its name)}`` (:func:`run_checks`):
#: each call makes them anew (:func:`_maker`)
_ITSELF: dict[tuple[object, ...], tuple[CompareOptions, Callable[[], dict[str, Any]]]] = {}
_ITSELF_KEPT = 32


def _itself_shape(
    golden: Mapping[str, Any],
    new: Mapping[str, Any],
    steps: Sequence[Mapping[str, Any]],
    options: CompareOptions,
    legacy: bool,
) -> tuple[object, ...] | None:
    """What the report of ``steps`` compared with themselves depends on, when that is all it
    depends on; None otherwise (the checks run). It holds when agentsnap's own checks alone are
    registered, in their order, no declared knob is given a value, nothing can fail on identical sides (no
    ``budgets`` limit, no ``min_score``, tool calls not validated), both outputs are one text,
    and every step is an ``llm_call`` with a recorded request body (so ``llm_requests`` finds
    one exchange on both sides) and no tool request: no tool name, argument or message is
    compared. Then each check's result is made of the options, the knobs declared, the
    golden's version (0.5.1's or not), the calls' step numbers and which calls carry a
    ``tool_requests`` key."""
    if (
        options.declared
        or options.budgets
        or options.min_score is not None
        or not (
            options.validate_tool_calls == "off"
            or (options.validate_tool_calls == "auto" and options.compare_requests)
        )
        or registered_checks() != _builtin_checks()
    ):
        return None
    # (the knobs declared: the settings list each, at its default here)
    marks: list[object] = [id(options), legacy, declared_knobs()]
    for index, step in enumerate(steps):
        if type(step) is not dict or step.get("type") != "llm_call":
            return None
        exchange = step.get("exchange")
        request = exchange.get("request") if type(exchange) is dict else None
        if type(request) is not dict or type(request.get("body")) is not dict:
            return None
        if "tool_requests" in step:
            if step["tool_requests"]:
                return None
            marks.append(True)
        else:
            marks.append(False)
        number = step.get("step")
        # (sequence._step_number: an int that is not a bool, else the index)
        marks.append(number if type(number) is int else index)
    try:
        if as_text(golden.get("output")) != as_text(new.get("output")):
            return None
    except Exception:  # (the checks raise it, or compare it their way)
        return None
    return tuple(marks)


def _remember_itself(
    shape: tuple[object, ...], options: CompareOptions, report: DiffReport
) -> None:
    """Keep ``report`` for ``shape`` (:func:`_itself_shape`); the options are held so their id
    (in the shape) stays theirs while the entry lives."""
    fields = {
        f.name: getattr(report, f.name) for f in dataclasses.fields(report) if f.name != "name"
    }
    try:
        make = _maker(fields)
    except _NotLiteral:  # (a value not kept, or nested too deep: the checks answer)
        return
    with _VALIDATED_LOCK:
        if len(_ITSELF) >= _ITSELF_KEPT:
            _ITSELF.pop(next(iter(_ITSELF)), None)
        _ITSELF[shape] = (options, make)


class _NotLiteral(AgentsnapError, ValueError):
    """Internal, never raised out of :func:`_remember_itself`: a value :func:`_maker` does not
    keep."""


#: how deep a kept report may nest (a report nests a few levels; deeper ones are not kept)
_KEPT_DEPTH = 40


def _maker(value: dict[str, Any]) -> Callable[[], dict[str, Any]]:
    """A function returning a new ``value`` at each call: every dict and list anew, the same
    types and values, decoded from ``value``'s MessagePack bytes (C speed: 7.6 us for a row-6
    report's 172 values, against 25 us for a Python copy). MessagePack keeps each type (an int, a
    float, a bool, a str, None) and reads back an array as a list: a value with a tuple (read back
    unequal) is not kept. Raises :class:`_NotLiteral` for a value holding anything but None, a
    bool, an int, a finite float, a str, and lists and dicts of those (a subclass too), nesting
    deeper than :data:`_KEPT_DEPTH`, or not read back equal."""
    _check_plain(value, _KEPT_DEPTH)
    try:
        packed = _msgpack_encode(value)
    except (OverflowError, TypeError, ValueError):  # (an int beyond 64 bits)
        raise _NotLiteral from None
    decode = _msgpack_decode
    if decode(packed) != value:  # (a tuple)
        raise _NotLiteral

    def make() -> dict[str, Any]:
        made: dict[str, Any] = decode(packed)
        return made

    return make


_msgpack_encode = msgspec.msgpack.Encoder().encode
_msgpack_decode = msgspec.msgpack.Decoder().decode


def _check_plain(value: object, depth: int) -> None:
    kind = type(value)
    if value is None or kind is bool or kind is int or kind is str:
        return
    if kind is float:
        if not math.isfinite(value):  # type: ignore[arg-type]
            raise _NotLiteral
        return
    if depth <= 0:
        raise _NotLiteral
    if kind is list or kind is tuple:
        for item in value:  # type: ignore[attr-defined]
            _check_plain(item, depth - 1)
        return
    if kind is dict:
        for key, item in value.items():  # type: ignore[attr-defined]
            _check_plain(key, 0)
            _check_plain(item, depth - 1)
        return
    raise _NotLiteral


@functools.cache
def _builtin_checks() -> tuple[Check[Any], ...]:
    from .checks import BUILTIN_CHECKS

    return BUILTIN_CHECKS
