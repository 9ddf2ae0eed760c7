"""The scrubbing rules: what is replaced by ``<redacted>``.

The built-in shapes (token prefixes, credential assignments, secret JSON keys and
query parameters, account headers) and the user's own rules (``redact`` in
``[tool.agentsnap]``: :class:`Redaction`, made current by :func:`configure`).
What the whole scrubbing layer promises is in :mod:`agentsnap.storage.scrub`.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

REDACTED = "<redacted>"

# -- token shapes -------------------------------------------------------------
_TOK = r"[A-Za-z0-9_\-]"
_TOKEN_SOURCE = (
    r"(?:sk-ant-" + _TOK + r"{8,}"
    # OpenAI (sk-proj-, sk-svcacct-, sk-admin-, legacy sk- + 48 characters) and OpenRouter
    # (sk-or-v1-); a bare "sk-" needs a digit or a long unbroken run, which keeps
    # hyphenated words such as "sk-learn-pipelines" out
    r"|sk-(?:proj|svcacct|admin|or-v1)-" + _TOK + r"{16,}"
    r"|sk-(?=" + _TOK + r"*\d)" + _TOK + r"{16,}"
    r"|sk-[A-Za-z0-9]{20,}"
    r"|AIza[0-9A-Za-z_\-]{30,}"
    r"|gsk_[A-Za-z0-9_]{16,}"
    r"|hf_[A-Za-z0-9]{30,}"
    r"|gh[pousr]_[A-Za-z0-9]{30,}"
    r"|github_pat_[A-Za-z0-9_]{30,}"
    r"|(?<![A-Z0-9])(?:AKIA|ASIA)[0-9A-Z]{16}(?![A-Z0-9])"
    r"|eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,})"
)
# a separate expression (with its own literal pre-check), so the common shapes above cost no more
_SCANNER_SOURCE = (
    # the credential kinds of a maintained scanner's rule set (detect-secrets' plugins: Slack,
    # Stripe, GitLab, npm, SendGrid, xAI), written here as shapes
    r"(?:xox[abposr]-[A-Za-z0-9\-]{10,}"
    r"|(?:sk|rk)_(?:live|test)_[A-Za-z0-9]{16,}"
    r"|glpat-[A-Za-z0-9_\-]{20,}"
    r"|npm_[A-Za-z0-9]{36}"
    r"|SG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}"
    r"|xai-[A-Za-z0-9]{32,}"
    # a PEM private key block, whole
    r"|-----BEGIN[A-Z ]{0,20} PRIVATE KEY-----[\s\S]*?-----END[A-Z ]{0,20} PRIVATE KEY-----)"
)
# "postgresql://app:PASSWORD@db.internal:5432/prod": the password of a URL's userinfo
_URL_PASSWORD_SOURCE = (
    r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://[^\s:/@\\\"'<>]{0,256}:)([^\s@/\\\"'<>]+)(@)"
)
# "aws_secret_access_key = wJalr…", "AccountKey=…" (ini, env, shell and connection-string forms)
_ASSIGN_SOURCE = (
    r"(?i)\b(aws_secret_access_key|aws_session_token|aws_security_token|secret_access_key|session_token|accountkey|sharedaccesskey)"
    r"(\\?[\"']?\s*[:=]\s*\\?[\"']?)([A-Za-z0-9/+=_\-]{12,})"
)
# a Bearer credential: 8+ token characters with a digit, or 20+ of them
_BEARER_SOURCE = r"(?i)\b(bearer)(\s+)(?:(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{8,}|[A-Za-z0-9._~+/\-]{20,})=*"
_SCHEMES = r"(?:bearer|basic|token|digest)"
# "Authorization: Basic dXNlcg==", "x-api-key=abc", '"api-key": "abc"'
_HEADER_KV_SOURCE = (
    r"(?i)\b(authorization|proxy-authorization|x-api-key|api-key|x-goog-api-key)"
    r"((?:\\?[\"'])?\s*[:=]\s*(?:\\?[\"'])?)"
    r"(" + _SCHEMES + r"\s+)?"
    r"(?!" + _SCHEMES + r"\b)([^\s\"'\\,;&}\]<>]+)"
)
_SECRET_NAMES = (
    r"password|passwd|client_secret|access_token|refresh_token|id_token|api_key|apikey|secret_key|private_key"
    r"|aws_secret_access_key|secret_access_key|secretaccesskey|aws_session_token|session_token|sessiontoken"
)
# '"password": "hunter2"' inside text (a JSON document carried as a string, e.g. tool arguments)
_JSON_KV_SOURCE = r"(?i)(\\?\")(" + _SECRET_NAMES + r")\1(\s*:\s*)(\\?\")([^\"\\]+)(\\?\")"
# "?key=…" / "&access_token=…" / "password=…" (query strings and form bodies)
_FORM_KV_SOURCE = (
    r"(?i)(?<![^?&\s])(key|api_key|apikey|api-key|access_token|refresh_token|token|client_secret|password|x-goog-api-key|x-api-key)"
    r"=([^&\s\"'#<>]+)"
)

#: the shapes' expressions by the name the scrubbing modules read them under
#: (``rules._TOKEN_RE``); each is compiled on its first read (:func:`__getattr__`) and then kept as
#: a module global: a run that never scrubs a text a shape's literal pre-check lets through (a
#: replayed run whose stored texts are clean) compiles none of them (~2.5 ms a process)
_SOURCES = {
    "_TOKEN_RE": _TOKEN_SOURCE,
    "_SCANNER_RE": _SCANNER_SOURCE,
    "_URL_PASSWORD_RE": _URL_PASSWORD_SOURCE,
    "_ASSIGN_RE": _ASSIGN_SOURCE,
    "_BEARER_RE": _BEARER_SOURCE,
    "_HEADER_KV_RE": _HEADER_KV_SOURCE,
    "_JSON_KV_RE": _JSON_KV_SOURCE,
    "_FORM_KV_RE": _FORM_KV_SOURCE,
}


def __getattr__(name: str) -> re.Pattern[str]:
    """A shape of :data:`_SOURCES`, compiled once (threads that race get the same pattern)."""
    source = _SOURCES.get(name)
    if source is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    compiled: re.Pattern[str] = globals().setdefault(name, re.compile(source))
    return compiled


_SECRET_QUERY_KEYS = frozenset(
    {
        "key",
        "api_key",
        "apikey",
        "api-key",
        "access_token",
        "refresh_token",
        "token",
        "client_secret",
        "password",
        "x-goog-api-key",
        "x-api-key",
        "sig",
        "signature",
    }
)
# JSON object keys whose value is a secret, compared lower-case without "-" and "_"
_SECRET_JSON_KEYS = frozenset(
    {
        "authorization",
        "proxyauthorization",
        "xapikey",
        "apikey",
        "xgoogapikey",
        "accesstoken",
        "refreshtoken",
        "idtoken",
        "clientsecret",
        "password",
        "passwd",
        "secretkey",
        "privatekey",
        "cookie",
        "setcookie",
        # AWS (credentials files, STS / SSO JSON: SecretAccessKey, SessionToken)
        "secretaccesskey",
        "awssecretaccesskey",
        "sessiontoken",
        "awssessiontoken",
        "securitytoken",
        "awssecuritytoken",
        "xamzsecuritytoken",
    }
)

#: response headers that carry a credential: a spec's ``"*"`` does not keep them (only a
#: glob that names them does, and then masked); globs, lower case
CREDENTIAL_HEADERS: tuple[str, ...] = (
    "x-goog-api-key",
    "authorization",
    "proxy-authorization",
    "x-api-key",
    "api-key",
    "cookie",
    "set-cookie",
)

#: response headers whose value identifies the account or carries a credential:
#: masked whenever a spec keeps them (globs, lower case). The identifying ones are kept
#: by a spec's ``"*"`` as ``<redacted>``, so a replayed response has the live key set.
ACCOUNT_HEADERS: tuple[str, ...] = (
    "openai-organization",
    "openai-project",
    "anthropic-organization-id",
    "anthropic-workspace-id",
    "x-goog-user-project",
    *CREDENTIAL_HEADERS,
)

_MAX_ROUNDS = 8


# -- user rules -----------------------------------------------------------------


@dataclass(frozen=True)
class _Step:
    kind: str  # "key", "index", "any", "desc"
    key: str = ""
    index: int = 0


@dataclass(frozen=True)
class Redaction:
    """The user's own rules (``redact`` in ``[tool.agentsnap]``), compiled.

    ``paths``: JSON paths into every stored JSON document (request and
    response bodies, tool arguments and results, a snapshot's input and
    output, and JSON text inside their strings); the value found there is
    replaced whole. ``patterns``: regular
    expressions; every match in any stored text is replaced.
    """

    paths: tuple[str, ...] = ()
    patterns: tuple[str, ...] = ()
    _compiled_paths: tuple[tuple[_Step, ...], ...] = field(default=(), repr=False, compare=False)
    _compiled_patterns: tuple[re.Pattern[str], ...] = field(default=(), repr=False, compare=False)

    @property
    def empty(self) -> bool:
        return not self.paths and not self.patterns


@functools.cache
def _path_token() -> re.Pattern[str]:
    return re.compile(
        r"\.\.([^.\[\]]+)|\.([^.\[\]]+)|\[(\*|-?\d+)\]|\[\"((?:[^\"\\]|\\.)*)\"\]|\['([^']*)'\]|\.?\*"
    )


def _parse_path(path: str) -> tuple[_Step, ...]:
    """``messages[*].content``, ``$.metadata.user``, ``..password``, ``data["a.b"]``, ``*``."""
    text = path.strip()
    if text.startswith("$"):
        text = text[1:]
    if not text:
        raise ValueError(f"empty JSON path {path!r}")
    if not text.startswith((".", "[")):
        text = "." + text
    steps: list[_Step] = []
    pos = 0
    while pos < len(text):
        m = _path_token().match(text, pos)
        if m is None or m.end() == pos:
            raise ValueError(
                f'cannot read JSON path {path!r} at {text[pos:]!r} (use a.b[0].c, a[*].b, ..name, ["key.with.dots"])'
            )
        desc, key, index, dq, sq = m.groups()
        if desc is not None:
            steps.append(_Step("desc", key=desc))
        elif key is not None:
            steps.append(_Step("any") if key == "*" else _Step("key", key=key))
        elif index is not None:
            steps.append(_Step("any") if index == "*" else _Step("index", index=int(index)))
        elif dq is not None:
            steps.append(_Step("key", key=re.sub(r"\\(.)", r"\1", dq)))
        elif sq is not None:
            steps.append(_Step("key", key=sq))
        else:  # a bare "*" / ".*"
            steps.append(_Step("any"))
        pos = m.end()
    return tuple(steps)


def parse_redact(value: object) -> Redaction:
    """Validate and compile a ``redact`` setting.

    Accepted shape (TOML)::

        redact = { paths = ["messages[*].content", "..customer_id"], patterns = ["acct_[0-9]+"] }

    Both keys are optional lists of strings; a JSON object string of the same
    shape is accepted too (pytest ini files). Raises ``ValueError`` naming the
    bad entry.
    """
    if value is None or value == "" or value == {}:
        return Redaction()
    if isinstance(value, Redaction):
        return value
    if isinstance(value, str):
        import json

        try:
            value = json.loads(value)
        except ValueError:
            raise ValueError(
                'expected a table {paths = [...], patterns = [...]} (in an ini file: JSON, {"patterns": ["acct_[0-9]+"]})'
            ) from None
    if not isinstance(value, Mapping):
        raise ValueError("expected a table {paths = [...], patterns = [...]}")
    unknown = set(value) - {"paths", "patterns"}
    if unknown:
        raise ValueError(
            f"unknown key(s) {', '.join(sorted(map(str, unknown)))}; expected paths and/or patterns"
        )
    paths = _strings(value.get("paths", []), "paths")
    patterns = _strings(value.get("patterns", []), "patterns")
    compiled_paths = []
    for p in paths:
        compiled_paths.append(_parse_path(p))
    compiled_patterns = []
    for p in patterns:
        try:
            compiled_patterns.append(re.compile(p))
        except re.error as exc:
            raise ValueError(f"patterns: {p!r} is not a valid regular expression: {exc}") from None
    return Redaction(tuple(paths), tuple(patterns), tuple(compiled_paths), tuple(compiled_patterns))


def _strings(value: object, key: str) -> list[str]:
    if (
        isinstance(value, str)
        or not isinstance(value, (list, tuple))
        or not all(isinstance(v, str) for v in value)
    ):
        raise ValueError(f"{key}: expected a list of strings")
    return list(value)


_active = Redaction()


def configure(redact: object) -> Redaction:
    """Make ``redact`` (a ``redact`` setting, a :class:`Redaction` or None) the
    process-wide user rules. :func:`agentsnap.config.apply` calls this, so the
    rules of the configuration applied last hold. Returns the compiled rules."""
    global _active
    _active = parse_redact(redact)
    return _active


def active() -> Redaction:
    """The user rules in force."""
    return _active
