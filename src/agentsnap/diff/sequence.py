"""Structural layer: which tools ran (or were requested), and in what order.

Two sequences of tool names are compared with the Levenshtein edit distance
(insertions, deletions and substitutions each cost 1), computed by
:mod:`rapidfuzz`. The same machinery serves two checks:

* ``"structural"`` — the names of the ``tool_call`` steps the agent executed;
* ``"model_tools"`` — the names in every ``llm_call`` step's ``tool_requests``
  (the tools the model asked for), flattened in trace order.

The edit script of the distance also gives the *alignment* used by the
argument layer: two positions are paired only where the script keeps a name
unchanged (an ``equal`` block), so the arguments of two different tools are
never compared. When a name repeats and one occurrence is inserted or
deleted, rapidfuzz keeps the earliest occurrences paired and reports the
later one as the insertion or deletion.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, NamedTuple

__all__ = [
    "ToolRef",
    "aligned_pairs",
    "edit_distance",
    "llm_calls",
    "requested_tools",
    "sequence_diff",
    "tool_calls",
    "trace_steps",
]

#: name shown for a tool call or request that carries no usable ``name``
UNNAMED = "<unnamed>"


class ToolRef(NamedTuple):
    """One executed tool call or one model tool request, located in its trace.

    ``name``: the tool name (``"<unnamed>"`` when absent); ``step``: the trace
    step number (the step's ``"step"`` value, or its list index when that is
    missing) of the ``tool_call`` step, or of the ``llm_call`` step holding the
    request; ``args``: the recorded arguments (any JSON value, usually a dict,
    a string when a model emitted arguments that were not valid JSON).
    """

    name: str
    step: int
    args: Any


def trace_steps(snapshot: Mapping[str, Any], label: str = "snapshot") -> list[Mapping[str, Any]]:
    """Return ``snapshot["trace"]`` as a list of step mappings.

    A missing or ``None`` trace is an empty list.

    Raises:
        TypeError: ``snapshot`` is not a mapping, its ``trace`` is not a list,
            or a step is not a mapping. ``label`` (``"golden"``/``"new"``)
            names the side in the message.
    """
    if not isinstance(snapshot, Mapping):
        raise TypeError(
            f"agentsnap diff: the {label} snapshot must be a dict loaded from the "
            f"snapshot JSON, got {type(snapshot).__name__}"
        )
    trace = snapshot.get("trace")
    if trace is None:
        return []
    if not isinstance(trace, list):
        raise TypeError(
            f"agentsnap diff: the {label} snapshot's 'trace' must be a list of steps, "
            f"got {type(trace).__name__}"
        )
    for index, step in enumerate(trace):
        if type(step) is not dict and not isinstance(step, Mapping):
            raise TypeError(
                f"agentsnap diff: the {label} snapshot's trace[{index}] must be a dict "
                f"step, got {type(step).__name__}"
            )
    return trace


def _step_number(step: Mapping[str, Any], index: int) -> int:
    number = step.get("step")
    if type(number) is int or (isinstance(number, int) and not isinstance(number, bool)):
        return number
    return index


def _name(value: Any) -> str:
    if value is None or value == "":
        return UNNAMED
    return str(value)


def tool_calls(steps: Sequence[Mapping[str, Any]]) -> list[ToolRef]:
    """The executed tool calls (``type == "tool_call"``) of a trace, in order."""
    return [
        ToolRef(_name(step.get("name")), _step_number(step, index), step.get("args"))
        for index, step in enumerate(steps)
        if step.get("type") == "tool_call"
    ]


def llm_calls(
    steps: Sequence[Mapping[str, Any]],
) -> list[tuple[int, Mapping[str, Any]]]:
    """The ``llm_call`` steps of a trace as ``(step number, step)`` pairs, in order."""
    return [
        (_step_number(step, index), step)
        for index, step in enumerate(steps)
        if step.get("type") == "llm_call"
    ]


def requested_tools(
    steps: Sequence[Mapping[str, Any]],
    calls: Sequence[tuple[int, Mapping[str, Any]]] | None = None,
) -> list[ToolRef] | None:
    """The tools the model requested, flattened over all ``llm_call`` steps in order.

    Each request is ``{"id"?, "name", "args"}``; its :class:`ToolRef` carries
    the step number of the ``llm_call`` holding it. A ``tool_requests`` value
    of ``None`` counts as no request.

    Returns ``None`` when some ``llm_call`` step has no ``tool_requests`` key
    at all (a snapshot recorded before model tool requests were captured):
    the caller then skips the model-tools checks rather than failing them.

    ``calls``: :func:`llm_calls` of ``steps`` when the caller has it already.
    """
    out: list[ToolRef] = []
    for number, step in llm_calls(steps) if calls is None else calls:
        if "tool_requests" not in step:
            return None
        for request in step.get("tool_requests") or ():
            if type(request) is dict or isinstance(request, Mapping):
                out.append(ToolRef(_name(request.get("name")), number, request.get("args")))
            else:  # malformed entry: keep it visible rather than dropping it
                out.append(ToolRef(UNNAMED, number, request))
    return out


def _levenshtein() -> Any:
    """rapidfuzz's Levenshtein module, imported on the first comparison of two tool sequences
    (rapidfuzz's ~60 modules take ~4 ms to import; a run with no tool call never needs them)."""
    from rapidfuzz.distance import Levenshtein

    return Levenshtein


def _encode(golden: Sequence[str], new: Sequence[str]) -> tuple[list[int], list[int]]:
    # Map names to small ints so equality is exact (rapidfuzz hashes arbitrary
    # sequence items; integers avoid any reliance on string hashes).
    codes: dict[str, int] = {}
    g = [codes.setdefault(name, len(codes)) for name in golden]
    n = [codes.setdefault(name, len(codes)) for name in new]
    return g, n


def edit_distance(golden: Sequence[str], new: Sequence[str]) -> int:
    """Levenshtein distance between two name sequences (unit costs). Symmetric."""
    g, n = _encode(golden, new)
    return int(_levenshtein().distance(g, n))


def aligned_pairs(golden: Sequence[str], new: Sequence[str]) -> list[tuple[int, int]]:
    """Positions ``(golden_index, new_index)`` that hold the same name in the edit script.

    Pairs come from the ``equal`` blocks of the Levenshtein opcodes, in order.
    (A ``replace`` block only ever holds differing names; positions in it are
    paired only if their names are equal, which keeps the rule total.)
    """
    g, n = _encode(golden, new)
    pairs: list[tuple[int, int]] = []
    for op in _levenshtein().opcodes(g, n):
        if op.tag == "equal":
            pairs.extend(
                zip(
                    range(op.src_start, op.src_end),
                    range(op.dest_start, op.dest_end),
                    strict=False,
                )
            )
        elif op.tag == "replace":
            for i, j in zip(
                range(op.src_start, op.src_end),
                range(op.dest_start, op.dest_end),
                strict=False,
            ):
                if g[i] == n[j]:
                    pairs.append((i, j))
    return pairs


def sequence_diff(
    golden: Sequence[ToolRef], new: Sequence[ToolRef], *, tolerance: int = 0
) -> dict[str, Any]:
    """Compare two tool sequences; the result is one section of ``DiffReport.structural_diff``.

    Returns a dict::

        {"golden": [name, ...], "new": [name, ...],
         "golden_steps": [step, ...], "new_steps": [step, ...],
         "distance": int,            # Levenshtein distance, unit costs
         "tolerance": int,           # the budget it was checked against
         "similarity": float,        # 1 - distance / max(len); 1.0 when both empty
         "passed": bool,             # distance <= tolerance
         "ops": [op, ...],           # the edit script, in order
         "aligned": [[golden_index, new_index], ...]}

    Each op is ``{"op": "insert"|"delete"|"replace", "golden_index": int,
    "new_index": int, "old": name|None, "new": name|None, "golden_step":
    int|None, "new_step": int|None}``. Indexes are 0-based positions in the
    two sequences (for ``insert``, ``golden_index`` is the golden position the
    new name goes before; for ``delete``, ``new_index`` is the new position
    the golden name was dropped before); ``old``/``golden_step`` are ``None``
    for an insert and ``new``/``new_step`` are ``None`` for a delete.

    Raises:
        ValueError: ``tolerance`` is negative.
    """
    if tolerance < 0:
        raise ValueError(f"structural_tolerance must be >= 0, got {tolerance}")
    g_names = [ref.name for ref in golden]
    n_names = [ref.name for ref in new]
    g, n = _encode(g_names, n_names)
    distance = int(_levenshtein().distance(g, n))
    ops: list[dict[str, Any]] = []
    for edit in _levenshtein().editops(g, n):
        i, j = edit.src_pos, edit.dest_pos
        ops.append(
            {
                "op": edit.tag,
                "golden_index": i,
                "new_index": j,
                "old": g_names[i] if edit.tag != "insert" else None,
                "new": n_names[j] if edit.tag != "delete" else None,
                "golden_step": golden[i].step if edit.tag != "insert" else None,
                "new_step": new[j].step if edit.tag != "delete" else None,
            }
        )
    return {
        "golden": g_names,
        "new": n_names,
        "golden_steps": [ref.step for ref in golden],
        "new_steps": [ref.step for ref in new],
        "distance": distance,
        "tolerance": tolerance,
        "similarity": float(_levenshtein().normalized_similarity(g, n)),
        "passed": distance <= tolerance,
        "ops": ops,
        "aligned": [list(pair) for pair in aligned_pairs(g_names, n_names)],
    }
