"""Hostile and broken snapshot files.

* Snapshots are read with ``json.loads`` and nothing else (no pickle, YAML
  tags, ``eval``); a hostile file is data, never code, and blob paths inside
  it are never opened.
* Any name — ``..``, ``/``, ``\\``, NUL, reserved device names, very long —
  maps to a file directly inside the store root.
* A truncated file, merge-conflict markers, an unknown format version, a file
  holding another snapshot's name (and other non-snapshots) give a one-line
  error naming the path and the remedy, in pytest and in the CLI, and are
  never overwritten — unless ``--agentsnap-force`` / ``--force``.
"""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from agentsnap import Snapshot, SnapshotFormatError, SnapshotStore
from agentsnap.capture.cassette import Cassette
from agentsnap.cli import app
from agentsnap.storage.naming import preferred_filename
from tests._support.ci import _local_not_ci  # noqa: F401 - the autouse fixture

pytest_plugins = ["pytester"]

REPO = Path(__file__).resolve().parent.parent
SRC = REPO / "src" / "agentsnap"
NAME = "tests/test_agent.py::test_weather"

#: kind -> (file content, fragment of the error)
BROKEN: dict[str, tuple[str, str]] = {
    "truncated": (
        '{"version": "2.0", "name": "' + NAME + '", "trace": [{"type": "llm_c',
        "corrupt snapshot file",
    ),
    "conflict": (
        '<<<<<<< HEAD\n{"version": "2.0", "name": "'
        + NAME
        + '", "trace": []}\n=======\n{"version": "2.0", "trace": []}\n>>>>>>> main\n',
        "merge-conflict markers",
    ),
    "version": ('{"version": "9.0", "name": "' + NAME + '", "trace": []}', "format version '9.0'"),
    "name": (
        '{"version": "2.0", "name": "tests/other.py::test_x", "trace": []}',
        "holds snapshot 'tests/other.py::test_x'",
    ),
    "not_utf8": ('{"version": "2.0", "trace": [], "output": "\udcff"}', "not UTF-8"),
    "step": (
        '{"version": "2.0", "name": "' + NAME + '", "trace": [1, "x"]}',
        "trace[0] is not an object",
    ),
    "deep": ('{"trace": [], "x": ' + "[" * 100_000 + "]" * 100_000 + "}", "nested too deeply"),
    "yaml": ("!!python/object/apply:os.system ['echo pwned']\n", "corrupt snapshot file"),
}


def _write(path: Path, content: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode("utf-8", "surrogateescape"))


def _one_line_error(text: str, path: Path, *fragments: str) -> None:
    line = next((ln for ln in text.splitlines() if str(path) in ln), None)
    assert line is not None, f"no line names {path}:\n{text}"
    for fragment in fragments:
        assert fragment in line, f"{fragment!r} not on the line naming the path:\n{line}"


# --------------------------------------------------------------------------- json.loads only


def test_the_package_never_deserialises_with_anything_but_json() -> None:
    forbidden_modules = {
        "pickle",
        "cPickle",
        "dill",
        "marshal",
        "shelve",
        "jsonpickle",
        "yaml",
        "ruamel",
    }
    found = []
    for path in SRC.rglob("*.py"):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                found += [
                    f"{path}: import {a.name}"
                    for a in node.names
                    if a.name.split(".")[0] in forbidden_modules
                ]
            elif (
                isinstance(node, ast.ImportFrom)
                and node.module
                and node.module.split(".")[0] in forbidden_modules
            ):
                found.append(f"{path}: from {node.module}")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Name)
                and node.func.id in ("eval", "exec", "compile", "__import__")
            ):
                found.append(f"{path}:{node.lineno}: {node.func.id}()")
            elif (
                isinstance(node, ast.Call)
                and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("literal_eval", "object_hook")
            ):
                found.append(f"{path}:{node.lineno}: {node.func.attr}")
    assert found == []


def test_a_hostile_snapshot_is_only_data(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret", encoding="utf-8")
    hostile = {
        "version": "2.0",
        "name": "h",
        "__class__": "os.system",
        "py/object": "subprocess.Popen",
        "trace": [
            {
                "type": "tool_call",
                "name": "x",
                "args": {"$blob": "../outside.txt", "sha256": "0" * 64},
                "result": {"__reduce__": ["os.system", ["id"]]},
            },
            {
                "type": "llm_call",
                "exchange": {
                    "request": {
                        "method": "POST",
                        "path": "/../../etc/passwd",
                        "body": {"$blob": "/etc/passwd"},
                    },
                    "response": {"status": 200, "headers": {}, "body": None},
                },
            },
        ],
    }
    root = tmp_path / "snaps"
    _write(SnapshotStore(root).path_for("h"), json.dumps(hostile))
    snap = SnapshotStore(root).load("h")
    assert (
        snap is not None and snap.trace == hostile["trace"]
    )  # plain dicts and strings, nothing resolved
    Cassette(snap.trace)
    SnapshotStore(root).save(snap)  # re-saving reads no blob and writes none
    assert not (root / "blobs").exists() and outside.read_text(encoding="utf-8") == "secret"


# --------------------------------------------------------------------------- hostile names


HOSTILE_NAMES = [
    "../../etc/passwd",
    "..",
    "../",
    "a/../../b",
    "..\\..\\windows\\system32",
    "C:\\Windows\\x",
    "\\\\server\\share\\x",
    "/absolute/path",
    "nul\x00byte",
    "\x00",
    "CON",
    "con.txt",
    "Com1",
    "LPT9.json",
    "AUX",
    "PRN.",
    "name. ",
    'a<b>c:d"e|f?g*h',
    "x" * 600,
    "日本語::テスト[ü]",
    "\u202e\u200b",
    "\ud800",
    ".hidden",
    "-",
]


@pytest.mark.parametrize("name", HOSTILE_NAMES, ids=lambda n: repr(n)[:30])
def test_hostile_names_are_saved_inside_the_root(tmp_path: Path, name: str) -> None:
    root = tmp_path / "root"
    store = SnapshotStore(root)
    path = store.path_for(name)
    assert path.parent == root
    assert (
        re.fullmatch(r"[A-Za-z0-9_][A-Za-z0-9._-]*\.json", path.name)
        and len(path.name.encode()) <= 255
    )
    assert path.name.split(".", 1)[0].split("-", 1)[0].lower() not in {
        "con",
        "prn",
        "aux",
        "nul",
        "com1",
        "lpt9",
    }
    written = store.save(Snapshot(name=name, trace=[]))
    assert written == path
    everything = sorted(p.relative_to(tmp_path) for p in tmp_path.rglob("*"))
    assert everything == [Path("root"), Path("root") / path.name]
    loaded = store.load(name)
    assert loaded is not None and loaded.name == name


def test_names_differing_only_in_case_or_in_replaced_characters_get_different_files() -> None:
    names = ["Test::A", "test::a", "test::A", "a/b", "a:b", "a\\b", "a b", "a_b", "a..b", "a.b"]
    files = [SnapshotStore("r").path_for(n).name for n in names]
    assert len({f.lower() for f in files}) == len(
        names
    )  # distinct even on a case-insensitive file system


# --------------------------------------------------------------------------- broken files: the store


@pytest.mark.parametrize("kind", sorted(BROKEN))
def test_broken_files_give_one_line_errors_and_are_never_overwritten(
    tmp_path: Path, kind: str
) -> None:
    content, fragment = BROKEN[kind]
    store = SnapshotStore(tmp_path)
    path = store.path_for(NAME)
    _write(path, content)
    before = path.read_bytes()
    with pytest.raises(SnapshotFormatError) as err:
        store.load(NAME)
    message = str(err.value)
    assert "\n" not in message and str(path) in message and fragment in message
    assert "--agentsnap-force" in message or "Upgrade agentsnap" in message
    with pytest.raises(SnapshotFormatError):
        store.save(Snapshot(name=NAME, trace=[]))
    assert path.read_bytes() == before
    # a store opened with force: a warning, treated as missing, then overwritten
    forced = SnapshotStore(tmp_path, force=True)
    with pytest.warns(UserWarning, match="--agentsnap-force"):
        assert forced.load(NAME) is None
    forced.save(Snapshot(name=NAME, trace=[], output="fresh"))
    assert SnapshotStore(tmp_path).load(NAME).output == "fresh"  # type: ignore[union-attr]


@pytest.mark.parametrize("innermost", ["", "1", "{}", '{"a": [1]}'])
def test_a_file_nested_160_levels_loads_and_161_is_refused(tmp_path: Path, innermost: str) -> None:
    # the object is level 1, each list one more, ``innermost`` (a dict: one more) at the bottom
    extra = 1 if innermost.startswith("{") else 0
    extra += 1 if "[1]" in innermost else 0
    store = SnapshotStore(tmp_path)
    path = store.path_for(NAME)
    for lists, refused in ((159 - extra, False), (160 - extra, True)):
        nest = "[" * lists + innermost + "]" * lists
        _write(
            path, '{"version": "2.0", "name": "' + NAME + '", "trace": [], "output": ' + nest + "}"
        )
        if not refused:
            loaded = store.load(NAME)
            assert loaded is not None and loaded.output == json.loads(nest)
            continue
        with pytest.raises(SnapshotFormatError) as err:
            store.load(NAME)
        assert str(err.value).startswith(
            f"agentsnap: corrupt snapshot file at {path}: nested deeper than 160 levels."
        )


# --------------------------------------------------------------------------- broken files: pytest


AGENT_TEST = """
import openai
from tests.fake_provider import FakeOpenAI, text_reply

def _ask():
    with FakeOpenAI() as fake:
        fake.respond_with(lambda body: text_reply("fresh answer"))
        client = openai.OpenAI(base_url=fake.base_url, api_key="sk-test", max_retries=0)
        return client.chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}]).choices[0].message.content

"""
PYTEST_KINDS = ("truncated", "conflict", "version", "name")


#: the child pytest loads agentsnap's plugin only (PYTEST_DISABLE_PLUGIN_AUTOLOAD): a quicker start
ONLY_AGENTSNAP = ("-p", "agentsnap.pytest_plugin", "-p", "no:cacheprovider")


def _agent_project(pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch) -> dict[str, Path]:
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    body = AGENT_TEST + "".join(
        f"def test_{kind}():\n    assert _ask() == 'fresh answer'\n\n" for kind in PYTEST_KINDS
    )
    pytester.makepyfile(test_agent=body)
    store = SnapshotStore(pytester.path / "__agent_snapshots__")
    paths = {}
    for kind in PYTEST_KINDS:
        node = f"test_agent.py::test_{kind}"
        content = BROKEN[kind][0].replace(NAME, node)
        paths[kind] = store.path_for(node)
        _write(paths[kind], content)
    return paths


@pytest.mark.parametrize(
    "mode", ["--agentsnap-replay", "--agentsnap-record"]
)  # live loads and saves as record does
def test_pytest_reports_each_broken_file_on_one_line_and_keeps_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    paths = _agent_project(pytester, monkeypatch)
    before = {k: p.read_bytes() for k, p in paths.items()}
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP, mode)
    result.assert_outcomes(failed=len(PYTEST_KINDS))
    out = result.stdout.str()
    for kind, path in paths.items():
        _one_line_error(out, path, BROKEN[kind][1].replace(NAME, f"test_agent.py::test_{kind}"))
        assert path.read_bytes() == before[kind], f"{kind}: overwritten without --agentsnap-force"
    assert "--agentsnap-force" in out


def test_pytest_force_replaces_broken_files_with_the_new_recording(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    paths = _agent_project(pytester, monkeypatch)
    result = pytester.runpytest_subprocess(
        *ONLY_AGENTSNAP, "--agentsnap-record", "--agentsnap-force", "-W", "ignore::UserWarning"
    )
    result.assert_outcomes(passed=len(PYTEST_KINDS))
    for kind, path in paths.items():
        snap = SnapshotStore.read_file(path, expected_name=f"test_agent.py::test_{kind}")
        assert snap.approved and snap.output == "fresh answer"


# --------------------------------------------------------------------------- broken files: the CLI


def _cli(*args: str) -> Any:
    return CliRunner().invoke(app, list(args), catch_exceptions=False)


def _broken_store(tmp_path: Path, kind: str) -> tuple[Path, Path, bytes]:
    root = tmp_path / "snaps"
    store = SnapshotStore(root)
    path = store.path_for(NAME)
    _write(path, BROKEN[kind][0])
    last = Snapshot(
        name=NAME,
        trace=[{"type": "tool_call", "name": "t", "args": {}, "result": "r"}],
        output="last run",
    )
    store.save_last_run(last)
    return root, path, path.read_bytes()


@pytest.mark.parametrize("kind", ["truncated", "conflict", "version", "name"])
def test_cli_reports_broken_files_on_one_line_and_writes_only_with_force(
    tmp_path: Path, kind: str
) -> None:
    root, path, before = _broken_store(tmp_path, kind)
    fragment = BROKEN[kind][1]
    for args in (["show", NAME], ["diff", NAME], ["approve", NAME], ["update", NAME]):
        result = _cli(*args, "--dir", str(root))
        assert result.exit_code in (1, 2), (args, result.output)
        _one_line_error(result.output, path, fragment)
        assert path.read_bytes() == before
    assert (
        "agentsnap update" in _cli("update", NAME, "--dir", str(root)).output
        and "--force" in _cli("update", NAME, "--dir", str(root)).output
    )
    forced = _cli("update", NAME, "--force", "--dir", str(root))
    assert forced.exit_code == 0, forced.output
    snap = SnapshotStore.read_file(path, expected_name=NAME)
    assert snap.approved and snap.output == "last run"


def test_cli_record_from_trace_overwrites_a_broken_file_only_with_force(tmp_path: Path) -> None:
    root, path, before = _broken_store(tmp_path, "truncated")
    trace = tmp_path / "trace.json"
    trace.write_text(
        json.dumps(
            {
                "messages": [
                    {"role": "user", "content": "hi"},
                    {"role": "assistant", "content": "hello"},
                ]
            }
        ),
        encoding="utf-8",
    )
    refused = _cli(
        "record", "--from-trace", str(trace), "--name", NAME, "--update", "--dir", str(root)
    )
    assert refused.exit_code == 1
    _one_line_error(refused.output, path, "corrupt snapshot file", "--force")
    assert path.read_bytes() == before
    done = _cli(
        "record",
        "--from-trace",
        str(trace),
        "--name",
        NAME,
        "--update",
        "--force",
        "--dir",
        str(root),
    )
    assert done.exit_code == 0, done.output
    assert SnapshotStore.read_file(path, expected_name=NAME).approved
    usage = _cli("record", "--force", "--", "pytest")
    assert usage.exit_code == 2 and "--force goes with" in usage.output


def test_cli_record_passes_force_to_pytest(monkeypatch: pytest.MonkeyPatch) -> None:
    from agentsnap.cli import _subprocess

    seen: list[list[str]] = []

    def fake_run(cmd: list[str], env: Any) -> int:
        seen.append(cmd)
        return 0

    monkeypatch.setattr(_subprocess, "run_child", fake_run)
    result = _cli("record", "tests/test_x.py", "--force", "--", "-k", "paris")
    assert result.exit_code == 0, result.output
    assert seen[0][-4:] == ["--agentsnap-record", "--agentsnap-force", "-k", "paris"]


@pytest.mark.parametrize("target", ["not-a-snapshot", "valid-golden", "dangling"])
@pytest.mark.parametrize("force", [False, True], ids=["without-force", "force"])
def test_pytest_record_force_replaces_a_symlinked_golden_and_never_writes_through_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, force: bool, target: str
) -> None:
    """A golden that is a symbolic link (to a file outside the snapshot folder: a JSON file
    that is no snapshot, a valid golden of this very test, or nothing at all) is refused;
    with --agentsnap-force the link itself is replaced by a regular file holding the new
    recording, and the file it pointed to keeps its bytes (a dangling link's target is
    never created)."""
    monkeypatch.setenv("PYTHONPATH", str(REPO))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    node = "test_agent.py::test_linked"
    pytester.makepyfile(
        test_agent=AGENT_TEST + "def test_linked():\n    assert _ask() == 'fresh answer'\n"
    )
    outside = pytester.path / "outside" / "precious.json"
    outside.parent.mkdir()
    if target == "not-a-snapshot":
        outside.write_text('{"keep": "these bytes"}\n', encoding="utf-8")
    elif target == "valid-golden":
        SnapshotStore(outside.parent).save(
            Snapshot(name=node, trace=[], output="old answer", approved=True)
        )
        SnapshotStore(outside.parent).path_for(node).rename(outside)
    before = outside.read_bytes() if outside.exists() else None
    golden = SnapshotStore(pytester.path / "__agent_snapshots__").path_for(node)
    golden.parent.mkdir()
    golden.symlink_to(outside)
    flags = ("--agentsnap-record", "--agentsnap-force") if force else ("--agentsnap-record",)
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP, *flags, "-W", "ignore::UserWarning")
    assert (outside.read_bytes() if outside.exists() else None) == before
    assert sorted(p.name for p in outside.parent.iterdir()) == (
        [] if target == "dangling" else [outside.name]
    )
    if not force:
        result.assert_outcomes(failed=1)
        assert f"{golden} is a symbolic link (to {outside})" in result.stdout.str()
        assert golden.is_symlink()
        return
    result.assert_outcomes(passed=1)
    assert not golden.is_symlink() and golden.is_file()
    snap = SnapshotStore.read_file(golden, expected_name=node)
    assert snap.approved and snap.output == "fresh answer"
    folder = golden.parent
    assert [p.name for p in folder.iterdir() if p.is_file()] == [golden.name]
    assert not any(p.is_symlink() for p in folder.rglob("*"))


def test_cli_update_force_replaces_a_symlinked_golden_and_never_writes_through_it(
    tmp_path: Path,
) -> None:
    """`agentsnap update NAME` over a golden that is a symbolic link fails naming the link
    and `--force`; with `--force` the link is replaced by a regular file holding the last
    run, and the file it pointed to keeps its bytes."""
    root = tmp_path / "snaps"
    store = SnapshotStore(root)
    store.save_last_run(Snapshot(name=NAME, trace=[], output="last run"))
    outside = tmp_path / "outside.json"
    outside.write_text('{"keep": "these bytes"}\n', encoding="utf-8")
    golden = store.root / preferred_filename(NAME)
    golden.symlink_to(outside)

    refused = _cli("update", NAME, "--dir", str(root))
    assert refused.exit_code == 1
    _one_line_error(refused.output, golden, f"is a symbolic link (to {outside})", "--force")
    assert golden.is_symlink()

    forced = _cli("update", NAME, "--force", "--dir", str(root))
    assert forced.exit_code == 0, forced.output
    assert outside.read_text(encoding="utf-8") == '{"keep": "these bytes"}\n'
    assert not golden.is_symlink() and golden.is_file()
    snap = SnapshotStore.read_file(golden, expected_name=NAME)
    assert snap.approved and snap.output == "last run"
    assert not store.last_run_path(NAME).exists()
