"""The check interface: what every comparison layer provides, and the ordered registry.

A check is an object with

* ``name`` — its entry in ``failed_checks`` (and the key of its stored result);
* its class docstring — what it compares;
* ``run(ctx) -> result`` — a typed result (a dataclass) from a
  :class:`CheckContext` (the two snapshots, their steps, the validated
  :class:`~agentsnap.diff.options.CompareOptions` and the results of the
  checks before it);
* ``contribute(result, draft)`` — how the result goes into the
  :class:`~agentsnap.diff.DiffReport` being built (:class:`ReportDraft`);
* ``render_text(view)`` — its section of the text report, read back from a
  report (:class:`TextView`), so a report loaded from JSON or built by hand
  renders the same way;
* ``html(page) -> HtmlPart`` — what it adds to the snapshot's section of the
  HTML report (:class:`HtmlPage` holds the report as a plain dict).

The built-in checks (``structural``, ``arguments``, ``model_tools`` with
``model_tool_args``, ``llm_requests``, ``semantic``) fill the 0.5.1 fields of
:class:`~agentsnap.diff.DiffReport`. A check added with :func:`register_check`
keeps the defaults of :class:`Check`: its result (a :class:`CheckResult` or a
subclass) is stored as a dict in ``details["checks"][name]``, it fails as
``name`` when ``result.passed`` is false, and it shows as a
``[TITLE] ok|FAIL — summary`` section (plus ``lines``) in both reports.

Standard library and :func:`agentsnap.jsondiff.same_json` only.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from ... import knobs
from ...exceptions import AgentsnapError
from ...jsondiff import same_json
from .. import _text
from .. import sequence as _sequence

if TYPE_CHECKING:
    from ...jsondiff import IgnoreRule
    from ...knobs import CompareOptions

__all__ = [
    "Check",
    "CheckContext",
    "CheckResult",
    "HtmlPage",
    "HtmlPart",
    "HtmlSection",
    "ReportDraft",
    "TextView",
    "register_check",
    "registered_checks",
    "registered_components",
    "unregister_check",
]

Step = Mapping[str, Any]

#: a key a step or snapshot does not hold (the same only as itself)
_ABSENT: Any = object()


@dataclass
class CheckResult:
    """The result of a check added with :func:`register_check` (subclass it to carry more).

    ``passed``: False fails the check (its ``name`` joins ``failed_checks``).
    ``summary``: the text after ``—`` on the section's first line.
    ``lines``: more lines shown under it. Every field must be JSON-able: the
    result is stored in ``details["checks"][name]`` with ``dataclasses.asdict``.
    """

    passed: bool
    summary: str = ""
    lines: list[str] = field(default_factory=list)


@dataclass
class CheckContext:
    """What a check reads: the two snapshots, their steps, the options, earlier results.

    ``golden`` / ``new``: the snapshot dicts (``trace``, ``output``, ``version``…).
    ``golden_steps`` / ``new_steps``: their ``trace`` lists (against a 0.5.1
    golden, the new trace without derived tool calls). ``options``: validated.
    ``rules``: ``options.ignored_fields`` parsed. ``legacy``: the golden was
    written by agentsnap 0.5.1. ``results``: ``{check name: result}`` of the
    checks that ran before this one.
    """

    golden: Mapping[str, Any]
    new: Mapping[str, Any]
    golden_steps: list[Step]
    new_steps: list[Step]
    options: CompareOptions
    rules: tuple[IgnoreRule, ...]
    legacy: bool
    results: dict[str, Any] = field(default_factory=dict)
    #: :meth:`same_steps`' answers so far, per step key
    _same_keys: dict[str, bool] = field(default_factory=dict, repr=False, compare=False)
    #: :meth:`llm_calls`' pairs, per side (True: the golden's)
    _llm_calls: dict[bool, list[tuple[int, Step]]] = field(
        default_factory=dict, repr=False, compare=False
    )

    def llm_calls(self, golden: bool) -> list[tuple[int, Step]]:
        """:func:`~agentsnap.diff.sequence.llm_calls` of the golden's steps (``golden``) or
        the new ones, found once per context, whichever check asks (a new list each time);
        found once for both sides when they hold the same step objects (a run proven its
        golden's, compared with itself: the same pairs)."""
        found = self._llm_calls.get(golden)
        if found is None:
            found = self._llm_calls[golden] = _sequence.llm_calls(
                self.golden_steps if golden else self.new_steps
            )
        return list(found)

    def one_trace(self) -> None:
        """Both sides are one trace, the same step objects (a run proven its large golden's,
        compared with itself: :func:`agentsnap.lifecycle.compare_run`): :meth:`llm_calls`'
        pairs are found once for both."""
        self._llm_calls[True] = self._llm_calls[False] = _sequence.llm_calls(self.golden_steps)

    def same_steps(self, keys: Sequence[str]) -> bool:
        """Whether both traces have as many steps and each pair of steps holds the same value
        (:func:`~agentsnap.jsondiff.same_json`; a key absent on both sides is the same, absent
        on one side differs from any value) under every key of ``keys``. Each key is compared
        once per context, whichever check asks."""
        for key in keys:
            found = self._same_keys.get(key)
            if found is None:
                found = self._same_keys[key] = len(self.golden_steps) == len(
                    self.new_steps
                ) and all(
                    same_json(g.get(key, _ABSENT), n.get(key, _ABSENT))
                    for g, n in zip(self.golden_steps, self.new_steps, strict=True)
                )
            if not found:
                return False
        return True

    def same_values(self, keys: Sequence[str]) -> bool:
        """Whether the two snapshots hold the same value (:func:`~agentsnap.jsondiff.same_json`)
        under every key of ``keys`` (``output``…); absent as in :meth:`same_steps`."""
        return all(
            same_json(self.golden.get(key, _ABSENT), self.new.get(key, _ABSENT)) for key in keys
        )

    def result(self, name: str, kind: type[R]) -> R:
        """The result of the earlier check ``name``.

        Raises:
            LookupError: that check did not run before this one (not
                registered, or registered after).
            TypeError: its result is not a ``kind``.
        """
        try:
            value = self.results[name]
        except KeyError:
            raise LookupError(f"check {name!r} has not run before this one") from None
        if not isinstance(value, kind):
            raise TypeError(
                f"result of check {name!r} is {type(value).__name__}, not {kind.__name__}"
            )
        return value


@dataclass
class ReportDraft:
    """The :class:`~agentsnap.diff.DiffReport` fields the checks fill, in check order."""

    details: dict[str, Any] = field(default_factory=dict)
    changes: list[dict[str, Any]] = field(default_factory=list)
    argument_diffs: dict[str, Any] = field(default_factory=dict)
    #: ``(check name, failed_checks entry)`` pairs
    failed: list[tuple[str, str]] = field(default_factory=list)
    components: dict[str, float] = field(default_factory=dict)
    semantic_scores: dict[str, float] = field(default_factory=dict)
    reasons: dict[str, list[str]] = field(default_factory=dict)
    structural_diff: str | None = None
    model_tools_diff: str | None = None
    backend: str = "exact"
    semantic_backend: dict[str, Any] = field(default_factory=dict)

    def fail(self, check: str, entry: str | None = None) -> None:
        """Record a failure of ``check`` (listed as ``entry``, default the check's name)."""
        self.failed.append((check, entry or check))


class ReportFields(Protocol):
    """What a check's text rendering reads of the :class:`~agentsnap.diff.DiffReport` (a
    protocol, so the checks need not import the report that imports them)."""

    @property
    def score(self) -> float: ...
    @property
    def failed_checks(self) -> list[str]: ...
    @property
    def details(self) -> dict[str, Any]: ...
    @property
    def changes(self) -> list[dict[str, Any]]: ...
    @property
    def semantic_scores(self) -> dict[str, float]: ...
    @property
    def reasons(self) -> dict[str, list[str]]: ...
    @property
    def backend(self) -> str: ...
    @property
    def semantic_backend(self) -> dict[str, Any]: ...


class TextView:
    """A :class:`~agentsnap.diff.DiffReport` being rendered as text, with the line helpers.

    ``report``: the report; ``failed``: its failed checks without the
    ``semantic:`` prefix; ``scored``: ``gate="score"`` (only the score and the
    checks marked ``always_decides`` say ok / FAIL; the others say
    ``scored``); ``out``: the lines so far.
    """

    def __init__(self, report: ReportFields, color: bool) -> None:
        self.report = report
        self.color = color
        self.failed = {_text.check_key(c) for c in report.failed_checks}
        self.out: list[str] = []
        self.scored = (report.details.get("settings") or {}).get("gate") == "score"

    def paint(self, text: str, code: str) -> str:
        return _text.paint(text, code, self.color)

    def status(self, ok: bool, *, decides: bool = False) -> str:
        """``ok`` / ``FAIL`` (``scored`` under the score gate unless ``decides``)."""
        if self.scored and not decides:
            return self.paint("scored", _text.YELLOW)
        return self.paint("ok", _text.GREEN) if ok else self.paint("FAIL", _text.RED + _text.BOLD)

    def tag(self, text: str) -> str:
        return self.paint(text, _text.BOLD + _text.CYAN)

    def add(self, text: str, indent: int = 0) -> None:
        """One report line (a newline inside a name or value is shown escaped, so
        ``max_lines`` really caps lines)."""
        self.out.append("  " * indent + text.translate(_text.ESCAPE_LINE_BREAKS))

    def entries(self, check: str) -> list[dict[str, Any]]:
        """The report's ``changes`` entries of ``check``."""
        return [d for d in self.report.changes if d.get("check") == check]

    def ops(self, section: Mapping[str, Any], step_word: str = "step") -> None:
        """The two name sequences and the edit script of a sequence section."""
        self.add(f"golden: {_text.seq(section.get('golden', []))}", 1)
        self.add(f"new:    {_text.seq(section.get('new', []))}", 1)
        for op in section.get("ops", []):
            kind = op.get("op")
            if kind == "replace":
                self.add(
                    f"replace #{op['golden_index']} {op['old']} → {op['new']} "
                    f"(golden {step_word} {op['golden_step']}, new {step_word} {op['new_step']})",
                    1,
                )
            elif kind == "delete":
                self.add(
                    f"delete #{op['golden_index']} {op['old']} "
                    f"(golden {step_word} {op['golden_step']})",
                    1,
                )
            elif kind == "insert":
                self.add(
                    f"insert #{op['new_index']} {op['new']} (new {step_word} {op['new_step']})",
                    1,
                )

    def changes(self, entry: Mapping[str, Any], indent: int, *, whole: bool = False) -> None:
        """One line per change; ``whole``: values in full (a changed prompt must be readable), else cut."""
        for change in entry.get("changes", []):
            kind = change.get("kind")
            if whole:
                old, new = repr(change.get("old")), repr(change.get("new"))
            else:
                old, new = _text.changed_pair(change.get("old"), change.get("new"))
            old = "<absent>" if kind == "added" else old
            new = "<absent>" if kind == "removed" else new
            line = f"{change.get('path')}: {old} → {new}"
            if kind == "type_changed":
                line += (
                    f" (type {type(change.get('old')).__name__} → "
                    f"{type(change.get('new')).__name__})"
                )
            elif kind in ("added", "removed"):
                line += f" ({kind})"
            self.add(line, indent)


@dataclass
class HtmlSection:
    """A generic block of a snapshot's HTML section: ``title``, ok/fail, a summary, lines (plain text)."""

    title: str
    passed: bool | None
    summary: str = ""
    lines: list[str] = field(default_factory=list)


@dataclass
class HtmlPart:
    """What a check adds to a snapshot's HTML view.

    ``view``: keys merged into the snapshot's view (the built-in checks fill
    the page's own blocks: ``structural``, ``model_tools``, ``semantic``,
    ``output``, ``backend``…); ``section``: a generic block listed under
    "Other checks" (what a registered check shows by default).
    """

    view: dict[str, Any] = field(default_factory=dict)
    section: HtmlSection | None = None


@dataclass
class HtmlPage:
    """One snapshot of the HTML report, as its checks see it.

    ``report``: the :class:`~agentsnap.diff.DiffReport` as a plain dict (see
    :func:`agentsnap.html_report._entries.report_dict`), or None; ``golden`` /
    ``new``: the slim snapshots (``trace``, ``output``…) or None; ``failed``:
    the failed checks without the ``semantic:`` prefix; ``checks``: the
    failed checks the page lists for this snapshot.
    """

    entry: Mapping[str, Any]
    report: Mapping[str, Any] | None
    golden: Mapping[str, Any] | None
    new: Mapping[str, Any] | None
    checks: Sequence[str] = ()

    @property
    def details(self) -> Mapping[str, Any]:
        return (self.report or {}).get("details") or {}

    @property
    def failed(self) -> set[str]:
        return {_text.check_key(c) for c in (self.report or {}).get("failed_checks") or []}


R = TypeVar("R")


#: what ``copy.deepcopy`` returns as it is (so :func:`as_dict` does not call it)
_ATOMIC = frozenset({type(None), bool, int, float, complex, str, bytes})


class _Unusual(AgentsnapError, LookupError):
    """Internal, never raised out of :func:`as_dict`: a value it leaves to ``dataclasses.asdict``
    (a namedtuple, a dict or list subclass, any other object: their handling differs between
    Python versions)."""


def as_dict(result: object) -> dict[str, Any]:
    """``dataclasses.asdict(result)``: the same dict, made without calling ``copy.deepcopy``
    on each string and number (which returns it as it is) when the result holds only those,
    plain lists, tuples and dicts, and dataclasses; else by ``dataclasses.asdict`` itself."""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        try:
            plain: dict[str, Any] = _as_plain(result)
            return plain
        except _Unusual:
            pass
    return dataclasses.asdict(result)  # type: ignore[call-overload,no-any-return]


#: :func:`_compared_field`'s answer by the result's class (its fields are fixed when it is made)
_COMPARED_FIELD: dict[type, bool] = {}


def _compared_field(result: object) -> bool:
    """Whether ``result`` is a dataclass with a ``compared`` field (so :func:`as_dict` holds it);
    asked once per class (every check contributes a result each comparison)."""
    if isinstance(result, type):
        return False
    kind = type(result)
    known = _COMPARED_FIELD.get(kind)
    if known is None:
        known = _COMPARED_FIELD[kind] = dataclasses.is_dataclass(result) and any(
            f.name == "compared" for f in dataclasses.fields(result)
        )
    return known


def _as_plain(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMIC:
        return value
    if kind is list or kind is tuple:
        return kind(_as_plain(v) for v in value)
    if kind is dict:
        return {_as_plain(k): _as_plain(v) for k, v in value.items()}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return {f.name: _as_plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
    raise _Unusual


class Check(Generic[R]):
    """One comparison layer (subclass it; the class docstring says what it compares).

    Class attributes: ``name`` (unique; its ``failed_checks`` entry),
    ``title`` (the text report's section tag, default ``[NAME]``),
    ``components`` (the parts of :attr:`DiffReport.score` it contributes),
    ``fails_as`` (its fixed ``failed_checks`` entries; None: just ``name``),
    ``always_decides`` (still fails under ``gate="score"``), ``one_line_form``
    (its components weigh in the one-line ``snapshot(actual)`` form).
    """

    name: ClassVar[str] = ""
    title: ClassVar[str] = ""
    components: ClassVar[tuple[str, ...]] = ()
    fails_as: ClassVar[tuple[str, ...] | None] = None
    always_decides: ClassVar[bool] = False
    one_line_form: ClassVar[bool] = False
    #: the keys of each trace step ``run`` reads (``"type"``, ``"args"``…) and the snapshot
    #: keys besides ``trace`` (``"output"``): when both sides hold the same values there,
    #: :meth:`unchanged` answers instead of ``run``. None (the default, so a registered
    #: check that declares nothing): ``run`` always.
    reads: ClassVar[tuple[str, ...] | None] = None
    reads_snapshot: ClassVar[tuple[str, ...]] = ()

    def same_inputs(self, ctx: CheckContext) -> bool:
        """Whether the golden's and the run's inputs to this check are the same (then
        :meth:`unchanged` answers). Default: the values under :attr:`reads` and
        :attr:`reads_snapshot` (:meth:`CheckContext.same_steps`); False when ``reads`` is
        None. Override it with a cheaper test the check's own inputs allow."""
        if self.reads is None:
            return False
        return ctx.same_steps(self.reads) and ctx.same_values(self.reads_snapshot)

    def unchanged(self, ctx: CheckContext) -> R:
        """The result ``run(ctx)`` returns when :meth:`same_inputs` holds, made with less work
        (it must be equal in every field: the reports show it). Default: ``run(ctx)``."""
        return self.run(ctx)

    def fixed_failures(self) -> tuple[str, ...]:
        """The ``failed_checks`` entries this check may add, besides computed ones."""
        return (self.name,) if self.fails_as is None else self.fails_as

    def run(self, ctx: CheckContext) -> R:
        """Compare; the result must be a dataclass (a :class:`CheckResult` for the defaults)."""
        raise NotImplementedError

    # -- into the report -----------------------------------------------------------------
    def contribute(self, result: R, draft: ReportDraft) -> None:
        """Default: store ``asdict(result)`` in ``details["checks"][name]``; fail when not
        ``passed`` (listed as the one entry of ``fails_as``, else as ``name``). A result whose
        ``compared`` field is False (nothing to compare in this run) leaves no trace."""
        if getattr(result, "compared", True) is False and _compared_field(result):
            return  # what as_dict(result)["compared"] would say, without the dict
        data = as_dict(result)
        if data.get("compared", True) is False:
            return
        draft.details.setdefault("checks", {})[self.name] = data
        if not data.get("passed", True):
            fixed = self.fails_as or ()
            draft.fail(self.name, fixed[0] if len(fixed) == 1 else None)

    def stored(self, details: Mapping[str, Any]) -> Mapping[str, Any] | None:
        """This check's stored result in a report's ``details`` (None: it did not run)."""
        found = (details.get("checks") or {}).get(self.name)
        return found if isinstance(found, Mapping) else None

    # -- out of the report ---------------------------------------------------------------
    def section_title(self) -> str:
        return self.title or f"[{self.name.upper()}]"

    def render_text(self, view: TextView) -> None:
        """Default: ``[TITLE] ok|FAIL — summary`` and the result's ``lines``, when it ran."""
        data = self.stored(view.report.details)
        if data is None:
            return
        ok = not view.failed.intersection((self.name, *self.fixed_failures()))
        summary = str(data.get("summary") or "")
        detail = f" — {summary}" if summary else ""
        view.add(f"{view.tag(self.section_title())} {view.status(ok)}{detail}")
        for line in data.get("lines") or []:
            view.add(str(line), 1)

    def html(self, page: HtmlPage) -> HtmlPart:
        """Default: a generic section with the same summary and lines, when it ran."""
        data = self.stored(page.details)
        if data is None:
            return HtmlPart()
        return HtmlPart(
            section=HtmlSection(
                title=self.section_title(),
                passed=not page.failed.intersection((self.name, *self.fixed_failures())),
                summary=str(data.get("summary") or ""),
                lines=[str(line) for line in data.get("lines") or []],
            )
        )


_REGISTRY: list[Check[Any]] = []


def register_check(check: Check[Any], *, before: str | None = None) -> Check[Any]:
    """Add ``check`` to the checks :func:`~agentsnap.diff.compute_diff` runs (last, or ``before`` another).

    Checks run, fail and render in registry order. Returns ``check``.

    Raises:
        ValueError: its name is empty or already registered, or ``before``
            names no registered check.
        TypeError: ``check`` is not a :class:`Check`.
    """
    if not isinstance(check, Check):
        raise TypeError(f"register_check() takes a Check, got {check!r}")
    if not check.name:
        raise ValueError("a check needs a name")
    if any(c.name == check.name for c in _REGISTRY):
        raise ValueError(f"a check named {check.name!r} is already registered")
    if before is None:
        _REGISTRY.append(check)
        return check
    for index, other in enumerate(_REGISTRY):
        if other.name == before:
            _REGISTRY.insert(index, check)
            return check
    raise ValueError(f"no registered check named {before!r}")


def unregister_check(name: str) -> Check[Any]:
    """Remove the check ``name`` from the registry and return it.

    Raises:
        LookupError: no check of that name is registered.
    """
    for index, check in enumerate(_REGISTRY):
        if check.name == name:
            return _REGISTRY.pop(index)
    raise LookupError(f"no registered check named {name!r}")


def registered_checks() -> tuple[Check[Any], ...]:
    """The registered checks, in the order they run."""
    return tuple(_REGISTRY)


def registered_components() -> tuple[str, ...]:
    """Every component of :attr:`DiffReport.score` the registered checks contribute, in order."""
    return tuple(c for check in _REGISTRY for c in check.components)


# CompareOptions.validated() checks weights against these, without importing this module
knobs.set_component_source(registered_components)
