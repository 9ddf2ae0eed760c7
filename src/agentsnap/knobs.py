"""The comparison knobs: :class:`CompareOptions` (one field per knob).

:class:`CompareOptions` is the one list of what :func:`~agentsnap.diff.compute_diff`
can be told. Each field's metadata (read with :func:`option_fields`) says:

* ``doc`` — what the knob does (one paragraph);
* ``marker`` — ``@pytest.mark.agentsnap(...)`` may set it (:func:`marker_option_names`,
  the plugin's ``MARKER_OPTIONS``);
* ``asserter`` — :class:`~agentsnap.AgentAsserter` takes it as an argument
  (:func:`asserter_option_names`);
* ``setting`` — it is a ``[tool.agentsnap]`` key, a field of
  :class:`agentsnap.config.Settings` with the same name, default and doc
  (:func:`setting_option_names`; ``tests/test_compare_options.py`` holds the
  two together, since the settings must load without the diff package).

This module imports only the standard library and :mod:`agentsnap.knob_rules` (each knob's rule).

0.5.1's ``DiffConfig`` is in :mod:`agentsnap.diff.legacy_config`. This module sits below
every layer that reads a knob (the settings, the checks, the marker, ``AgentAsserter``):
it imports nothing of agentsnap, and nothing of it imports the checks. The registered
checks' score components reach :meth:`CompareOptions.validated` through
:func:`set_component_source`, which :mod:`agentsnap.diff.checks` calls when it loads.
:mod:`agentsnap.diff.options` is the documented import path of the same names.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, cast

from . import knob_rules as rules
from .knob_rules import (
    ARG_MODES,
    BUDGET_CEILING_KEYS,
    BUDGET_GROWTH_KEYS,
    TRAJECTORY_MODES,
    check_budgets,
)

__all__ = [
    "ARG_MODES",
    "BUDGET_CEILING_KEYS",
    "BUDGET_GROWTH_KEYS",
    "LLM_THRESHOLD_EMBEDDING",
    "LLM_THRESHOLD_JUDGE",
    "TRAJECTORY_MODES",
    "CompareOptions",
    "Knob",
    "OptionField",
    "asserter_option_names",
    "check_budgets",
    "declare",
    "declared_knobs",
    "forget",
    "marker_option_names",
    "option_fields",
    "set_component_source",
    "setting_field",
    "setting_option_names",
]

#: 0.5.1's default ``llm_threshold`` without and with a judge
LLM_THRESHOLD_EMBEDDING = 0.75
LLM_THRESHOLD_JUDGE = 0.40

EmbedFn = Callable[[list[str]], Sequence[Sequence[float]]]


def _weights(name: str, value: Any) -> dict[str, float]:
    return check_weights(value, _component_source())


def _meta(
    doc: str,
    *,
    rule: Callable[[str, Any], Any],
    marker: bool = False,
    asserter: bool = False,
    setting: bool = False,
) -> dict[str, Any]:
    """A knob's field metadata (see the module doc): its doc, the rule a value must pass
    (:meth:`CompareOptions.validated` applies it), and where it may be set."""
    return {"doc": doc, "rule": rule, "marker": marker, "asserter": asserter, "setting": setting}


@dataclass
class CompareOptions:
    """Every knob of :func:`~agentsnap.diff.compute_diff`, with its default.

    Field order is the order the marker's keywords are listed in its error
    messages. :meth:`validated` checks the values and returns a normalised
    copy (the form the checks read); the checks never see an unchecked one.
    """

    semantic_threshold: float = field(
        default=0.92,
        metadata=_meta(
            rule=rules.unit,
            doc=(
                "Minimum score (0 to 1) of the final output: the meaning check's score (1.0 identical, 0.93-0.99 "
                "harmless rewording, 0.80-0.88 a dropped or added sentence, 0.40-0.60 a changed fact) on every "
                "backend, or the LLM judge's."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    llm_threshold: float = field(
        default=LLM_THRESHOLD_EMBEDDING,
        metadata=_meta(
            rule=rules.unit,
            doc=(
                "Minimum score (0 to 1) of each intermediate LLM response, on the same scale as `semantic_threshold`: "
                "the default 0.75 fails changed facts only."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    structural_tolerance: int = field(
        default=0,
        metadata=_meta(
            rule=rules.count,
            doc=(
                "Edit distance (Levenshtein over whole tool calls) allowed between the golden and the new tool-name "
                "sequences; the same budget applies to the tools the model requested."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    trajectory: str = field(
        default="turns",
        metadata=_meta(
            rule=rules.choice(*TRAJECTORY_MODES),
            doc=(
                'How tool calls match (concepts, "Trajectory modes"): `turns` (one model turn\'s calls in any '
                "order, turns in order), `strict`, `unordered`, `subset` (no call the golden lacks), `superset`."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    tool_args: str = field(
        default="exact",
        metadata=_meta(
            rule=rules.choice(*ARG_MODES),
            doc=(
                "Arguments of matched calls: `exact`, `ignore`, `subset` (each new key equals the golden's), "
                "`superset` (each golden key present and equal); nested objects recursively."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    tools: dict[str, dict[str, Any]] = field(
        default_factory=dict,
        metadata=_meta(
            rule=rules.tools,
            doc=(
                "Per tool: `{tool = {args = mode, optional = true}}`; an optional tool may be called or not "
                "(left out of the trajectory; its calls' arguments compared in order)."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    before: list[list[str]] = field(
        default_factory=list,
        metadata=_meta(
            rule=rules.before,
            doc=(
                "`[[first, then], ...]`: when the new run called `then`, it called `first` earlier "
                "(else `structural` / `model_tools` fail)."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    ignored_fields: list[str] = field(
        default_factory=list,
        metadata=_meta(
            rule=rules.as_is,
            doc=(
                "Paths of values left out wherever they are compared: tool-call arguments, MCP tool results and "
                "resource contents, and (live runs) a plain WebSocket server's messages; JSON text is read as JSON. "
                "A bare key (`timestamp`) at any depth, a dotted path (`meta.request_id`) from the root of the "
                "arguments, the tool's result, the read's result or the message; `[n]` and `*` address list items "
                "and any key."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    min_score: float | None = field(
        default=None,
        metadata=_meta(
            rule=rules.unit_or_none,
            doc=(
                "Also fail when the composite score (the weighted mean of the components) is below this (0 to 1, "
                "with a 1e-9 slack so an exact replay never fails on float noise); None: no score check."
            ),
            marker=True,
            asserter=True,
        ),
    )
    weights: dict[str, float] | None = field(
        default=None,
        metadata=_meta(
            rule=_weights,
            doc=(
                "`{component: weight >= 0}` for the composite score; components are "
                "agentsnap.diff.report.COMPONENTS, unnamed ones keep weight 1.0."
            ),
            marker=True,
            asserter=True,
        ),
    )
    strict: bool = field(
        default=False,
        metadata=_meta(
            rule=rules.flag,
            doc=(
                "Compare tool arguments and requests by pure equality (`1` and `1.0` differ); "
                "by default numbers compare by value."
            ),
            marker=True,
            asserter=True,
        ),
    )
    strict_facts: bool = field(
        default=False,
        metadata=_meta(
            rule=rules.flag,
            doc=(
                "Also fail a text check whose two texts differ in numbers, negation words or capitalised names by the "
                "older rule-based hints (agentsnap.diff.meaning.hints), whatever its score."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    validate_tool_calls: str = field(
        default="auto",
        metadata=_meta(
            rule=rules.choice("auto", "on", "off"),
            doc=(
                "Validate each tool call the model made against the JSON Schema the agent sent for that tool "
                "(the `tool_schema` check): `auto` in live comparisons, not in replay (the calls are the "
                "recorded ones); `on`; `off`. Unless `off`, a record run warns of an invalid call it writes."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    budgets: dict[str, float] = field(
        default_factory=dict,
        metadata=_meta(
            rule=lambda name, value: check_budgets(value, name),
            doc=(
                "Limits of the `budgets` check, per test against the golden: allowed growth as a fraction "
                "(`max_calls_growth`, `max_tool_calls_growth`, `max_tokens_growth`, `max_cost_growth`, "
                "`max_latency_growth`: 0.2 = +20 %) and ceilings (`max_llm_calls`, `max_tool_calls`, "
                "`max_request_tokens`, `max_cost` in USD; `max_run_cost`, USD for the whole run). Unset: reported only."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    embedding_backend: Any = field(
        default="auto",
        metadata=_meta(
            rule=rules.as_is,
            doc=(
                "What aligns the sentences of the meaning check: `auto` takes the best installed one (`onnx`, then "
                "`sentence-transformers`, then `lexical`, character trigrams only); or name one of them."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    # same default as agentsnap.diff.meaning.scores.LEXICAL_SEMANTIC_THRESHOLD
    lexical_semantic_threshold: float = field(
        default=0.95,
        metadata=_meta(
            rule=rules.unit,
            doc=(
                "Kept so existing configurations load; no longer used. It held raw difflib ratios; since the "
                "meaning check every backend, `lexical` included, reports on one scale and `semantic_threshold` "
                "applies."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    # same default as agentsnap.diff.meaning.scores.LEXICAL_LLM_THRESHOLD
    lexical_llm_threshold: float = field(
        default=0.60,
        metadata=_meta(
            rule=rules.unit,
            doc=(
                "Kept so existing configurations load; no longer used (`llm_threshold` applies on every backend)."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    embed_fn: EmbedFn | None = field(
        default=None,
        metadata=_meta(
            rule=rules.callable_or_none,
            doc=(
                "A batch embedder `list[str] -> list[vector]` that aligns the sentences of the meaning check "
                "(it beats `embedding_backend`)."
            ),
            asserter=True,
        ),
    )
    judge: Any = field(
        default=None,
        metadata=_meta(
            rule=rules.judge,
            doc=(
                "An object with `score(golden, new) -> (score, reason)` (agentsnap.diff.meaning.judge.LLMJudge) scoring "
                "every differing text instead of the meaning check, or None."
            ),
            asserter=True,
        ),
    )
    judge_mode: str = field(
        default="confirm",
        metadata=_meta(
            rule=rules.judge_mode,
            doc=(
                "What an LLM judge decides when one is configured: `confirm` — the meaning check scores every "
                "text and the judge confirms each failing verdict near the threshold (majority of up to 3 calls) "
                "before the text fails; `score` — the judge scores every differing text instead (agentsnap 0.5.1)."
            ),
            marker=True,
            asserter=True,
            setting=True,
        ),
    )
    compare_requests: bool = field(
        default=False,
        metadata=_meta(
            rule=rules.flag,
            doc="Also compare each LLM call's request (the `llm_requests` check; replay mode sets it).",
        ),
    )
    gate: Literal["checks", "score"] = field(
        default="checks",
        metadata=_meta(
            rule=rules.choice("checks", "score"),
            doc=(
                "`checks`: every check decides; `score`: only the score check (and `llm_requests`) decides, "
                "the other findings stay in the report. Needs `min_score`."
            ),
        ),
    )
    #: values of the knobs checks declare in their own modules (:func:`declare`), by name
    declared: dict[str, Any] = field(default_factory=dict, metadata={"internal": True})

    def validated(self) -> CompareOptions:
        """A checked, normalised copy (floats, a weights dict, a list of ignored fields).

        Raises:
            TypeError: an option has the wrong type, ``embed_fn`` is not
                callable or ``judge`` has no ``score`` method.
            ValueError: ``structural_tolerance`` < 0, a threshold or
                ``min_score`` outside [0, 1], ``gate`` unknown or ``"score"``
                without ``min_score``, bad ``weights``.
        """
        # each knob's own rule, in field order; then what concerns two knobs at once
        checked = {name: rule(name, getattr(self, name)) for name, rule in _ruled_fields()}
        if checked["gate"] == "score" and checked["min_score"] is None:
            raise ValueError("gate='score' needs min_score")
        checked["declared"] = {
            name: _declared_knob(name).validate(value) for name, value in self.declared.items()
        }
        return dataclasses.replace(self, **checked)


@functools.cache  # the fields are fixed when the class is made
def _ruled_fields() -> tuple[tuple[str, Callable[[str, Any], Any]], ...]:
    """``(name, rule)`` of each :class:`CompareOptions` field with a rule, in field order."""
    return tuple(
        (f.name, f.metadata["rule"])
        for f in dataclasses.fields(CompareOptions)
        if "rule" in f.metadata
    )


def _no_checks_loaded() -> tuple[str, ...]:
    raise RuntimeError(
        "agentsnap: CompareOptions.validated() checks weights against the registered checks; "
        "import agentsnap.diff.checks (compute_diff does) first"
    )


_component_source: Callable[[], tuple[str, ...]] = _no_checks_loaded


def set_component_source(source: Callable[[], tuple[str, ...]]) -> None:
    """Where :meth:`CompareOptions.validated` reads the score components ``weights`` may
    name: the check registry (:func:`agentsnap.diff.checks.registered_components`), set
    once when the checks load, so this module never imports them."""
    global _component_source
    _component_source = source


def check_weights(
    weights: Mapping[str, float] | None, components: Iterable[str]
) -> dict[str, float]:
    """``weights`` checked against ``components``, as a new dict of floats (``{}`` for None).

    Raises:
        TypeError: not a mapping, or a weight is not a number.
        ValueError: an unknown component, or a weight that is negative or not finite.
    """
    if weights is None:
        return {}
    if not isinstance(weights, Mapping):
        raise TypeError(f"weights must be a mapping of component to weight, got {weights!r}")
    known = tuple(components)
    out: dict[str, float] = {}
    for key, value in weights.items():
        if key not in known:
            raise ValueError(f"unknown weights key {key!r}; components are {', '.join(known)}")
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise TypeError(f"weight of {key!r} must be a number >= 0, got {value!r}")
        if not (math.isfinite(value) and value >= 0):
            raise ValueError(f"weight of {key!r} must be a finite number >= 0, got {value!r}")
        out[key] = float(value)
    return out


class OptionField:
    """One knob of :class:`CompareOptions` as its metadata describes it (read-only by convention).

    A plain class, not a dataclass: every pytest run imports this module through the
    settings, and a dataclass costs its generated methods' compilation at import.
    """

    __slots__ = ("asserter", "default", "doc", "marker", "name", "setting")

    def __init__(
        self, name: str, default: Any, doc: str, marker: bool, asserter: bool, setting: bool
    ) -> None:
        self.name = name
        self.default = default
        self.doc = doc
        self.marker = marker
        self.asserter = asserter
        self.setting = setting

    def __repr__(self) -> str:
        return f"OptionField(name={self.name!r}, default={self.default!r})"


def option_fields() -> tuple[OptionField, ...]:
    """The knobs of :class:`CompareOptions`, in field order (defaults of factories called)."""
    out = []
    for f in dataclasses.fields(CompareOptions):
        if f.metadata.get("internal"):
            continue
        factory = f.default_factory
        default = factory() if factory is not dataclasses.MISSING else f.default
        meta = f.metadata
        out.append(
            OptionField(
                f.name,
                default,
                str(meta["doc"]),
                bool(meta["marker"]),
                bool(meta["asserter"]),
                bool(meta["setting"]),
            )
        )
    out += [
        OptionField(k.name, k.default, k.doc, k.marker, k.asserter, k.setting)
        for k in _DECLARED.values()
    ]
    return tuple(out)


@functools.cache  # a tuple of names, fixed until a knob is declared: asked per test by the blocks
def marker_option_names() -> tuple[str, ...]:
    """The knobs ``@pytest.mark.agentsnap(...)`` accepts besides ``name``, in field order."""
    return tuple(f.name for f in option_fields() if f.marker)


@functools.cache  # a tuple of names, fixed until a knob is declared: asked per test by the blocks
def asserter_option_names() -> tuple[str, ...]:
    """The knobs :class:`~agentsnap.AgentAsserter` takes as arguments, in field order."""
    return tuple(f.name for f in option_fields() if f.asserter)


@functools.cache  # a tuple of names, fixed until a knob is declared: asked per test by the blocks
def setting_option_names() -> tuple[str, ...]:
    """The knobs that are ``[tool.agentsnap]`` keys (fields of :class:`agentsnap.config.Settings`)."""
    return tuple(f.name for f in option_fields() if f.setting)


def setting_field(name: str) -> Any:
    """The ``dataclasses.field`` of :class:`agentsnap.config.Settings`' knob ``name``: this knob's
    default (a factory for a list) and its doc as the field's ``doc`` metadata.

    Raises:
        KeyError: ``name`` is not a knob marked ``setting``.
    """
    for f in dataclasses.fields(CompareOptions):
        if f.name == name and f.metadata["setting"]:
            metadata = {"doc": f.metadata["doc"], "compare_option": True}
            if f.default_factory is not dataclasses.MISSING:
                return field(default_factory=f.default_factory, metadata=metadata)
            return field(default=f.default, metadata=metadata)
    raise KeyError(f"{name!r} is not a comparison setting")


# --------------------------------------------------------------------------- declared knobs

T = TypeVar("T")


class Knob(Generic[T]):
    """A comparison knob a check declares in its own module, once: its name, default, doc,
    the rule that checks a value, and where it may be set.

    ``check(value)`` returns the value normalised (``float(0)`` for ``0``) or raises
    ``TypeError`` / ``ValueError``; :meth:`validate` adds the knob's name. ``setting``:
    a ``[tool.agentsnap]`` key; ``marker``: a ``@pytest.mark.agentsnap(...)`` keyword;
    ``asserter``: an ``AgentAsserter`` argument. ``compute_diff`` always takes it as a
    keyword. The check reads the value with :meth:`get`.
    """

    __slots__ = ("asserter", "check", "default", "doc", "marker", "name", "setting")

    def __init__(
        self,
        name: str,
        default: T,
        doc: str,
        *,
        check: Callable[[object], T],
        setting: bool = True,
        marker: bool = True,
        asserter: bool = True,
    ) -> None:
        self.name = name
        self.default = default
        self.doc = doc
        self.check = check
        self.setting = setting
        self.marker = marker
        self.asserter = asserter

    def validate(self, value: object) -> T:
        """``value`` checked and normalised; the error names the knob."""
        try:
            return self.check(value)
        except (TypeError, ValueError) as exc:
            raise type(exc)(f"{self.name}: {exc}") from None

    def get(self, options: CompareOptions) -> T:
        """This knob's value in ``options`` (its default when unset)."""
        return cast(T, options.declared.get(self.name, self.default))

    def __repr__(self) -> str:
        return f"Knob({self.name!r}, default={self.default!r})"


_DECLARED: dict[str, Knob[Any]] = {}


def declare(knob: Knob[T]) -> Knob[T]:
    """Register ``knob``: from now on the settings, the marker, ``AgentAsserter`` and
    ``compute_diff`` accept it, ``details["settings"]`` reports it and the reference lists
    it. Returns ``knob`` (``MAX_STEPS = declare(Knob(...))``).

    Raises:
        ValueError: its name is not an identifier, or is already a knob.
        TypeError: its default fails its own check.
    """
    known = {f.name for f in dataclasses.fields(CompareOptions)} | set(_DECLARED)
    if not knob.name.isidentifier() or knob.name in known:
        raise ValueError(
            f"agentsnap: cannot declare the knob {knob.name!r}: not a name, or already a knob"
        )
    if knob.default is not None:
        knob.validate(knob.default)
    _DECLARED[knob.name] = knob
    _names_changed()
    return knob


def forget(name: str) -> Knob[Any]:
    """Undo :func:`declare` (for tests and temporary checks); the knob.

    Raises:
        LookupError: no knob of that name was declared.
    """
    try:
        knob = _DECLARED.pop(name)
    except KeyError:
        raise LookupError(f"no declared knob named {name!r}") from None
    _names_changed()
    return knob


def declared_knobs() -> tuple[Knob[Any], ...]:
    """The knobs checks declared, in declaration order."""
    return tuple(_DECLARED.values())


def _declared_knob(name: str) -> Knob[Any]:
    knob = _DECLARED.get(name)
    if knob is None:
        raise TypeError(
            f"unknown comparison knob {name!r} (declared: {', '.join(_DECLARED) or 'none'})"
        )
    return knob


def _names_changed() -> None:
    for cached in (marker_option_names, asserter_option_names, setting_option_names):
        cached.cache_clear()
