"""One :class:`Settings` object from every configuration source.

Precedence, lowest to highest:

1. built-in defaults;
2. ``[tool.agentsnap]`` in the nearest ``pyproject.toml`` (searched upward from
   the pytest rootdir, or from the current directory for the CLI and the
   Python API);
3. pytest ini options (``agentsnap_semantic_threshold = "0.95"`` …);
4. environment variables (``AGENTSNAP_MODE``, ``AGENTSNAP_RECORD``,
   ``AGENTSNAP_JUDGE_*`` …) — so ``agentsnap record`` can steer a pytest
   subprocess;
5. command-line flags (``--agentsnap-replay`` …).

A ``mode`` chosen anywhere means what its flag means: it implies
``instrument = true`` (every test that calls an LLM is snapshotted, replayed or
recorded), unless ``instrument`` itself is set at the same or a higher level
(``mode = "replay"`` with ``instrument = false`` in one table: only the
``snapshot`` fixture's blocks replay). So ``--agentsnap-replay``,
``AGENTSNAP_MODE=replay``, ``agentsnap_mode = replay`` and
``[tool.agentsnap] mode = "replay"`` run the same way.

``CI`` detection: CI mode is on when ``CI`` is set to anything but an empty
string, ``0``, ``false`` or ``no`` (any case), or when one of
``GITHUB_ACTIONS``, ``GITLAB_CI``, ``BUILDKITE``, ``CIRCLECI``, ``JENKINS_URL``,
``TF_BUILD`` is non-empty. An explicit ``CI=false`` / ``CI=0`` / ``CI=no``
turns CI mode off even where those markers are set.
"""

from __future__ import annotations

import dataclasses
import functools
import os
import re
import sys
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .knob_rules import json_text
from .knobs import (
    ARG_MODES,
    TRAJECTORY_MODES,
    CompareOptions,
    check_budgets,
    declared_knobs,
    setting_field,
)

__all__ = [
    "EMBEDDING_BACKENDS",
    "ENV_VARS",
    "JUDGE_API_KEY_ENV",
    "MODES",
    "PROVIDER_KEY_MAP",
    "SETTING_KEYS",
    "SNAPSHOT_FIXTURE_OWNERS",
    "Settings",
    "find_pyproject",
    "is_ci",
    "load",
    "resolve_judge_api_key",
]

MODES = ("live", "replay", "record")
#: values of ``embedding_backend`` (same as agentsnap.diff.meaning.backends.BACKEND_NAMES)
EMBEDDING_BACKENDS = ("auto", "onnx", "sentence-transformers", "lexical")
#: values of ``snapshot_fixture``: who owns the ``snapshot`` fixture name
SNAPSHOT_FIXTURE_OWNERS = ("auto", "agentsnap", "off")
#: values of ``websocket_timing``: how replay paces a WebSocket server's recorded messages
WEBSOCKET_TIMINGS = ("causal", "recorded")
#: the keys whose value is one word of a closed list
_CHOICES: dict[str, tuple[str, ...]] = {
    "mode": MODES,
    "embedding_backend": EMBEDDING_BACKENDS,
    "snapshot_fixture": SNAPSHOT_FIXTURE_OWNERS,
    "websocket_timing": WEBSOCKET_TIMINGS,
    "judge_mode": ("confirm", "score"),
    "validate_tool_calls": ("auto", "on", "off"),
    "trajectory": TRAJECTORY_MODES,
    "tool_args": ARG_MODES,
}
_FALSY = ("", "0", "false", "no", "off")
_CI_MARKERS = ("GITHUB_ACTIONS", "GITLAB_CI", "BUILDKITE", "CIRCLECI", "JENKINS_URL", "TF_BUILD")
#: why an empty ``snapshot_dir`` is refused: ``Path("")`` is the folder it is relative to
EMPTY_SNAPSHOT_DIR = 'expected a folder path, not an empty one ("." is the project\'s own folder)'


def _truthy(value: str | None) -> bool:
    return value is not None and value.strip().lower() not in _FALSY


def is_ci(env: Mapping[str, str] | None = None) -> bool:
    """Whether agentsnap runs in CI mode (rule in the module doc)."""
    env = os.environ if env is None else env
    ci = env.get("CI")
    if ci is not None and ci.strip() != "":
        return _truthy(ci)
    return any(env.get(marker) for marker in _CI_MARKERS)


@dataclass
class Settings:
    """Resolved agentsnap configuration. Every field is a ``[tool.agentsnap]`` key."""

    snapshot_dir: str = field(
        default="__agent_snapshots__",
        metadata={
            "doc": (
                "Folder of the snapshot files. A relative path is relative to the folder of the pyproject.toml "
                '(else the pytest rootdir, or the current directory for the CLI); `"."` is that folder, an empty '
                "value an error (an empty `AGENTSNAP_SNAPSHOT_DIR` counts as unset, as every agentsnap variable)."
            )
        },
    )
    mode: str = field(
        default="live",
        metadata={
            "doc": (
                "`live`: call the real APIs and compare with the goldens; `replay`: serve the recorded responses, offline, "
                "and compare; `record`: call the real APIs and overwrite the goldens (approved)."
            )
        },
    )
    instrument: bool = field(
        default=False,
        metadata={
            "doc": (
                "Snapshot every test that calls an LLM, with no code changes. A `mode` set anywhere (flag, "
                "`AGENTSNAP_MODE`, ini option, this table) implies it, unless `instrument` is set at the same or a "
                "higher level."
            )
        },
    )
    snapshot_fixture: str = field(
        default="auto",
        metadata={
            "doc": (
                "Who owns the `snapshot` fixture name: `auto` (agentsnap, unless syrupy is installed: then syrupy keeps it), "
                "`agentsnap` (agentsnap's even next to syrupy), `off` (only `agent_snapshot`)."
            )
        },
    )
    # the comparison knobs: default and doc from agentsnap.knobs.CompareOptions
    semantic_threshold: float = setting_field("semantic_threshold")
    llm_threshold: float = setting_field("llm_threshold")
    structural_tolerance: int = setting_field("structural_tolerance")
    trajectory: str = setting_field("trajectory")
    tool_args: str = setting_field("tool_args")
    tools: dict[str, dict[str, Any]] = setting_field("tools")  # noqa: RUF009  # a field(default_factory=dict)
    before: list[list[str]] = setting_field("before")  # noqa: RUF009  # a field(default_factory=list)
    lexical_semantic_threshold: float = setting_field("lexical_semantic_threshold")
    lexical_llm_threshold: float = setting_field("lexical_llm_threshold")
    strict_facts: bool = setting_field("strict_facts")
    validate_tool_calls: str = setting_field("validate_tool_calls")
    budgets: dict[str, float] = setting_field("budgets")  # noqa: RUF009  # a field(default_factory=dict)
    embedding_backend: str = setting_field("embedding_backend")
    judge_mode: str = setting_field("judge_mode")
    ignored_fields: list[str] = setting_field("ignored_fields")  # noqa: RUF009  # a field(default_factory=list)
    judge_model: str = field(
        default="openai/gpt-4o-mini",
        metadata={
            "doc": (
                "Model the LLM judge asks to score differing texts (a model name of an OpenAI-compatible chat API)."
            )
        },
    )
    judge_base_url: str = field(
        default="https://openrouter.ai/api/v1",
        metadata={
            "doc": (
                "Base URL of the judge's OpenAI-compatible API; its host also picks the API key variable."
            )
        },
    )
    allow_pending: bool = field(
        default=False,
        metadata={
            "doc": (
                "In CI, let missing or pending snapshots warn instead of failing (approved ones still fail on drift)."
            )
        },
    )
    replay_strict: bool = field(
        default=False,
        metadata={
            "doc": (
                "In replay, serve only requests that match a recording exactly; otherwise a changed request gets the next "
                "unplayed recording of its endpoint and the test fails with an `llm_requests` report."
            )
        },
    )
    min_pass_rate: float = field(
        default=1.0,
        metadata={
            "doc": (
                "A statistics run (`--agentsnap-runs N`, or the marker's `runs`) passes a test when at least this share "
                "of its live runs passes. 1.0: every run, the bar of a single live run; lower it per test, knowingly."
            )
        },
    )
    websocket_timing: str = field(
        default="causal",
        metadata={
            "doc": (
                "Replay of a WebSocket connection: `causal` sends the server's recorded messages as soon as the client "
                "message they followed arrives; `recorded` also waits out the recorded delays."
            )
        },
    )
    #: your own secrets to keep out of snapshots, on top of the built-in rules
    #: (agentsnap.storage.scrub): ``{paths = ["messages[*].content", "..customer_id"], patterns = ["acct_[0-9]+"]}``
    redact: dict[str, list[str]] = field(default_factory=dict)
    #: USD per 1M tokens by model, over agentsnap's table (agentsnap.spec.prices): ``{"m": {input = 1.0, output = 4.0}}``
    prices: dict[str, dict[str, float]] = field(default_factory=dict)
    #: hosts reachable besides loopback while a test must run offline (replay, or CI
    #: with no snapshot): names, ``*.globs``, IP addresses, CIDR networks
    allowed_hosts: list[str] = field(default_factory=list)
    #: ``--agentsnap-force``: an unreadable snapshot file counts as missing and is
    #: overwritten (a flag only, not a config key)
    force: bool = False
    #: CI mode (see module doc); not a config key, detected from the environment
    ci: bool = False
    #: whether ``snapshot_dir`` was set anywhere (config, ini, env, flag) rather than left at
    #: its default; not a config key. Unset, the ``snapshot`` fixture also finds agentsnap
    #: 0.5.1's folder next to a test's nearest ``conftest.py`` (:func:`legacy_snapshot_dir`)
    snapshot_dir_configured: bool = False
    #: the folder relative paths are resolved against (the pyproject's folder or the rootdir)
    base_dir: Path = field(default_factory=Path.cwd)
    #: ``[tool.agentsnap]`` values of the knobs checks declare in their own modules
    #: (:func:`agentsnap.knobs.declare`), checked by the knob; not a key itself
    declared: dict[str, Any] = field(default_factory=dict)

    def knob(self, name: str) -> Any:
        """The setting ``name``: a field, or a declared knob's value (its default when unset)."""
        if name in self.declared:
            return self.declared[name]
        value = getattr(self, name, _UNSET)  # (hasattr and getattr in one look)
        if value is not _UNSET:
            return value
        return next(k.default for k in declared_knobs() if k.name == name)

    @property
    def snapshot_path(self) -> Path:
        """``snapshot_dir`` as an absolute path."""
        p = Path(self.snapshot_dir)
        return p if p.is_absolute() else (self.base_dir / p)


#: :meth:`Settings.knob`'s "no such field"
_UNSET: Any = object()

#: keys users may set in [tool.agentsnap] (and as ``agentsnap_<key>`` ini options); the other
#: fields are worked out by the loader (``ci``, ``base_dir``, ``snapshot_dir_configured``) or flags (``force``)
SETTING_KEYS: tuple[str, ...] = tuple(
    f.name
    for f in dataclasses.fields(Settings)
    if f.name not in ("ci", "base_dir", "force", "snapshot_dir_configured", "declared")
)
_KEYS = set(SETTING_KEYS)
# keys of agentsnap 0.5.1 configs that are accepted and ignored
_LEGACY_KEYS = {"backend"}

ENV_VARS = {
    "AGENTSNAP_MODE": "mode",
    "AGENTSNAP_SNAPSHOT_DIR": "snapshot_dir",
    "AGENTSNAP_JUDGE_MODEL": "judge_model",
    "AGENTSNAP_JUDGE_BASE_URL": "judge_base_url",
    "AGENTSNAP_SEMANTIC_THRESHOLD": "semantic_threshold",
    "AGENTSNAP_LLM_THRESHOLD": "llm_threshold",
    "AGENTSNAP_STRUCTURAL_TOLERANCE": "structural_tolerance",
    "AGENTSNAP_LEXICAL_SEMANTIC_THRESHOLD": "lexical_semantic_threshold",
    "AGENTSNAP_LEXICAL_LLM_THRESHOLD": "lexical_llm_threshold",
    "AGENTSNAP_STRICT_FACTS": "strict_facts",
    "AGENTSNAP_EMBEDDING_BACKEND": "embedding_backend",
}


#: the explicit judge key; always wins over the provider keys
JUDGE_API_KEY_ENV = "AGENTSNAP_JUDGE_API_KEY"

if TYPE_CHECKING:
    #: the one table of provider keys for the LLM judge, ``((host fragment, variable), ...)``:
    #: when ``judge_base_url``'s host contains the fragment, that environment variable holds
    #: the key (first match wins). Declared by each provider's spec (``patches/*.toml``
    #: ``[judge]``: add a provider there) and read on first use (module ``__getattr__``),
    #: so importing this module parses no spec. ``_PROVIDER_KEY_MAP``: the same table
    #: under the name the configuration docs use.
    PROVIDER_KEY_MAP: tuple[tuple[str, str], ...]
    _PROVIDER_KEY_MAP: tuple[tuple[str, str], ...]


def _declared_setting(key: str) -> Any:
    """The knob a check declared under ``key`` that may be a setting, else None."""
    return next((k for k in declared_knobs() if k.name == key and k.setting), None)


def __getattr__(name: str) -> Any:
    if name in ("PROVIDER_KEY_MAP", "_PROVIDER_KEY_MAP"):
        from .spec.provider_facts import judge_keys

        return judge_keys()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _key_map() -> tuple[tuple[str, str], ...]:
    # a table assigned to the module (a test, a user adding a provider) wins over the specs'
    assigned: tuple[tuple[str, str], ...] | None = globals().get("PROVIDER_KEY_MAP")
    if assigned is not None:
        return assigned
    from .spec.provider_facts import judge_keys

    return judge_keys()


def resolve_judge_api_key(
    base_url: str, env: Mapping[str, str] | None = None, *, ignore: tuple[str, ...] = ()
) -> tuple[str, str] | None:
    """The LLM judge's API key for ``base_url``, as ``(key, variable name)``, or None.

    Order: ``AGENTSNAP_JUDGE_API_KEY`` when set and non-empty; else the variable
    :data:`PROVIDER_KEY_MAP` pairs with the first fragment contained in ``base_url``'s host
    (``https://openrouter.ai/api/v1`` → ``OPENROUTER_API_KEY``). A URL matching no entry, or
    whose variable is unset or empty, gives None. Values listed in ``ignore`` count as unset
    (the pytest plugin's replay placeholder keys). Reads ``env`` (default ``os.environ``);
    never raises.
    """
    env = os.environ if env is None else env

    def usable(var: str) -> str | None:
        value = (env.get(var) or "").strip()
        return value if value and value not in ignore else None

    explicit = usable(JUDGE_API_KEY_ENV)
    if explicit:
        return explicit, JUDGE_API_KEY_ENV
    from urllib.parse import urlsplit

    try:
        host = (urlsplit(base_url).hostname or "").lower()
    except ValueError:
        host = ""
    for fragment, var in _key_map():
        if fragment in host:
            key = usable(var)
            return (key, var) if key else None
    return None


def _resolve_api_key(base_url: str, env: Mapping[str, str] | None = None) -> str | None:
    """Just the key of :func:`resolve_judge_api_key` (the name the configuration docs use)."""
    found = resolve_judge_api_key(base_url, env)
    return found[0] if found else None


def find_pyproject(start: str | os.PathLike[str] | None = None) -> Path | None:
    """The nearest ``pyproject.toml`` at or above ``start`` (default: cwd)."""
    here = Path(start or Path.cwd()).resolve()
    if here.is_file():
        here = here.parent
    for folder in (here, *here.parents):
        candidate = folder / "pyproject.toml"
        if candidate.is_file():
            return candidate
    return None


#: spellings a boolean setting accepts in a string (env vars, ini options, quoted TOML)
_BOOL_WORDS = {
    "true": True,
    "yes": True,
    "on": True,
    "1": True,
    "false": False,
    "no": False,
    "off": False,
    "0": False,
}
#: what each kind of value must be, as the error says it
_EXPECTED = {
    bool: "true or false (in a string also yes/no, on/off, 1/0)",
    int: "a whole number >= 0",
    float: "a number from 0 to 1",
    list: "a list of strings",
    str: "a string",
}


@functools.lru_cache(maxsize=1)
def _schema() -> Any:
    """The msgspec schema of ``[tool.agentsnap]`` (built on first use: msgspec loads only when settings are read).

    One field per key of :class:`Settings` a user may set, each optional (``UNSET`` when
    absent): booleans, whole numbers >= 0 for tolerances, numbers in [0, 1] for thresholds, the
    keys of ``_CHOICES`` from their closed lists, lists of non-empty strings.
    """
    from typing import Annotated, Literal

    import msgspec

    unset = msgspec.UnsetType
    unit = Annotated[float, msgspec.Meta(ge=0.0, le=1.0)]
    count = Annotated[int, msgspec.Meta(ge=0)]
    word = Annotated[str, msgspec.Meta(min_length=1)]
    annotations: dict[str, Any] = {}
    for f in dataclasses.fields(Settings):
        if f.name not in _KEYS and f.name != "force":  # force: a flag only, checked the same way
            continue
        default = f.default if f.default is not dataclasses.MISSING else None
        kind: Any
        if f.name in _CHOICES:
            kind = Literal[_CHOICES[f.name]]
        elif f.name in ("ignored_fields", "allowed_hosts"):
            kind = list[word]
        elif f.name in _TABLE_KEYS:
            kind = dict[str, Any]  # its own rules: _TABLE_KEYS
        elif f.name in ("tools", "before"):
            kind = Any  # their knobs' own rules (agentsnap.knobs)
        elif isinstance(default, bool):
            kind = bool
        elif isinstance(default, float):
            kind = unit
        elif isinstance(default, int):
            kind = count
        else:
            kind = str
        annotations[f.name] = kind | unset
    namespace = {"__annotations__": annotations, **{name: msgspec.UNSET for name in annotations}}
    return type("AgentsnapConfig", (msgspec.Struct,), namespace, forbid_unknown_fields=True)


def _kind(key: str) -> type:
    target = {f.name: f for f in dataclasses.fields(Settings)}[key]
    default = target.default if target.default is not dataclasses.MISSING else None
    if target.default_factory is not dataclasses.MISSING:
        return dict if key in _TABLE_KEYS else list
    return type(default) if default is not None else str


def _prepare(key: str, value: Any) -> Any:
    """Spellings the schema cannot know: ``"yes"`` for a boolean, ``"a, b"`` for a list, ``"Replay"`` for a mode."""
    kind = _kind(key)
    if isinstance(value, str):
        if kind is bool:
            return _BOOL_WORDS.get(value.strip().lower(), value)
        if kind is list:
            return [v.strip() for v in value.replace("\n", ",").split(",") if v.strip()]
        if key in _CHOICES:
            return value.strip().lower()
    if isinstance(value, (list, tuple)) and kind is list:
        return [v.strip() if isinstance(v, str) else v for v in value]
    return value


def _coerce(key: str, value: Any, source: str) -> Any:
    """``value`` checked and converted for setting ``key``; ``ValueError`` naming key, value and source otherwise.

    The types come from :func:`_schema` (msgspec): a string from an env var
    or an ini option may spell a number (``"0.9"``, ``"2"``); a boolean is
    ``true``/``false`` or, in a string, ``yes``/``no``, ``on``/``off``,
    ``1``/``0`` — ``"nope"`` is an error, not "true".
    """
    import msgspec

    try:
        if key in ("budgets", "prices"):  # a table, or its JSON text in an ini option
            return _TABLE_KEYS[key](json_text(value, key) if isinstance(value, str) else value)
        if key in ("tools", "before"):  # a table / a list of pairs: the knob's own rule
            knob = next(f for f in dataclasses.fields(CompareOptions) if f.name == key)
            return knob.metadata["rule"](key, value)
        if key == "redact":  # its own schema: a table, or its JSON text in an ini option / env var
            from .storage.scrub import parse_redact

            rules = parse_redact(value)
            return (
                {"paths": list(rules.paths), "patterns": list(rules.patterns)}
                if not rules.empty
                else {}
            )
        checked = msgspec.convert({key: _prepare(key, value)}, _schema(), strict=False)
        if key == "snapshot_dir" and not checked.snapshot_dir.strip():
            raise ValueError(EMPTY_SNAPSHOT_DIR)
        return getattr(checked, key)
    except msgspec.ValidationError as exc:
        detail = re.sub(r" - at `\$[^`]*`$", "", str(exc))
        kind = _kind(key)
        if key in _CHOICES:
            expected = "one of " + ", ".join(_CHOICES[key])
        elif key == "allowed_hosts":
            expected = "a list of host names, IP addresses or CIDR networks"
        elif key == "redact":
            expected = 'a table {paths = ["..."], patterns = ["..."]}'
        else:
            expected = _EXPECTED.get(kind, "a valid value")
        raise ValueError(
            f"agentsnap: bad value {value!r} for {key!r} in {source}: expected {expected} ({detail})"
        ) from None
    except (TypeError, ValueError) as exc:
        raise ValueError(f"agentsnap: bad value {value!r} for {key!r} in {source}: {exc}") from None


def _prices(value: Any) -> Any:
    from .spec.prices import parse_prices

    return dict(value) if parse_prices(value) is not None else {}  # parse_prices raises


#: the settings whose value is a table, each checked by its own rule
_TABLE_KEYS: dict[str, Callable[[Any], Any]] = {
    "redact": dict,
    "budgets": check_budgets,
    "prices": _prices,
}


def _suggest(key: str) -> str:
    """`` (did you mean 'x'?)`` for the known key closest to an unknown one, else ``""``."""
    from rapidfuzz import process

    best = process.extractOne(key, sorted(_KEYS), score_cutoff=75)
    return f" (did you mean {best[0]!r}?)" if best else ""


def legacy_snapshot_dir(
    test_file: str | os.PathLike[str], rootdir: str | os.PathLike[str] | None = None
) -> Path | None:
    """agentsnap 0.5.1's snapshot folder of a test file, if it exists: ``__agent_snapshots__``
    next to the nearest ``conftest.py`` at or above the test's folder (not above ``rootdir``).

    None when there is no such ``conftest.py`` or the folder beside it does not exist
    (then the configured ``snapshot_dir`` is used, as for every new project).
    """
    start = Path(test_file).resolve().parent
    stop = Path(rootdir).resolve() if rootdir is not None else None
    for folder in (start, *start.parents):
        if (folder / "conftest.py").is_file():
            candidate = folder / "__agent_snapshots__"
            return candidate if candidate.is_dir() else None
        if stop is not None and folder == stop:
            break
    return None


#: pyproject path -> ((mtime_ns, size), its [tool.agentsnap] table or None): a pytest run
#: loads the settings twice (before the conftests, to guard a replayed run, and at configure)
_TABLES: dict[Path, tuple[tuple[int, int], dict[str, Any] | None]] = {}


def _toml_loads(text: str) -> dict[str, Any]:
    """``tomllib.loads`` (``tomli`` before 3.11), imported on first use: pytest imports it anyway
    when the run has a pyproject.toml, and a script importing agentsnap may never need it."""
    if sys.version_info >= (3, 11):  # pragma: no cover
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib
    data: dict[str, Any] = tomllib.loads(text)
    return data


def _agentsnap_table(pyproject: Path) -> dict[str, Any] | None:
    """``[tool.agentsnap]`` of ``pyproject`` (None: no such table), parsed once per file version.

    Each call returns its own copy, so no two loads share a list. Raises ``ValueError``
    naming the file when it cannot be read or is not TOML.
    """
    try:
        stat = pyproject.stat()
        stamp = (stat.st_mtime_ns, stat.st_size)
        cached = _TABLES.get(pyproject)
        if cached is None or cached[0] != stamp:
            data = _toml_loads(pyproject.read_text(encoding="utf-8"))
            tool = data.get("tool")
            table = tool.get("agentsnap") if isinstance(tool, dict) else None
            if table is not None and not isinstance(table, dict):
                raise ValueError(
                    f"tool.agentsnap must be a table ([tool.agentsnap]), got {table!r}"
                )
            cached = (stamp, table)
            _TABLES[pyproject] = cached
    except (OSError, ValueError) as exc:
        raise ValueError(f"agentsnap: cannot read {pyproject}: {exc}") from None
    import copy

    return copy.deepcopy(cached[1])


def load(
    start: str | os.PathLike[str] | None = None,
    *,
    ini: Callable[[str], Any] | None = None,
    env: Mapping[str, str] | None = None,
    overrides: Mapping[str, Any] | None = None,
) -> Settings:
    """Resolve the settings (see module doc for precedence).

    ``start``: where to look for ``pyproject.toml``. ``ini``: a getter for pytest ini values
    (``config.getini``) returning "" / None when unset. ``overrides``: values from flags. Raises
    ``ValueError`` naming the key and the source for a value of the wrong type (or an empty
    ``snapshot_dir``); unknown keys warn.
    """
    env = os.environ if env is None else env
    settings = Settings()
    pyproject = find_pyproject(start)
    here = Path(start).resolve() if start else Path.cwd()
    settings.base_dir = pyproject.parent if pyproject is not None else here
    table = _agentsnap_table(pyproject) if pyproject is not None else None
    #: key -> the level (module doc: 2 table, 3 ini, 4 env, 5 flags) of the source that set it last
    set_at: dict[str, int] = {}
    if table is not None:
        for key, value in table.items():
            if key in _LEGACY_KEYS:
                continue
            knob = None if key in _KEYS else _declared_setting(key)
            if knob is not None:
                try:
                    settings.declared[key] = knob.validate(value)
                except (TypeError, ValueError) as exc:
                    raise ValueError(f"agentsnap: [tool.agentsnap] of {pyproject}: {exc}") from None
                continue
            if key not in _KEYS:
                warnings.warn(
                    f"agentsnap: unknown key {key!r} in [tool.agentsnap] of {pyproject}{_suggest(key)}; ignored. "
                    f"Known keys: {', '.join(sorted(_KEYS))}",
                    stacklevel=2,
                )
                continue
            setattr(settings, key, _coerce(key, value, f"[tool.agentsnap] of {pyproject}"))
            set_at[key] = 2
    if ini is not None:
        for key in sorted(_KEYS):
            try:
                value = ini(f"agentsnap_{key}")
            except ValueError:
                continue
            if value not in (None, "", []):
                setattr(settings, key, _coerce(key, value, f"pytest ini option agentsnap_{key}"))
                set_at[key] = 3
    for var, key in ENV_VARS.items():
        if env.get(var):
            setattr(settings, key, _coerce(key, env[var], f"environment variable {var}"))
            set_at[key] = 4
    if _truthy(env.get("AGENTSNAP_RECORD")):
        settings.mode = "record"
        set_at["mode"] = 4
    for key, value in (overrides or {}).items():
        if value is not None:
            setattr(settings, key, _coerce(key, value, "the command line"))
            set_at[key] = 5
    if set_at.get("mode", 0) > set_at.get("instrument", 0):
        settings.instrument = True  # a chosen mode means what its flag means (module doc)
    settings.ci = is_ci(env)
    settings.snapshot_dir_configured = "snapshot_dir" in set_at
    # checked here, so a bad value is the loader's ValueError; made current only by apply()
    if settings.allowed_hosts:
        from .capture.guard import parse_hosts

        parse_hosts(settings.allowed_hosts)
    if settings.redact:
        from .storage.scrub import parse_redact

        parse_redact(settings.redact)
    return settings


def apply(settings: Settings) -> Settings:
    """Make ``settings``' process-wide parts current, and return ``settings``.

    Four things are read process-wide rather than passed down: the socket
    guard's ``allowed_hosts`` (:mod:`agentsnap.capture.guard`), the
    scrubber's ``redact`` rules (:mod:`agentsnap.storage.scrub`), the ``prices``
    (:mod:`agentsnap.spec.prices`) and the
    ``websocket_timing`` of replayed connections (:mod:`agentsnap.capture.websocket.fake`). :func:`load` only
    reads and checks them; a run applies them where it starts: the pytest
    session, :class:`~agentsnap.AgentRecorder` / :class:`~agentsnap.AgentAsserter`,
    :func:`agentsnap.check` and the CLI. A module not imported yet already
    holds the defaults, so settings without rules import neither. Raises
    ``ValueError`` for a value :func:`load` would refuse.
    """
    if settings.allowed_hosts or "agentsnap.capture.guard" in sys.modules:
        from .capture import guard

        guard.configure(settings.allowed_hosts)
    if settings.redact or "agentsnap.storage.scrub" in sys.modules:
        # not imported yet and no rules: its defaults already are these settings, and
        # compiling its patterns is left to the first scrub (pytest start-up stays light)
        from .storage.scrub import configure as configure_redaction

        configure_redaction(settings.redact)
    if settings.prices or "agentsnap.spec.prices" in sys.modules:
        from .spec import prices

        prices.configure(settings.prices)
    if settings.websocket_timing != "causal" or "agentsnap.capture.websocket.fake" in sys.modules:
        from .capture.websocket import fake

        fake.TIMING = settings.websocket_timing
    return settings
