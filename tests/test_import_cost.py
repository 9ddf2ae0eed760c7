"""Plugin load must not import any SDK, httpx, httpx2 or wrapt; hooks must not either."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HEAVY = (
    "openai",
    "anthropic",
    "groq",
    "mistralai",
    "cohere",
    "google.genai",
    "httpx",
    "httpx2",
    "langgraph",
    "numpy",
    "onnxruntime",
    "torch",
    "deepdiff",
    "aiohttp",
    "requests",
    "urllib3",
    "dspy",
)


#: what loading the plugin loads of agentsnap: the entry module, its private package, two light leaves
PLUGIN_MODULES = [
    "agentsnap",
    "agentsnap._pytest",
    "agentsnap._pytest.fixture",
    "agentsnap._pytest.markers",
    "agentsnap._pytest.session",
    "agentsnap._pytest.summary",
    "agentsnap._version",
    "agentsnap.config",
    "agentsnap.exceptions",
    "agentsnap.knob_rules",  # the rule each knob's value must pass (the knobs' field metadata)
    "agentsnap.knobs",  # the comparison knobs the settings and the marker read
    "agentsnap.pytest_plugin",
]


def _loaded_after(code: str) -> set[str]:
    out = subprocess.run(
        [sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sorted(sys.modules)))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return {m for m in out if m.split(".")[0] in {h.split(".")[0] for h in HEAVY} or m in HEAVY}


def test_plugin_import_loads_no_sdk_and_no_http_library() -> None:
    assert _loaded_after("import agentsnap.pytest_plugin") == set()


def test_importtime_report_names_none_of_them() -> None:
    err = subprocess.run(
        [sys.executable, "-X", "importtime", "-c", "import agentsnap.pytest_plugin"],
        capture_output=True,
        text=True,
        check=True,
    ).stderr
    names = {line.rsplit("|", 1)[-1].strip() for line in err.splitlines() if "|" in line}
    assert not {
        n for n in names if n.split(".")[0] in {"openai", "httpx", "httpx2", "anthropic", "wrapt"}
    }


def test_installing_the_hooks_imports_nothing_until_the_sdk_is_imported() -> None:
    code = "from agentsnap.capture.hooks import install\ninstall()\ninstall()"
    assert _loaded_after(code) == set()


def test_hooks_wrap_send_once_even_when_installed_twice_and_httpx_is_aliased() -> None:
    code = (
        "from agentsnap.capture.hooks import install\n"
        "install(); install()\n"
        "import httpx, httpx2\n"
        "install()\n"
        "from agentsnap.capture.transports.httpx import patch\n"
        "patch(httpx2); patch(httpx)\n"
        "def depth(f):\n"
        "    n = 0\n"
        "    while hasattr(f, '__wrapped__'):\n"
        "        n += 1; f = f.__wrapped__\n"
        "    return n\n"
        "print('DEPTHS', [depth(c.__dict__['send']) for c in (httpx.Client, httpx.AsyncClient, httpx2.Client, httpx2.AsyncClient)])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "DEPTHS [1, 1, 1, 1]" in out


def test_plugin_import_leaves_the_recording_machinery_unloaded() -> None:
    """Every pytest run imports the plugin; the recorder, store, capture and diff machinery load on first use
    (of the diff package only the comparison knobs, a standard-library dataclass, load with the settings)."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import agentsnap.pytest_plugin, sys\nprint(' '.join(sorted(m for m in sys.modules if m.startswith('agentsnap'))))",
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == PLUGIN_MODULES


def test_lazy_public_names_resolve_to_their_objects() -> None:
    code = (
        "import agentsnap\n"
        "from agentsnap import AgentRecorder, AgentAsserter, Snapshot, SnapshotStore, check, extract_tool_calls, DiffReport\n"
        "from agentsnap.recorder import AgentRecorder as R\n"
        "from agentsnap.checking import check as C\n"
        "assert AgentRecorder is R and check is C and agentsnap.check is C\n"
        "assert set(agentsnap.__all__) <= set(dir(agentsnap))\n"
        "print('OK', SnapshotStore.__module__, DiffReport.__module__)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["OK", "agentsnap.storage.store", "agentsnap.diff.report"]


def _modules_printed(project: Path, tag: str, *args: str) -> list[str]:
    """Run pytest in ``project``; the module names its output prints after ``tag``."""
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "pytest",
            "-q",
            *args,
            "-p",
            "no:randomly",
            "-p",
            "no:cacheprovider",
        ],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return next(line for line in out.splitlines() if tag in line).split(tag, 1)[1].split()


def test_a_run_without_agentsnap_flags_loads_only_the_plugin(tmp_path) -> None:
    (tmp_path / "test_e.py").write_text(
        "import sys\n"
        "def test_a():\n    pass\n"
        "def test_z():\n"
        "    print('LOADED', ' '.join(sorted(m for m in sys.modules if m.startswith('agentsnap'))))\n",
        encoding="utf-8",
    )
    assert _modules_printed(tmp_path, "LOADED", "-s") == PLUGIN_MODULES


def test_transport_hooks_wrap_each_seam_once_after_a_late_import() -> None:
    """http.client, urllib3 (requests) and aiohttp are hooked when imported, after install(), once."""
    code = (
        "from agentsnap.capture.hooks import install\n"
        "from agentsnap.capture.hooks import ensure_patched\n"
        "install(); install()\n"
        "import http.client, requests, urllib3, aiohttp\n"
        "ensure_patched(); ensure_patched()\n"
        "def depth(f):\n"
        "    n = 0\n"
        "    while hasattr(f, '__wrapped__'):\n"
        "        n += 1; f = f.__wrapped__\n"
        "    return n\n"
        "seams = [http.client.HTTPConnection.__dict__['request'], http.client.HTTPConnection.__dict__['getresponse'],\n"
        "         urllib3.HTTPConnectionPool.__dict__['urlopen'], aiohttp.ClientSession.__dict__['_request']]\n"
        "print('DEPTHS', [depth(f) for f in seams])\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert "DEPTHS [1, 1, 1, 1]" in out


def test_a_whole_run_without_a_snapshot_folder_loads_nothing_more(tmp_path: Path) -> None:
    """The end of a run (orphan record, forced mode undone, xdist hand-over) imports nothing
    when there is nothing to write: no snapshot folder, no recorder used, not an xdist worker."""
    (tmp_path / "conftest.py").write_text(
        "import atexit, sys\n"
        "atexit.register(lambda: print('AT_EXIT', ' '.join(sorted(m for m in sys.modules if m.startswith('agentsnap')))))\n",
        encoding="utf-8",
    )
    (tmp_path / "test_plain.py").write_text(
        "def test_plain():\n    assert 1 + 1 == 2\n", encoding="utf-8"
    )
    assert _modules_printed(tmp_path, "AT_EXIT") == PLUGIN_MODULES


def test_agentsnap_modules_loaded_in_a_test_are_not_assert_rewritten(tmp_path: Path) -> None:
    """pytest rewrites a plugin distribution's modules; the plugin takes agentsnap off that list
    when it loads, so a module it loads later comes from Python's own loader (and its bytecode
    cache), while the test file and a package of the user's marked for rewriting still get
    pytest's rewritten asserts (the modules the plugin loaded first were rewritten before)."""
    (tmp_path / "helpers").mkdir()
    (tmp_path / "helpers" / "__init__.py").write_text(
        "def same(a, b):\n    assert a == b\n", encoding="utf-8"
    )
    (tmp_path / "conftest.py").write_text(
        "import pytest\npytest.register_assert_rewrite('helpers')\n", encoding="utf-8"
    )
    (tmp_path / "test_loaders.py").write_text(
        "import sys\n"
        "import agentsnap.storage.store, helpers\n"
        "def test_loaders():\n"
        "    names = ('agentsnap.storage.store', 'agentsnap.pytest_plugin', 'helpers', __name__)\n"
        "    print('LOADERS', ' '.join(type(sys.modules[n].__loader__).__name__ for n in names))\n",
        encoding="utf-8",
    )
    assert _modules_printed(tmp_path, "LOADERS", "-s") == [
        "SourceFileLoader",
        "AssertionRewritingHook",
        "AssertionRewritingHook",
        "AssertionRewritingHook",
    ]


#: a comparison's modules a pair of identical runs without tool calls never needs: the fact
#: hints' word tables (~8 ms) and rapidfuzz (~4 ms), imported by a comparison that uses them
_COMPARISON_EXTRAS = (
    "agentsnap.diff.meaning.hints",
    "agentsnap.diff.meaning.phrasing",
    "rapidfuzz",
)

_COMPARE_CODE = """
import json, sys
from agentsnap.diff import compute_diff
golden, new, g_tools, n_tools, extras = json.loads(sys.argv[1])
def snap(answer, tools):
    steps = [{"type": "llm_call", "model": "m", "response": answer, "messages": []}]
    steps += [{"type": "tool_call", "name": t, "args": {}} for t in tools]
    return {"trace": steps, "output": answer}
report = compute_diff(snap(golden, g_tools), snap(new, n_tools))
print("PASSED", report.passed)
print(" ".join(["LOADED", *(m for m in extras if m in sys.modules)]))
"""


def _compare_in_a_fresh_process(
    golden: str, new: str, g_tools: tuple[str, ...] = (), n_tools: tuple[str, ...] = ()
) -> tuple[str, str]:
    args = json.dumps([golden, new, g_tools, n_tools, _COMPARISON_EXTRAS])
    out = subprocess.run(
        [sys.executable, "-c", _COMPARE_CODE, args], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    return out[0], out[1]


def test_an_identical_run_without_tool_calls_imports_neither_the_fact_hints_nor_rapidfuzz() -> None:
    passed, loaded = _compare_in_a_fresh_process("It is sunny in Paris.", "It is sunny in Paris.")
    assert passed == "PASSED True"
    assert loaded == "LOADED"


def test_a_run_that_differs_imports_what_it_needs_and_is_judged_with_it() -> None:
    # differing texts: the fact hints (a number changed); differing tool calls: rapidfuzz
    passed, loaded = _compare_in_a_fresh_process(
        "It is 21 degrees in Paris.", "It is 25 degrees in Paris.", ("weather",), ("search",)
    )
    assert passed == "PASSED False"
    assert loaded == "LOADED " + " ".join(_COMPARISON_EXTRAS)


def test_the_scrubbing_shapes_compile_on_first_use_once_and_as_written() -> None:
    """The built-in shapes (``rules._TOKEN_RE`` ...) are compiled when first read, not when the
    scrubbing package loads (a clean replayed run reads none); each read gives the one pattern,
    the expression and flags of its source; an unknown name is still an AttributeError."""
    code = (
        "import re, agentsnap.storage.scrub as s\n"
        "from agentsnap.storage.scrub import rules\n"
        "print('COMPILED', sorted(n for n in rules._SOURCES if n in vars(rules)))\n"
        "s.scrub_text('sk-proj-' + 'a1' * 12)\n"
        "for n, src in rules._SOURCES.items():\n"
        "    p = getattr(rules, n)\n"
        "    assert p is getattr(rules, n) is vars(rules)[n], n\n"
        "    assert (p.pattern, p.flags) == (src, re.compile(src).flags), n\n"
        "try:\n    rules._NO_SUCH_RE\nexcept AttributeError as exc:\n    print('MISSING', exc)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == [
        "COMPILED []",
        "MISSING module 'agentsnap.storage.scrub.rules' has no attribute '_NO_SUCH_RE'",
    ]


#: the patterns a clean replayed run never uses, compiled by a cached getter on first use
_LAZY_PATTERNS = {
    "agentsnap.diff.meaning.judge": ("_fence", "_score_line", "_reason_line"),
    "agentsnap.spec.provider_specs": ("_mcp_method",),
    "agentsnap.storage.schema": ("_at",),
    "agentsnap.storage.naming": ("_stored_name_line", "_hashed_stem", "_hashed_tail"),
    "agentsnap.storage.volatile": ("_volatile_in_chunk", "_id_in_text"),
    "agentsnap.storage.serialize": ("_address", "_non_finite"),
    "agentsnap.storage.orphans": ("_suffix",),
    "agentsnap.storage.scrub.chunks": ("_data_line",),
    "agentsnap.storage.scrub.walk": ("_string_literal",),
    "agentsnap.storage.scrub.rules": ("_path_token",),
    "agentsnap.storage.scrub.credentials": ("_surrogate",),
}


def test_patterns_a_clean_run_never_uses_are_compiled_on_first_use_once() -> None:
    code = (
        "import importlib, json, re, sys\n"
        "lazy = json.loads(sys.argv[1])\n"
        "mods = {m: importlib.import_module(m) for m in lazy}\n"
        "print('AT_IMPORT', sum(getattr(mods[m], g).cache_info().currsize for m in lazy for g in lazy[m]))\n"
        "for m, getters in lazy.items():\n"
        "    for g in getters:\n"
        "        first = getattr(mods[m], g)()\n"
        "        assert isinstance(first, re.Pattern) and getattr(mods[m], g)() is first, (m, g)\n"
        "print('AFTER', sum(getattr(mods[m], g).cache_info().currsize for m in lazy for g in lazy[m]))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, json.dumps(_LAZY_PATTERNS)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    assert out == ["AT_IMPORT", "0", "AFTER", str(sum(map(len, _LAZY_PATTERNS.values())))]


#: modules whose classes are msgspec Structs, not dataclasses: a dataclass compiles its
#: ``__init__``/``__repr__``/``__eq__``/``__hash__`` source with ``exec`` at every import
#: (the bulk of these modules' import cost, once per pytest session)
_NO_DATACLASS_CODEGEN = (
    "agentsnap.spec.provider_specs",
    "agentsnap.spec.provider_facts",
    "agentsnap.spec.frameworks",
)

_COUNT_DATACLASS_CODEGEN = """
import collections, dataclasses, importlib, json, sys
made = collections.Counter()
def _by(wrapped):
    def counting(*args, **kwargs):
        frame = sys._getframe(1)
        while frame is not None and frame.f_globals.get("__name__") == "dataclasses":
            frame = frame.f_back
        made[frame.f_globals.get("__name__") if frame is not None else None] += 1
        return wrapped(*args, **kwargs)
    return counting
if hasattr(dataclasses, "_create_fn"):  # Python < 3.13
    dataclasses._create_fn = _by(dataclasses._create_fn)
else:  # Python 3.13+: one builder adds a class's generated functions
    dataclasses._FuncBuilder.add_fns_to_class = _by(dataclasses._FuncBuilder.add_fns_to_class)
@dataclasses.dataclass(frozen=True)
class Probe:  # the counting works: this module's own dataclass is counted
    x: int
names = json.loads(sys.argv[1])
mods = [importlib.import_module(name) for name in names]
classes = [v for m in mods for v in vars(m).values() if isinstance(v, type) and v.__module__ == m.__name__]
print(json.dumps({
    "probe": made["__main__"] > 0,
    "made": {name: made[name] for name in names},
    "dataclasses": sorted(c.__qualname__ for c in classes if dataclasses.is_dataclass(c)),
}))
"""


def test_the_spec_modules_generate_no_dataclass_code_at_import() -> None:
    """The spec modules' classes are msgspec Structs (built in C): importing them runs no
    dataclass code generation (``exec`` of generated methods), which was most of their cost."""
    out = subprocess.run(
        [sys.executable, "-c", _COUNT_DATACLASS_CODEGEN, json.dumps(_NO_DATACLASS_CODEGEN)],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    assert json.loads(out) == {
        "probe": True,
        "made": dict.fromkeys(_NO_DATACLASS_CODEGEN, 0),
        "dataclasses": [],
    }
