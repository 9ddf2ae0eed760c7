"""What a failed comparison tells the user to run: :func:`fix_advice` (``agentsnap diff`` and the
HTML report), :func:`failed_test_note` (a replayed test that failed on its own after its
requests changed) and the record command both name (:func:`record_command`). Re-exported by
:mod:`agentsnap.lifecycle`, where they were first."""

from __future__ import annotations

import shlex
from collections import Counter
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pathlib import Path

    from ..storage.snapshot import Snapshot

__all__ = ["dir_option", "failed_test_note", "fix_advice", "record_command"]

#: how many changes of one call a failed test's note lists (``agentsnap diff`` shows them all)
_NOTE_CHANGES = 3


def _drift_label(step: dict[str, Any]) -> tuple[str, str]:
    """``(kind, label)`` of a step replay served after its request changed: ``kind`` one of
    ``llm``, ``http``, ``mcp``, ``websocket``; ``label`` what the note heads its changes with."""
    kind = step.get("type")
    if kind == "websocket":
        return "websocket", f"WebSocket connection {step.get('connection')} ({step.get('url')})"
    if kind == "http":
        return "http", f"HTTP {step.get('method')} {step.get('path')}"
    # MCP (agentsnap.capture.mcp): a tool call (named ``mcp:SERVER.TOOL``), or a resource,
    # prompt, server or reply
    server = step.get("server")
    what = str(step.get("name") or step.get("method"))
    what = what.removeprefix(f"mcp:{server}.") if server else what
    return "mcp", f"MCP {server} {what}" if server else f"MCP {what}"


def failed_test_note(new: Snapshot, kept: Path | None) -> str:
    """What a replayed test that failed on its own says about its changed requests: which llm
    calls, HTTP requests, MCP requests and WebSocket connections replay served the recording
    of another request (their changes), and the commands to see the whole diff and to
    re-record."""
    calls = new.llm_calls
    drifted = sum(1 for s in calls if s.get("request_drift"))
    others = [
        (*_drift_label(s), s)
        for s in new.trace
        if s.get("type") != "llm_call" and s.get("request_drift")
    ]
    count = Counter(kind for kind, _, _ in others)
    parts = (
        [f"the requests of {drifted} of {len(calls)} llm call(s)"] if drifted or not others else []
    )
    parts += [
        noun.format(count[kind])
        for kind, noun in (
            ("http", "{} HTTP request(s)"),
            ("mcp", "{} MCP request(s)"),
            ("websocket", "the messages sent on {} WebSocket connection(s)"),
        )
        if count[kind]
    ]
    what = ", ".join(parts[:-1]) + (" and " if len(parts) > 1 else "") + parts[-1]
    who = (
        "the model" if not others else "the server" if not drifted else "the model and the servers"
    )
    if set(count) == {"websocket"} and not drifted:
        served = "replay played back the recorded server messages, which answered the old ones"
    else:
        served = "replay served them the recorded answers to the old requests"
    lines = [
        f"agentsnap: {what} changed, so {served}: "
        f"this test checked answers {who} never gave to what it sends now."
    ]
    drifted_steps = [(f"llm_call[{i}]", s) for i, s in enumerate(calls)] + [
        (label, s) for _, label, s in others
    ]
    for label, step in drifted_steps:
        changes = [str(c) for c in step.get("request_drift") or []]
        if not changes:
            continue
        lines.append(f"  {label} (step {step.get('step')}):")
        lines += [f"    {change}" for change in changes[:_NOTE_CHANGES]]
        if len(changes) > _NOTE_CHANGES:
            lines.append(
                f"    … {len(changes) - _NOTE_CHANGES} more (agentsnap diff shows them all)"
            )
    where = f" (this run is kept in {kept}; it is never promoted)" if kept is not None else ""
    lines.append(f"See the whole comparison: `agentsnap diff {shlex.quote(new.name)}`{where}.")
    lines.append(f"If the change is intended, re-record it live: `{record_command(new.name)}`.")
    return "\n".join(lines)


def record_command(name: str) -> str:
    """``pytest NODE --agentsnap-record`` for a node-id name, else the general form."""
    return (
        f"pytest {shlex.quote(name)} --agentsnap-record"
        if "::" in name
        else "pytest --agentsnap-record (add the test's node id)"
    )


def dir_option(folder: Path) -> str:
    """`` --dir FOLDER`` for an ``agentsnap`` command about a snapshot in ``folder``, when the CLI
    run from here would look in another folder (a ``--agentsnap-snapshot-dir`` flag, a block's
    ``snapshot_dir``); "" when it would look there anyway. The folder is shown relative to the
    working directory when it lies inside it. Without a readable configuration: the option."""
    import warnings
    from pathlib import Path

    from ..config import load

    here = Path.cwd()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (the run's own load said them)
            default: Path | None = load(here).snapshot_path  # what the CLI reads (cli._catalog)
    except (ValueError, OSError):
        default = None
    target = Path(folder).resolve()
    if default is not None and Path(default).resolve() == target:
        return ""
    shown = target.relative_to(here.resolve()) if target.is_relative_to(here.resolve()) else target
    return f" --dir {shlex.quote(str(shown))}"


def fix_advice(name: str, *, drifted: bool, test_failed: bool) -> tuple[str, str]:
    """What to run when a kept last run's change is intended: ``(why, command)``.

    The one advice ``agentsnap diff`` and the HTML report give, matching what
    ``agentsnap update`` accepts (:func:`agentsnap.cli._review.refuse_invented`):
    a replayed run whose requests drifted holds old responses, and a run whose
    test failed is never promoted, so both are re-recorded live; any other
    failed comparison is promoted with ``agentsnap update NAME``.
    """
    if drifted:
        return (
            "The responses are old recordings: if the change is intended, re-record it live:",
            record_command(name),
        )
    if test_failed:
        return (
            "If the change is intended, make the test pass and run it again, or re-record it live:",
            record_command(name),
        )
    return (
        "If the change is intended, make the last run the golden:",
        f"agentsnap update {shlex.quote(name)}",
    )
