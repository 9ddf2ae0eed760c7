"""Secret scrubbing for everything agentsnap stores.

Request headers are never stored at all (they carry API keys). Everything
else that is stored — URL queries, request and response bodies, streamed
chunks, kept response headers, tool arguments and results, a snapshot's input
and output — goes through this module:

* at capture time (:mod:`agentsnap.capture.request`), so the replay key of a
  request is computed from the scrubbed request, exactly as it will be stored,
  and a scrubbed recording still matches the live request it came from;
* again when a snapshot is built and when it is saved (idempotent, so a second
  pass changes nothing), which covers tool calls reported by adapters and
  snapshots built through the Python API.

It never runs on load: a stored snapshot is served as it is.

What is replaced by ``<redacted>``:

* every credential a request of this process carried (remembered by
  :func:`remember_credentials`, which the send wrappers call with each
  request's headers and URL before anything of it is stored), wherever its
  value appears, in each form :func:`secret_forms` lists (plain,
  JSON-escaped, URL-encoded, base64 at any alignment): one Aho-Corasick pass
  (``ahocorasick-rs``) over the text for all of them at once;
* the shapes of other credentials — URL passwords (``scheme://user:PASSWORD@``),
  AWS secret keys and session tokens (``aws_secret_access_key = …``,
  ``"SecretAccessKey"`` / ``"SessionToken"`` JSON keys), and the credential
  kinds of detect-secrets' plugin set (Slack, Stripe, GitLab, npm, SendGrid,
  PEM private keys), written here as expressions: detect-secrets itself scans
  line by line with every plugin plus entropy checks, far too slow to run on
  every request, and it would bring its own dependencies;
* token shapes, wherever they appear in text: OpenAI ``sk-…`` / ``sk-proj-…``,
  Anthropic ``sk-ant-…``, Google ``AIza…``, Groq ``gsk_…``, Hugging Face
  ``hf_…``, GitHub ``ghp_…`` and friends, AWS access key ids, JWTs, and the
  credential after ``Bearer``;
* the value after a credential header name written out in text
  (``Authorization: Basic …``, ``x-api-key: …``, ``api-key=…``,
  ``x-goog-api-key: …``), after a secret JSON key inside a JSON string
  (``"password": "…"``, ``"client_secret": "…"``, ``"api_key": "…"``) and
  after a secret query or form parameter (``?key=…``, ``&access_token=…``);
* the value of a secret key in a JSON object (``password``, ``api_key``,
  ``client_secret``, ``access_token``, ``authorization`` … compared without
  case, ``-`` or ``_``);
* URL query parameters named ``key``, ``api_key``, ``apikey``, ``api-key``,
  ``access_token``, ``token`` …, and ``user:password@`` in a URL;
* the value of a kept response header that identifies the account
  (:data:`ACCOUNT_HEADERS`, plus a spec's ``[response] mask_headers``);
  request ids are kept (not secrets; the SDKs' ``_request_id`` reads them);
* whatever the user's ``redact`` setting names (:func:`configure`);
* in a streamed response, any of the above sent in pieces across events (the
  deltas of one field joined first, :func:`scrub_chunks`).

Bytes that are not text (uploads, non-UTF-8 bodies, bytes in tool values) are
scrubbed in place by :func:`scrub_bytes` (same length, ``*``) before they are
stored as base64 envelopes or side files. Not scrubbed: a snapshot's ``name``
(the test's node id, by which the file is found).

Idempotence: a placeholder is never matched again — every text rule runs on
the pieces between existing placeholders, to a fixed point — so
``scrub(scrub(x)) == scrub(x)`` for every rule, the user's included.
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from .wire import StoredExchange

__all__ = [
    "ACCOUNT_HEADERS",
    "CREDENTIAL_HEADERS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "Redaction",
    "active",
    "configure",
    "forget_secrets",
    "mask_header",
    "parse_redact",
    "remember_credentials",
    "remember_secret",
    "remembered",
    "scrub_bytes",
    "scrub_chunks",
    "scrub_json",
    "scrub_snapshot",
    "scrub_text",
    "scrub_url",
    "scrub_value",
    "secret_forms",
]

REDACTED = "<redacted>"

# -- token shapes -------------------------------------------------------------
_TOK = r"[A-Za-z0-9_\-]"
_TOKEN_RE = re.compile(
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
_SCANNER_RE = re.compile(
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
_URL_PASSWORD_RE = re.compile(
    r"(?i)\b([a-z][a-z0-9+.\-]{1,20}://[^\s:/@\\\"'<>]{0,256}:)([^\s@/\\\"'<>]+)(@)"
)
# "aws_secret_access_key = wJalr…", "AccountKey=…" (ini, env, shell and connection-string forms)
_ASSIGN_RE = re.compile(
    r"(?i)\b(aws_secret_access_key|aws_session_token|aws_security_token|secret_access_key|session_token|accountkey|sharedaccesskey)"
    r"(\\?[\"']?\s*[:=]\s*\\?[\"']?)([A-Za-z0-9/+=_\-]{12,})"
)
# a Bearer credential: 8+ token characters with a digit, or 20+ of them
_BEARER_RE = re.compile(
    r"(?i)\b(bearer)(\s+)(?:(?=[A-Za-z0-9._~+/\-]*\d)[A-Za-z0-9._~+/\-]{8,}|[A-Za-z0-9._~+/\-]{20,})=*"
)
_SCHEMES = r"(?:bearer|basic|token|digest)"
# "Authorization: Basic dXNlcg==", "x-api-key=abc", '"api-key": "abc"'
_HEADER_KV_RE = re.compile(
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
_JSON_KV_RE = re.compile(r"(?i)(\\?\")(" + _SECRET_NAMES + r")\1(\s*:\s*)(\\?\")([^\"\\]+)(\\?\")")
# "?key=…" / "&access_token=…" / "password=…" (query strings and form bodies)
_FORM_KV_RE = re.compile(
    r"(?i)(?<![^?&\s])(key|api_key|apikey|api-key|access_token|refresh_token|token|client_secret|password|x-goog-api-key|x-api-key)"
    r"=([^&\s\"'#<>]+)"
)

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


_PATH_TOKEN = re.compile(
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
        m = _PATH_TOKEN.match(text, pos)
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


def parse_redact(value: Any) -> Redaction:
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


def _strings(value: Any, key: str) -> list[str]:
    if (
        isinstance(value, str)
        or not isinstance(value, (list, tuple))
        or not all(isinstance(v, str) for v in value)
    ):
        raise ValueError(f"{key}: expected a list of strings")
    return list(value)


_active = Redaction()


def configure(redact: Any) -> Redaction:
    """Make ``redact`` (a ``redact`` setting, a :class:`Redaction` or None) the
    process-wide user rules. :func:`agentsnap.config.apply` calls this, so the
    rules of the configuration applied last hold. Returns the compiled rules."""
    global _active
    _active = parse_redact(redact)
    return _active


def active() -> Redaction:
    """The user rules in force."""
    return _active


# -- remembered credentials (scrub by value) ----------------------------------------
#
# A key with no recognisable shape (Azure OpenAI's 32 hex digits, Mistral's 32
# alphanumerics, Cohere's 40) is still known to agentsnap: the client sent it. Every
# credential a request carried is remembered for the rest of the process and removed
# wherever its value appears, in the forms text carries it in. The search is one pass
# over the text for all known forms at once: an Aho-Corasick automaton
# (ahocorasick-rs, leftmost-longest), or, where that wheel is missing, one combined
# regular expression of the escaped literals.

#: a remembered value is at least this long (shorter ones would also match ordinary text)
MIN_SECRET_LENGTH = 12

# request headers whose value is a credential (lower case); also any name holding one of _CRED_PARTS
_CRED_HEADERS = frozenset(
    {"authorization", "proxy-authorization", "x-api-key", "api-key", "x-goog-api-key", "cookie"}
)
_CRED_PARTS = ("api-key", "apikey", "api_key", "token", "secret", "password", "auth")
_SCHEME_PREFIX = re.compile(r"(?i)^\s*(?:bearer|basic|token|digest|key|apikey|api-key)\s+")


@dataclass
class _Known:
    values: set[str] = field(default_factory=set)
    forms: tuple[str, ...] = ()
    version: int = 0
    matcher: Any = None  # an ahocorasick_rs.AhoCorasick, a compiled re.Pattern, or None
    lock: Any = None


_known = _Known()


def _b64_cores(raw: bytes) -> list[str]:
    """The base64 text every encoding of ``raw`` contains, whatever its offset in the encoded
    stream (3 alignments, standard and URL-safe alphabets): the characters fixed by ``raw`` alone."""
    import base64

    out = []
    for pad in range(3):
        enc = base64.b64encode(b"\0" * pad + raw).decode("ascii")
        # character j carries bits 6j..6j+5, i.e. bytes 6j//8 .. (6j+5)//8
        keep = [
            j for j in range(len(enc)) if (6 * j) // 8 >= pad and (6 * j + 5) // 8 < pad + len(raw)
        ]
        if keep:
            core = enc[keep[0] : keep[-1] + 1]
            out.append(core)
            out.append(core.replace("+", "-").replace("/", "_"))
    return out


def secret_forms(value: str) -> list[str]:
    """The texts ``value`` can appear as in a stored file: itself, JSON-escaped (both
    ``ensure_ascii`` ways), URL-encoded (``%XX`` and ``+``), and base64 (any alignment,
    both alphabets) — each at least :data:`MIN_SECRET_LENGTH` characters long."""
    import json
    from urllib.parse import quote, quote_plus

    forms = {
        value,
        json.dumps(value)[1:-1],
        json.dumps(value, ensure_ascii=False)[1:-1],
        quote(value, safe=""),
        quote(value),
        quote_plus(value),
    }
    forms.update(_b64_cores(value.encode("utf-8", "surrogatepass")))
    latin = value.encode("utf-8", "surrogatepass").decode(
        "latin-1"
    )  # as bytes scrubbing sees it (scrub_bytes)
    forms.add(latin)
    return sorted(
        (f for f in forms if len(f) >= MIN_SECRET_LENGTH and REDACTED not in f),
        key=lambda f: (-len(f), f),
    )


def remember_secret(value: Any) -> bool:
    """Remember one credential value for the rest of the process: from now on it is removed
    (with every form of :func:`secret_forms`) from everything agentsnap stores or prints.
    Values shorter than :data:`MIN_SECRET_LENGTH` or with fewer than 5 distinct characters
    are ignored (they would match ordinary text). Returns whether the value was new."""
    if isinstance(value, (bytes, bytearray)):
        value = bytes(value).decode("utf-8", "replace")
    if not isinstance(value, str):
        return False
    value = value.strip()
    if (
        len(value) < MIN_SECRET_LENGTH
        or len(set(value)) < 5
        or REDACTED in value
        or value in _known.values
    ):
        return False
    import threading

    if _known.lock is None:
        _known.lock = threading.Lock()
    with _known.lock:
        if value in _known.values:
            return False
        values = set(_known.values)
        values.add(value)
        forms: set[str] = set()
        for v in values:
            forms.update(secret_forms(v))
        ordered = tuple(sorted(forms, key=lambda f: (-len(f), f)))
        matcher = _build_matcher(ordered)
        # publish: readers take (forms, matcher) without the lock
        _known.values = values
        _known.forms = ordered
        _known.matcher = matcher
        _known.version += 1
    return True


def _build_matcher(forms: tuple[str, ...]) -> Any:
    if not forms:
        return None
    try:
        import ahocorasick_rs
    except ImportError:  # the regex fallback: one pass too, slower on long texts
        return re.compile("|".join(re.escape(f) for f in forms))
    return ahocorasick_rs.AhoCorasick(
        list(forms), matchkind=ahocorasick_rs.MatchKind.LeftmostLongest
    )


def forget_secrets() -> None:
    """Forget every remembered credential (tests; a new process starts empty)."""
    global _known
    _known = _Known(version=_known.version + 1)
    _seen_values.clear()


def remembered() -> frozenset[str]:
    """The credential values remembered so far."""
    return frozenset(_known.values)


def remember_credentials(headers: Any = (), url: Any = None) -> None:
    """Remember the credentials one outgoing request carries — the one call every transport
    makes with the request's headers and URL, before anything of the request is stored.

    ``headers``: ``(name, value)`` pairs or a mapping (str or bytes). Credentials: the value
    of ``Authorization`` / ``Proxy-Authorization`` (after its scheme; a ``Basic`` value also
    decoded, and the password in it), ``x-api-key``, ``api-key``, ``x-goog-api-key``,
    ``Cookie`` values, and any header whose name holds ``api-key``, ``token``, ``secret``,
    ``password`` or ``auth``. ``url``: secret query parameters (``key``, ``api_key``,
    ``access_token`` … as :func:`scrub_url` masks them) and ``user:password@``.
    """
    raw = getattr(headers, "raw", None)  # httpx.Headers: the (bytes, bytes) pairs, nothing decoded
    if isinstance(raw, list):
        items: Any = raw
    elif hasattr(headers, "multi_items"):
        items = headers.multi_items()
    elif hasattr(headers, "items"):
        items = headers.items()
    else:
        items = headers
    names = _cred_names
    for name, value in items:
        credential = names.get(name)
        if credential is None:
            text = name.decode("latin-1") if isinstance(name, bytes) else str(name)
            low = text.lower()
            credential = names[name] = (
                low if (low in _CRED_HEADERS or any(part in low for part in _CRED_PARTS)) else ""
            )
            if len(names) > 4096:
                names.clear()
        if credential:
            if value in _seen_values:
                continue  # the same credential as the last requests: nothing new (the common case)
            _seen_values.add(value)
            _remember_header(
                credential, value.decode("latin-1") if isinstance(value, bytes) else str(value)
            )
    if url is not None:
        query = getattr(url, "query", None)
        userinfo = getattr(url, "userinfo", None)
        if query is not None and userinfo is not None:  # an httpx.URL
            if (not query and not userinfo) or (query, userinfo) in _seen_values:
                return  # neither a query nor user:password@, or the same as a request before
            if len(_seen_values) < 100_000:
                _seen_values.add((query, userinfo))
        _remember_url(str(url))


#: header name (as sent) -> its lower-case form when it carries a credential, else ""
_cred_names: dict[Any, str] = {}
#: credential header values already read (raw, as sent)
_seen_values: set[Any] = set()


def _remember_header(name: str, value: str) -> None:
    if name in ("cookie", "set-cookie"):
        for part in value.split(";"):
            remember_secret(part.split("=", 1)[-1])
        return
    scheme = _SCHEME_PREFIX.match(value)
    bare = value[scheme.end() :] if scheme else value
    remember_secret(bare)
    if scheme and scheme.group().strip().lower() == "basic":
        import base64
        import binascii

        try:
            decoded = base64.b64decode(
                bare.strip() + "=" * (-len(bare.strip()) % 4), validate=True
            ).decode("utf-8")
        except (binascii.Error, ValueError):
            return
        remember_secret(decoded)
        if ":" in decoded:
            remember_secret(decoded.split(":", 1)[1])


def _remember_url(url: str) -> None:
    if "?" not in url and "@" not in url:
        return
    if url in _seen_values:
        return
    if len(_seen_values) < 100_000:
        _seen_values.add(url)
    try:
        parts = urlsplit(url)
    except ValueError:
        return
    if parts.query:
        for k, v in parse_qsl(parts.query, keep_blank_values=False):
            if k.lower() in _SECRET_QUERY_KEYS:
                remember_secret(v)
    if parts.password:
        remember_secret(parts.password)


def _scrub_known(text: str) -> str:
    """``text`` with every remembered credential form replaced by ``<redacted>``."""
    matcher = _known.matcher
    if matcher is None:
        return text
    if isinstance(matcher, re.Pattern):
        return matcher.sub(REDACTED, text)
    found = matcher.find_matches_as_indexes(text)
    if not found:
        return text
    out = []
    last = 0
    for _, start, end in found:
        out.append(text[last:start])
        out.append(REDACTED)
        last = end
    out.append(text[last:])
    return "".join(out)


def scrub_bytes(data: bytes) -> bytes:
    """Binary data (an upload, a non-UTF-8 body, bytes in a tool value) with every token
    shape and remembered credential overwritten in place by ``*`` (same length: offsets
    and sizes inside a binary format stay valid). Returns ``data`` itself when nothing matched."""
    if not data:
        return data
    text = bytes(data).decode("latin-1")
    spans: list[tuple[int, int]] = []
    matcher = _known.matcher
    if matcher is not None:
        if isinstance(matcher, re.Pattern):
            spans.extend(m.span() for m in matcher.finditer(text))
        else:
            spans.extend((start, end) for _, start, end in matcher.find_matches_as_indexes(text))
    for pattern in (_TOKEN_RE, _SCANNER_RE, _BEARER_RE, _URL_PASSWORD_RE, _ASSIGN_RE):
        whole = pattern is _TOKEN_RE or pattern is _SCANNER_RE
        for m in pattern.finditer(text):
            spans.append(m.span() if whole or not m.lastindex else m.span(m.lastindex))
    if not spans:
        return data
    buf = bytearray(data)
    for start, end in spans:
        buf[start:end] = b"*" * (end - start)
    return bytes(buf)


# -- text -------------------------------------------------------------------------


def _kv(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2) + (m.group(3) or "") + REDACTED


def _json_kv(m: re.Match[str]) -> str:
    return m.group(1) + m.group(2) + m.group(1) + m.group(3) + m.group(4) + REDACTED + m.group(6)


def _nonempty(m: re.Match[str]) -> str:
    return REDACTED if m.group() else ""


# each built-in rule with a test of the literals (lower case) one of which every text it
# matches contains: a text holding none of them is left alone without running the expression
# (a few `in` tests cost far less than a scan with many alternatives)
_BUILTIN_RULES: tuple[tuple[Callable[[str], bool], Callable[[str], str]], ...] = (
    (
        lambda low: (
            "sk-" in low
            or "aiza" in low
            or "gsk_" in low
            or "hf_" in low
            or "gh" in low
            or "github_pat_" in low
            or "akia" in low
            or "asia" in low
            or "eyj" in low
        ),
        lambda t: _TOKEN_RE.sub(REDACTED, t),
    ),
    (
        lambda low: (
            "xox" in low
            or "_live_" in low
            or "_test_" in low
            or "glpat-" in low
            or "npm_" in low
            or "sg." in low
            or "xai-" in low
            or "private key" in low
        ),
        lambda t: _SCANNER_RE.sub(REDACTED, t),
    ),
    (
        lambda low: "://" in low and "@" in low,
        lambda t: _URL_PASSWORD_RE.sub(lambda m: m.group(1) + REDACTED + m.group(3), t),
    ),
    (
        lambda low: (
            "secret_access_key" in low
            or "session_token" in low
            or "security_token" in low
            or "accountkey" in low
            or "sharedaccesskey" in low
        ),
        lambda t: _ASSIGN_RE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, t),
    ),
    (
        lambda low: "bearer" in low,
        lambda t: _BEARER_RE.sub(lambda m: m.group(1) + m.group(2) + REDACTED, t),
    ),
    (lambda low: "authorization" in low or "api-key" in low, lambda t: _HEADER_KV_RE.sub(_kv, t)),
    (
        lambda low: (
            "passw" in low
            or "secret" in low
            or "token" in low
            or "api_key" in low
            or "apikey" in low
            or "private_key" in low
            or "accesskey" in low
        ),
        lambda t: _JSON_KV_RE.sub(_json_kv, t),
    ),
    (
        lambda low: "key=" in low or "token=" in low or "secret=" in low or "password=" in low,
        lambda t: _FORM_KV_RE.sub(lambda m: m.group(1) + "=" + REDACTED, t),
    ),
)


#: the literals of each built-in rule's pre-check (same order as _BUILTIN_RULES): one
#: Aho-Corasick pass over the lowered text finds which rules may match (instead of some 35
#: ``in`` scans); a candidate is confirmed by its own pre-check
_RULE_LITERALS: tuple[tuple[str, ...], ...] = (
    ("sk-", "aiza", "gsk_", "hf_", "gh", "github_pat_", "akia", "asia", "eyj"),
    ("xox", "_live_", "_test_", "glpat-", "npm_", "sg.", "xai-", "private key"),
    ("://",),
    ("secret_access_key", "session_token", "security_token", "accountkey", "sharedaccesskey"),
    ("bearer",),
    ("authorization", "api-key"),
    ("passw", "secret", "token", "api_key", "apikey", "private_key", "accesskey"),
    ("key=", "token=", "secret=", "password="),
)
_prefilter: Any = (
    None  # (automaton, literal index -> rule index), built on first use; False: unavailable
)


def _candidate_rules(lowered: str) -> set[int] | None:
    """Indexes of the built-in rules whose literals occur in ``lowered`` (None: check each rule itself)."""
    global _prefilter
    if _prefilter is None:
        try:
            import ahocorasick_rs
        except ImportError:
            _prefilter = False
        else:
            literals = [lit for lits in _RULE_LITERALS for lit in lits]
            owner = [i for i, lits in enumerate(_RULE_LITERALS) for _ in lits]
            _prefilter = (
                ahocorasick_rs.AhoCorasick(literals, matchkind=ahocorasick_rs.MatchKind.Standard),
                owner,
            )
    if _prefilter is False:
        return None
    automaton, owner = _prefilter
    return {owner[i] for i, _, _ in automaton.find_matches_as_indexes(lowered, overlapping=True)}


def _between_placeholders(text: str, rule: Any) -> str:
    """``rule`` applied to the text between existing placeholders only."""
    if REDACTED not in text:
        return str(rule(text))
    return REDACTED.join(str(rule(piece)) if piece else piece for piece in text.split(REDACTED))


def _one_round(text: str, patterns: tuple[re.Pattern[str], ...]) -> str:
    if _known.matcher is not None:  # remembered credentials first: they have no shape to wait for
        text = _between_placeholders(text, _scrub_known)
    # the literal pre-check is exact for ASCII text only: (?i) matching on other text also
    # pairs characters that str.lower() does not (the long s with "s", the Kelvin sign with "k")
    lowered = text.lower() if text.isascii() else None
    candidates = _candidate_rules(lowered) if lowered is not None and len(lowered) > 256 else None
    for index, (may_match, rule) in enumerate(_BUILTIN_RULES):
        if candidates is not None and index not in candidates:
            continue
        if lowered is not None and not may_match(lowered):
            continue
        new = _between_placeholders(text, rule)
        if new != text:
            text = new
            lowered = text.lower() if lowered is not None else None
    for pattern in patterns:
        text = _between_placeholders(text, lambda t, p=pattern: p.sub(_nonempty, t))
    return text


# scrub_text is a pure function of (text, rules), and an agent sends the same strings
# again and again (system prompt, tool schemas, the conversation so far), which are
# scrubbed once more when the snapshot is built and saved: results are memoised for
# the rules in force (one memo, started over when the rules object changes or it holds
# _MEMO_CHARS characters / _MEMO_ENTRIES strings)
_MEMO_CHARS = 8_000_000
_MEMO_ENTRIES = 50_000
_memo: tuple[Any, dict[str, str], list[int], int] = (None, {}, [0], -1)


#: the shortest text a built-in rule changes: ``key=x`` (the form/query rule); anything
#: shorter is returned as it is without a look (exact: tests/test_secrets.py's property test)
_SHORTEST_MATCH = 5


def scrub_text(text: str, rules: Redaction | None = None) -> str:
    """``text`` with every secret (module doc) replaced by ``<redacted>``; idempotent."""
    global _memo
    rules = rules or _active
    patterns = rules._compiled_patterns
    if len(text) < _SHORTEST_MATCH and not patterns:
        return text
    state = _memo
    if state[0] is not rules or state[3] != _known.version:
        state = _memo = (rules, {}, [0], _known.version)
    memo = state[1]
    done = memo.get(text)
    if done is not None:
        return done
    original = text
    for _ in range(_MAX_ROUNDS):
        new = _one_round(text, patterns)
        if new == text:
            break
        text = new
    size = state[2]
    size[0] += len(original)
    if size[0] > _MEMO_CHARS or len(memo) >= _MEMO_ENTRIES:
        memo.clear()
        size[0] = len(original)
    memo[original] = text
    return text


def _secret_key(key: Any) -> bool:
    return (
        isinstance(key, str) and key.lower().replace("-", "").replace("_", "") in _SECRET_JSON_KEYS
    )


def scrub_value(value: Any, rules: Redaction | None = None) -> Any:
    """Scrub every string inside a JSON-like value, and the value of every secret key.

    Returns a new value (the input is not changed). Dict keys are scrubbed as
    text too (a token used as a key does not survive either).
    """
    rules = rules or _active
    return _scrub_value(value, rules, _key_info(rules), not rules._compiled_patterns)


_keys: tuple[Any, dict[str, tuple[str, bool]], int] = (None, {}, -1)


def _key_info(rules: Redaction) -> dict[str, tuple[str, bool]]:
    """``{key: (scrubbed key, is a secret key)}`` for the rules in force (dict keys repeat endlessly)."""
    global _keys
    if _keys[0] is not rules or _keys[2] != _known.version or len(_keys[1]) > _MEMO_ENTRIES:
        _keys = (rules, {}, _known.version)
    return _keys[1]


def _scrub_value(
    value: Any, rules: Redaction, keys: dict[str, tuple[str, bool]], builtin_only: bool
) -> Any:
    kind = type(value)
    if kind is str or isinstance(value, str):
        return scrub_text(value, rules)
    if kind is dict or isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if isinstance(k, str):
                info = keys.get(k)
                if info is None:
                    info = keys[k] = (scrub_text(k, rules), _secret_key(k))
                key, secret = info
            else:
                key, secret = k, False
            if (
                secret
                and isinstance(v, (str, int, float))
                and not isinstance(v, bool)
                and v not in ("", REDACTED)
            ):
                out[key] = REDACTED
            elif type(v) is str and builtin_only and len(v) < 8:
                out[key] = v  # too short for any built-in rule (as scrub_text decides)
            else:
                out[key] = _scrub_value(v, rules, keys, builtin_only)
        return out
    if kind is list or isinstance(value, (list, tuple)):
        return [
            v
            if type(v) is str and builtin_only and len(v) < 8
            else _scrub_value(v, rules, keys, builtin_only)
            for v in value
        ]
    return value


def _apply_path(node: Any, steps: tuple[_Step, ...]) -> Any:
    if not steps:
        return node if node is None else REDACTED
    step, rest = steps[0], steps[1:]
    if step.kind == "key":
        if isinstance(node, dict) and step.key in node:
            node = dict(node)
            node[step.key] = _apply_path(node[step.key], rest)
    elif step.kind == "index":
        if isinstance(node, list) and -len(node) <= step.index < len(node):
            node = list(node)
            node[step.index] = _apply_path(node[step.index], rest)
    elif step.kind == "any":
        if isinstance(node, dict):
            node = {k: _apply_path(v, rest) for k, v in node.items()}
        elif isinstance(node, list):
            node = [_apply_path(v, rest) for v in node]
    else:  # "desc": the key at any depth
        if isinstance(node, dict):
            node = {
                k: (_apply_path(v, rest) if k == step.key else _apply_path(v, steps))
                for k, v in node.items()
            }
        elif isinstance(node, list):
            node = [_apply_path(v, steps) for v in node]
    return node


def _paths(value: Any, rules: Redaction, depth: int = 0) -> Any:
    """The user's JSON paths applied to the document ``value`` and to every
    document held as JSON text in one of its strings (tool arguments and tool
    results travel as JSON text inside chat requests and responses)."""
    for steps in rules._compiled_paths:
        value = _apply_path(value, steps)
    return value if depth >= 2 else _embedded(value, rules, depth)


def _embedded(value: Any, rules: Redaction, depth: int) -> Any:
    if isinstance(value, str):
        text = value.strip()
        if len(text) > 1 and text[0] in "{[" and text[-1] in "}]":
            import json

            try:
                doc = json.loads(text)
            except (ValueError, RecursionError):
                return value
            new = _paths(doc, rules, depth + 1)
            if new != doc:
                compact = ", " not in text and ": " not in text
                return json.dumps(
                    new, ensure_ascii=False, separators=(",", ":") if compact else None
                )
        return value
    if isinstance(value, dict):
        return {k: _embedded(v, rules, depth) for k, v in value.items()}
    if isinstance(value, list):
        return [_embedded(v, rules, depth) for v in value]
    return value


def scrub_json(value: Any, rules: Redaction | None = None) -> Any:
    """A stored JSON document (a body, tool arguments or result, input, output):
    the user's JSON paths first (also inside strings holding JSON), then
    :func:`scrub_value`."""
    rules = rules or _active
    if rules._compiled_paths:
        value = _paths(value, rules)
    return scrub_value(value, rules)


def scrub_url(url: str, rules: Redaction | None = None) -> str:
    """Mask secret query parameters, ``user:password@`` and token shapes in a URL."""
    parts = urlsplit(url)
    if parts.query:
        pairs = [
            (k, REDACTED if k.lower() in _SECRET_QUERY_KEYS else scrub_text(v, rules))
            for k, v in parse_qsl(parts.query, keep_blank_values=True)
        ]
        parts = parts._replace(query=urlencode(pairs, safe="<>"))
    if "@" in parts.netloc:  # user:password@host
        parts = parts._replace(netloc=REDACTED + "@" + parts.netloc.rsplit("@", 1)[1])
    if parts.path:
        parts = parts._replace(path=scrub_text(parts.path, rules))
    return urlunsplit(parts)


def scrub_chunks(chunks: list[Any], rules: Redaction | None = None) -> list[Any]:
    """Scrub a streamed response's text chunks (byte envelopes are left as they are).

    Each chunk is scrubbed on its own, keeping the boundaries replay serves.
    A secret that straddles a chunk boundary (scrubbing the joined text
    differs) merges the text chunks into one. A secret the server streamed in
    pieces — consecutive events each carrying part of it in the same JSON
    field, as SSE deltas do — is found by joining each field's pieces across
    events (:func:`_split_secrets`); those events are rewritten and the
    stream is stored one line per chunk. Either way the SDK reads the same
    events, only the chunk split differs.
    """
    if not any(isinstance(c, str) for c in chunks):
        return list(chunks)
    each = [scrub_text(c, rules) if isinstance(c, str) else c for c in chunks]
    if not all(isinstance(c, str) for c in chunks):
        return each
    raw = "".join(chunks)
    # the pieces of each field joined across events *before* any piece is scrubbed on its
    # own: a secret split inside its random part would otherwise lose its head to the
    # shape rule and keep its tail
    rejoined = _split_secrets(raw, rules or _active)
    if rejoined != raw:
        return scrub_text(rejoined, rules).splitlines(keepends=True)
    whole = scrub_text(raw, rules)
    if "".join(each) != whole:
        return [whole]
    return each


_DATA_LINE = re.compile(r"^(data:[ ]?|)([\[{][^\r\n]*)", re.MULTILINE)


def _split_secrets(text: str, rules: Redaction) -> str:
    """A stream's text with secrets that were sent in pieces across events removed.

    Every line holding a JSON document (an SSE ``data:`` line, or an NDJSON
    line) is parsed; string values are grouped by their JSON path plus the
    ``index`` fields around them (a delta's position), and each group's pieces
    are joined in order. Where the joined text scrubs differently, the pieces
    are rewritten so that they join to the scrubbed text, each keeping the
    characters that were its own. Unchanged groups and lines stay byte for
    byte as they were.
    """
    import json

    docs: list[tuple[re.Match[str], Any]] = []
    for m in _DATA_LINE.finditer(text):
        try:
            docs.append((m, json.loads(m.group(2))))
        except (ValueError, RecursionError):
            continue
    if len(docs) < 2:
        return text
    groups: dict[tuple[Any, ...], list[tuple[int, Any, Any, str]]] = {}
    for n, (_, doc) in enumerate(docs):
        _collect(doc, (), (), n, groups)
    dirty: set[int] = set()
    for pieces in groups.values():
        if len(pieces) < 2 or len({p[3] for p in pieces}) < 2:
            continue
        joined = "".join(p[3] for p in pieces)
        clean = scrub_text(joined, rules)
        if clean == joined:
            continue
        for (n, holder, key, old), new in zip(
            pieces, _redistribute([p[3] for p in pieces], clean), strict=False
        ):
            if new != old:
                holder[key] = new
                dirty.add(n)
    if not dirty:
        return text
    out = []
    last = 0
    for n, (m, doc) in enumerate(docs):
        if n not in dirty:
            continue
        compact = '": ' not in m.group(2) and '", "' not in m.group(2)
        dumped = json.dumps(doc, ensure_ascii=False, separators=(",", ":") if compact else None)
        out.append(text[last : m.start(2)] + dumped)
        last = m.end(2)
    out.append(text[last:])
    return "".join(out)


def _collect(
    node: Any,
    path: tuple[Any, ...],
    where: tuple[Any, ...],
    n: int,
    groups: dict[tuple[Any, ...], list[tuple[int, Any, Any, str]]],
) -> None:
    if isinstance(node, dict):
        here = where + (
            (node.get("index"),)
            if "index" in node and not isinstance(node.get("index"), (dict, list))
            else ()
        )
        for key, value in node.items():
            if isinstance(value, str):
                groups.setdefault(((*path, key), here), []).append((n, node, key, value))
            elif isinstance(value, (dict, list)):
                _collect(value, (*path, key), here, n, groups)
    elif isinstance(node, list):
        for i, value in enumerate(node):
            if isinstance(value, str):
                groups.setdefault(((*path, i), where), []).append((n, node, i, value))
            elif isinstance(value, (dict, list)):
                _collect(value, (*path, i), where, n, groups)


def _redistribute(pieces: list[str], clean: str) -> list[str]:
    """New pieces joining to ``clean``: each character of ``clean`` goes to the
    piece its original position (by alignment) belonged to."""
    import difflib

    joined = "".join(pieces)
    owner: list[int] = []
    for i, piece in enumerate(pieces):
        owner.extend([i] * len(piece))
    out = [""] * len(pieces)
    for tag, a0, a1, b0, b1 in difflib.SequenceMatcher(
        None, joined, clean, autojunk=False
    ).get_opcodes():
        if tag == "equal":
            for k in range(a1 - a0):
                out[owner[a0 + k]] += clean[b0 + k]
        elif b1 > b0:  # replaced or inserted text: to the piece where the change starts
            out[owner[min(a0, len(owner) - 1)] if owner else 0] += clean[b0:b1]
    return out


def mask_header(name: str, value: str, extra: Iterable[str] = ()) -> str:
    """A kept response header's stored value: ``<redacted>`` for an account
    header (:data:`ACCOUNT_HEADERS` or ``extra`` globs), else the value scrubbed."""
    low = name.lower()
    if any(fnmatch.fnmatchcase(low, pat) for pat in (*ACCOUNT_HEADERS, *extra)):
        return REDACTED
    return scrub_text(value)


# -- whole snapshots ------------------------------------------------------------------


def _scrub_exchange(exchange: Any, rules: Redaction) -> Any:
    if not isinstance(exchange, dict):
        return scrub_value(exchange, rules)
    out = {}
    for key, part in exchange.items():
        if key in ("request", "response") and isinstance(part, dict):
            new = {}
            for k, v in part.items():
                if k == "body":
                    new[k] = scrub_json(v, rules)
                elif k == "chunks" and isinstance(v, list):
                    new[k] = scrub_chunks(v, rules)
                elif k == "headers" and isinstance(v, dict):
                    new[k] = {
                        hk: mask_header(hk, hv) if isinstance(hv, str) else scrub_value(hv, rules)
                        for hk, hv in v.items()
                    }
                elif k == "query" and isinstance(v, str):
                    new[k] = scrub_url("http://x/?" + v, rules).split("?", 1)[1] if v else v
                else:
                    new[k] = scrub_value(v, rules)
            out[key] = new
        else:
            out[key] = scrub_value(part, rules)
    return out


def scrub_snapshot(data: dict[str, Any], rules: Redaction | None = None) -> dict[str, Any]:
    """A snapshot dict (``Snapshot.to_dict()``) with every rule applied: user JSON
    paths on bodies, tool arguments and results, input and output; text rules
    everywhere but the snapshot's ``name``. Returns a new dict; idempotent.

    A step's raw ``exchange`` captured by this process is a
    :class:`agentsnap.wire.StoredExchange`: its request and response were scrubbed
    when they were captured (every transport stores them through
    :mod:`agentsnap.capture.exchange`), so it is kept as it is. Any other exchange
    (a file's, a trace import's) is scrubbed here.
    """
    rules = rules or _active
    out: dict[str, Any] = {}
    for key, value in data.items():
        if key == "name":  # the test's node id: code, not data; the file is found by it
            out[key] = value
        elif key in ("input", "output"):
            out[key] = scrub_json(value, rules)
        elif key == "trace" and isinstance(value, list):
            out[key] = [_scrub_step(step, rules) for step in value]
        else:
            out[key] = scrub_value(value, rules)
    return out


def _scrub_step(step: Any, rules: Redaction) -> Any:
    if not isinstance(step, dict):
        return scrub_value(step, rules)
    out = {}
    for key, value in step.items():
        if key == "exchange":
            scrubbed = type(value) is StoredExchange  # at capture, once
            out[key] = value if scrubbed else _scrub_exchange(value, rules)
        elif key in ("args", "result") and step.get("type") == "tool_call":
            out[key] = scrub_json(value, rules)
        else:
            out[key] = scrub_value(value, rules)
    return out
