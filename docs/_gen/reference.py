"""Generate the reference pages of the docs from the code, so they cannot drift from it.

* :func:`config_reference` — every ``[tool.agentsnap]`` key (from the
  ``Settings`` dataclass: type, default, and the ``doc`` of its field
  metadata), its pytest ini option, environment variable and flag; every
  ``--agentsnap-*`` flag (from the plugin's ``pytest_addoption``); every
  environment variable agentsnap reads.
* :func:`cli_reference` — ``--help`` of the ``agentsnap`` command and of each
  sub-command, as click prints it.
* :func:`providers_reference` — the provider specs in ``patches/*.toml``.

The mkdocs hook (``docs/_gen/hooks.py``) puts them into the pages at build
time; ``python docs/_gen/reference.py config|cli|providers`` prints one.
``tests/test_docs_reference.py`` checks that every key, flag, ini option,
environment variable and command appears.
"""

from __future__ import annotations

import dataclasses
import inspect
import json
import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
MARKERS = {
    "config": "<!-- generated: config reference -->",
    "cli": "<!-- generated: cli reference -->",
    "providers": "<!-- generated: provider specs -->",
    "compare": "<!-- generated: compare options -->",
}

#: environment variables agentsnap reads that are not a setting of their own
OTHER_ENV = {
    "AGENTSNAP_RECORD": "Set to a true value (`1`, `true`, `yes`): the run records, like `--agentsnap-record`. "
    "`agentsnap record -- CMD` sets it for the command it runs.",
    "AGENTSNAP_SHARD": "Names this run as one shard of a suite split across machines, like `--agentsnap-shard NAME` "
    "(the flag wins): `G/N` for group G of N, or any name that tells the shards apart. See the CI recipe.",
    "AGENTSNAP_JUDGE_API_KEY": "API key of the LLM judge. When unset, the key variable matching `judge_base_url` is used "
    "(table below); with no key at all the judge is off and the offline meaning check scores texts.",
    "AGENTSNAP_EMBEDDING_THREADS": "Threads of the embedding model (a whole number >= 1). Default: 1 under pytest-xdist, "
    "else up to 2.",
    "AGENTSNAP_EMBEDDING_MODEL": "Path of another ONNX model file for the `onnx` backend, instead of the packaged one.",
    "AGENTSNAP_EMBEDDING_MODEL_SHA256": "Expected sha256 of `AGENTSNAP_EMBEDDING_MODEL`; when set, the file is verified before use.",
    "AGENTSNAP_EMBEDDING_TOKENIZER": "Path of a `tokenizer.json` to use instead of the packaged one.",
}


def _settings_source() -> str:
    from agentsnap import config

    return inspect.getsource(config.Settings)


def _comment_docs() -> dict[str, str]:
    """``#:`` comments above the fields, for a field that has no ``doc`` metadata yet."""
    docs: dict[str, str] = {}
    pending: list[str] = []
    for line in _settings_source().splitlines():
        stripped = line.strip()
        if stripped.startswith("#:"):
            pending.append(stripped[2:].strip())
            continue
        match = re.match(r"([a-z_][a-z0-9_]*)\s*:", stripped)
        if match and pending:
            docs[match.group(1)] = " ".join(pending).replace("``", "`")
        if not stripped.startswith("#"):
            pending = []
    return docs


def _toml(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, list):
        return "[" + ", ".join(_toml(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{k} = {_toml(v)}" for k, v in value.items()) + "}"
    return repr(value)


def _type_name(annotation: Any) -> str:
    text = (
        annotation
        if isinstance(annotation, str)
        else getattr(annotation, "__name__", str(annotation))
    )
    return {"str": "string", "bool": "boolean", "float": "number", "int": "whole number"}.get(
        text, text
    )


def settings_fields() -> list[dict[str, Any]]:
    """One dict per ``[tool.agentsnap]`` key: name, type, default, doc, ini, env, flags."""
    from agentsnap import config

    comments = _comment_docs()
    env_of = {key: var for var, key in config.ENV_VARS.items()}
    flags = plugin_options()
    out = []
    for f in dataclasses.fields(config.Settings):
        if f.name not in config.SETTING_KEYS:
            continue
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:  # type: ignore[misc]
            default = f.default_factory()  # type: ignore[misc]
        else:  # pragma: no cover
            default = None
        doc = f.metadata.get("doc") or comments.get(f.name) or ""
        out.append(
            {
                "name": f.name,
                "type": _type_name(f.type),
                "default": default,
                "doc": doc,
                "ini": f"agentsnap_{f.name}",
                "env": env_of.get(f.name),
                "flags": [o["flag"] for o in flags if o["key"] == f.name],
            }
        )
    return out


class _Recorder:
    """Stands in for pytest's parser and option group: keeps what the plugin adds."""

    def __init__(self) -> None:
        self.options: list[tuple[tuple[str, ...], dict[str, Any]]] = []
        self.inis: list[tuple[str, str, dict[str, Any]]] = []

    def getgroup(self, *args: Any, **kwargs: Any) -> _Recorder:
        return self

    def addoption(self, *names: str, **kwargs: Any) -> None:
        self.options.append((names, kwargs))

    def addini(self, name: str, help: str, **kwargs: Any) -> None:
        self.inis.append((name, help, kwargs))


def _recorded() -> _Recorder:
    from agentsnap import pytest_plugin

    recorder = _Recorder()
    pytest_plugin.pytest_addoption(recorder)  # type: ignore[arg-type]
    return recorder


def plugin_options() -> list[dict[str, Any]]:
    """Every ``--agentsnap-*`` flag: flag, metavar, help, and the setting it sets (``key``, ``value``)."""
    from agentsnap import config

    out = []
    for names, kwargs in _recorded().options:
        dest = str(kwargs.get("dest") or names[0].lstrip("-").replace("-", "_"))
        suffix = dest.removeprefix("agentsnap_")
        key, value = None, None
        if suffix in config.SETTING_KEYS:
            key = suffix
            value = True if kwargs.get("action") == "store_true" else None
        elif suffix in config.MODES:
            key, value = "mode", suffix
        out.append(
            {
                "flag": names[0],
                "metavar": kwargs.get("metavar"),
                "help": str(kwargs.get("help") or ""),
                "key": key,
                "value": value,
            }
        )
    return out


def ini_options() -> list[str]:
    return [name for name, _, _ in _recorded().inis]


def environment_variables() -> list[tuple[str, str]]:
    """``(variable, what it does)`` for every variable agentsnap reads, settings first."""
    from agentsnap import config

    rows = [(var, f"sets `{key}`") for var, key in config.ENV_VARS.items()]
    rows += list(OTHER_ENV.items())
    return rows


def source_env_vars() -> set[str]:
    """Every ``AGENTSNAP_*`` variable name written in agentsnap's source (what the reference must cover)."""
    found: set[str] = set()
    for path in (ROOT / "src" / "agentsnap").rglob("*.py"):
        for name in re.findall(
            r"\bAGENTSNAP_[A-Z0-9_]*[A-Z0-9]\b", path.read_text(encoding="utf-8")
        ):
            found.add(name)
    return found


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_reference() -> str:
    from agentsnap import config

    fields = settings_fields()
    lines = [
        "| key | type | default | environment variable | flag |",
        "|---|---|---|---|---|",
    ]
    for f in fields:
        env = f"`{f['env']}`" if f["env"] else "—"
        flags = ", ".join(f"`{x}`" for x in f["flags"]) or "—"
        lines.append(
            f"| [`{f['name']}`](#{f['name']}) | {f['type']} | `{_cell(_toml(f['default']))}` | {env} | {flags} |"
        )
    lines += ["", "## Keys", ""]
    for f in fields:
        lines += [f"### `{f['name']}` {{#{f['name']}}}", "", f["doc"] or "(not documented yet)", ""]
        facts = [
            f"**Default:** `{_cell(_toml(f['default']))}`",
            f"**Type:** {f['type']}",
            f"**ini option:** `{f['ini']}`",
        ]
        if f["env"]:
            facts.append(f"**Environment:** `{f['env']}`")
        if f["flags"]:
            facts.append("**Flag:** " + ", ".join(f"`{x}`" for x in f["flags"]))
        lines += [
            " · ".join(facts),
            "",
            "```toml",
            "[tool.agentsnap]",
            f"{f['name']} = {_toml(f['default'])}",
            "```",
            "",
        ]
    lines += ["## Command-line flags", "", "| flag | sets | help |", "|---|---|---|"]
    for o in plugin_options():
        flag = o["flag"] + (f" {o['metavar']}" if o["metavar"] else "")
        if o["key"] == "mode":
            sets = f'`mode = "{o["value"]}"`'
        elif o["key"]:
            sets = f"`{o['key']}`"
        else:
            sets = "—"
        lines.append(f"| `{flag}` | {sets} | {_cell(o['help'])} |")
    lines += [
        "",
        "## pytest ini options",
        "",
        (
            "Every key is also an ini option named `agentsnap_` + the key, in `pytest.ini`, `tox.ini`, `setup.cfg` "
            'or `[tool.pytest.ini_options]`. Values are strings there (`"0.95"`, `"true"`); a list is comma- '
            "or newline-separated."
        ),
        "",
        ", ".join(f"`{name}`" for name in ini_options()),
        "",
        "## Environment variables",
        "",
        "| variable | effect |",
        "|---|---|",
    ]
    for var, what in environment_variables():
        lines.append(f"| `{var}` | {_cell(what)} |")
    markers = ", ".join(f"`{m}`" for m in config._CI_MARKERS)
    lines += [
        "",
        "### CI detection",
        "",
        "CI mode is on when `CI` is set to anything other than an empty string, "
        + ", ".join(f"`{v}`" for v in config._FALSY if v)
        + f" (any case), or, with `CI` unset or empty, when one of {markers} is set. "
        "An explicit falsy `CI` turns CI mode off even where those are set.",
        "",
        "### The judge's API key",
        "",
        (
            f"`{config.JUDGE_API_KEY_ENV}` wins. Otherwise the first row whose host fragment is part of the host of "
            "`judge_base_url` names the variable that holds the key:"
        ),
        "",
        "| host contains | key variable |",
        "|---|---|",
    ]
    for fragment, var in config.PROVIDER_KEY_MAP:
        lines.append(f"| `{fragment}` | `{var}` |")
    return "\n".join(lines) + "\n"


def cli_reference(width: int = 100) -> str:
    """``--help`` of ``agentsnap`` and of each sub-command, as the typer/click application prints it."""
    import typer

    from agentsnap.cli import app

    root = typer.main.get_command(app)
    make = root.context_class  # click's Context (typer may ship its own copy of click)
    root_ctx = make(root, info_name="agentsnap", max_content_width=width, terminal_width=width)
    parts = ["## `agentsnap`", "", "```text", root.get_help(root_ctx).rstrip(), "```", ""]
    for name in root.list_commands(root_ctx):  # type: ignore[attr-defined]
        command = root.get_command(root_ctx, name)  # type: ignore[attr-defined]
        assert command is not None
        ctx = command.context_class(
            command, info_name=name, parent=root_ctx, max_content_width=width, terminal_width=width
        )
        parts += [
            f"## `agentsnap {name}`",
            "",
            "```text",
            command.get_help(ctx).rstrip(),
            "```",
            "",
        ]
    return "\n".join(parts)


def cli_commands() -> list[str]:
    import typer

    from agentsnap.cli import app

    root = typer.main.get_command(app)
    return list(root.list_commands(root.context_class(root, info_name="agentsnap")))  # type: ignore[attr-defined]


def provider_specs() -> list[dict[str, Any]]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # pragma: no cover
        import tomli as tomllib

    specs = []
    for path in sorted((ROOT / "patches").glob("*.toml")):
        data = tomllib.loads(path.read_text(encoding="utf-8"))
        provider = data.get("provider") or {}
        match = data.get("match") or {}
        specs.append(
            {
                "file": f"patches/{path.name}",
                "name": provider.get("name", path.stem),
                "package": provider.get("package", provider.get("name", path.stem)),
                "versions": provider.get("versions", ""),
                "api_key_env": list(provider.get("api_key_env") or []),
                "extra": (data.get("sdk") or {}).get("extra"),
                "oldest": (data.get("sdk") or {}).get("oldest"),
                "adapter": (data.get("adapter") or {}).get("class"),
                "hosts": list(match.get("hosts") or []),
                "user_agents": list(match.get("user_agent_prefixes") or []),
                "headers": dict(match.get("headers") or {}),
                "wire": [dict(r) for r in match.get("wire") or []],
                "endpoints": [
                    (e.get("path_suffix"), e.get("codec")) for e in data.get("endpoints") or []
                ],
            }
        )
    return specs


def providers_reference() -> str:
    lines = [
        "| provider | SDK package | versions | install | LLM endpoints (path ends with → codec) | recognised by | API key variable | adapter |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for s in provider_specs():
        endpoints = "<br>".join(f"`{p}` → `{c}`" for p, c in s["endpoints"])
        if s["hosts"]:
            by = "host " + ", ".join(f"`{h}`" for h in s["hosts"])
        elif s["user_agents"]:
            by = "User-Agent " + ", ".join(f"`{u}`" for u in s["user_agents"])
            if s["headers"]:
                by += ", or header " + ", ".join(f"`{k}: {v}`" for k, v in s["headers"].items())
        else:
            by = "the SDK's own HTTP client"
        for rule in s["wire"]:
            shape = f"{rule.get('method', 'POST')} `…{rule['path_suffix']}`"
            if rule.get("headers"):
                shape += " with " + ", ".join(f"`{h}`" for h in rule["headers"])
            if rule.get("body_keys"):
                shape += ", body " + ", ".join(f"`{k}`" for k in rule["body_keys"])
            if rule.get("hosts"):
                shape += " on " + ", ".join(f"`{h}`" for h in rule["hosts"])
            by += "<br>or the call's shape: " + shape
        keys = ", ".join(f"`{k}`" for k in s["api_key_env"]) or "—"
        versions = f"`{s['versions']}`"
        if s["oldest"]:
            versions += f" (tested: {s['oldest']} and the newest)"
        install = f"`agentsnap[{s['extra']}]`" if s["extra"] else "—"
        adapter = f"`{s['adapter']}`" if s["adapter"] else "—"
        lines.append(
            f"| **{s['name']}** (`{s['file']}`) | `{s['package']}` | {versions} | {install} | {endpoints} | {by} | {keys} | {adapter} |"
        )
    return "\n".join(lines) + "\n"


def compare_options_reference() -> str:
    """The comparison knobs (``agentsnap.diff.options.CompareOptions``) and where each is set."""
    from agentsnap.diff.options import option_fields

    lines = [
        "| option | default | `[tool.agentsnap]` | `@pytest.mark.agentsnap` | `AgentAsserter` | what it does |",
        "|---|---|---|---|---|---|",
    ]
    for f in option_fields():
        default = "none" if f.default is None else f"`{_cell(_toml(f.default))}`"
        marks = ["yes" if flag else "—" for flag in (f.setting, f.marker, f.asserter)]
        lines.append(f"| `{f.name}` | {default} | {' | '.join(marks)} | {_cell(f.doc)} |")
    return "\n".join(lines) + "\n"


GENERATORS = {
    "config": config_reference,
    "cli": cli_reference,
    "providers": providers_reference,
    "compare": compare_options_reference,
}


def fill(markdown: str) -> str:
    """``markdown`` with each generated-section marker replaced by its text."""
    for name, marker in MARKERS.items():
        if marker in markdown:
            markdown = markdown.replace(marker, GENERATORS[name]())
    return markdown


if __name__ == "__main__":  # python docs/_gen/reference.py config|cli|providers
    sys.stdout.write(GENERATORS[sys.argv[1] if len(sys.argv) > 1 else "config"]())
