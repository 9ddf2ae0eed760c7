"""``LLMJudge``: an LLM scores whether a new text means the same as its golden text.

Embedding cosine is a drift detector, not a meaning check: at 0.92 MiniLM
fails about 60 % of genuine paraphrases and passes about a third of meaning
changes (``shared/research/semantic.md`` §8). The judge asks a chat model
instead and gets back a score from 0.0 to 1.0 plus a one-sentence reason.

Transport: one ``POST {base_url}/chat/completions`` per differing text pair
(OpenAI-compatible chat completions: OpenRouter, OpenAI, Groq, Mistral, the
OpenAI-compatible endpoints of Anthropic and Cohere, a local server …), made
with the standard library's :mod:`urllib.request`, inside
``agentsnap.capture.ownership.owned(INTERNAL)``: the capture transports (http.client
included) leave it alone, so the judge's own calls are never recorded into the
agent's trace and never served from a replay cassette, and the never-silent
observer does not report them (``tests/test_judge.py`` checks both). No SDK is imported.

Key resolution (:meth:`LLMJudge.from_env`): ``AGENTSNAP_JUDGE_API_KEY``,
then the provider key matching ``judge_base_url`` from the one table
:data:`agentsnap.config.PROVIDER_KEY_MAP`; ``judge_model`` /
``judge_base_url`` come from ``[tool.agentsnap]``, pytest ini options or
``AGENTSNAP_JUDGE_MODEL`` / ``AGENTSNAP_JUDGE_BASE_URL``.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Iterator, Mapping
from typing import Any

from ...exceptions import AgentsnapError

__all__ = [
    "DEFAULT_BASE_URL",
    "DEFAULT_MODEL",
    "JudgeError",
    "Judgement",
    "LLMJudge",
    "parse_reply",
]

DEFAULT_MODEL = "openai/gpt-4o-mini"
DEFAULT_BASE_URL = "https://openrouter.ai/api/v1"
_RETRY_STATUS = (408, 429, 500, 502, 503, 504)
_MAX_RETRY_AFTER = 10.0
_EXCERPT = 600

_SYSTEM = (
    "You are the semantic-equivalence judge of a regression test for an AI agent. "
    "You get a GOLDEN text (the approved answer) and a NEW text (today's answer). "
    "Decide whether a user who relied on GOLDEN can rely on NEW in the same way.\n"
    "Check, in this order:\n"
    "1. Facts: every number with its unit, amount, price, date, time, version, name, place, file, "
    "identifier. Formats do not matter (10:30 = 10.30 am, 1,000 = 1000, $40 = 40 dollars, "
    "March 3 = 3 March); a changed value does.\n"
    "2. Polarity: yes/no answers, negations and opposites (passed/failed, enabled/disabled).\n"
    "3. Roles: who does what to whom (Alice pays Bob is not Bob pays Alice).\n"
    "4. Steps and list items: a dropped or added step is a difference; the order of an unordered "
    "list is not, the order of steps that must run in sequence is.\n"
    "5. The conclusion or recommendation.\n"
    "6. Claims in NEW that GOLDEN does not make.\n"
    "Wording, tone, politeness, greetings, verbosity, language of phrasing and Markdown formatting "
    "do not matter.\n"
    "Answer with one JSON object and nothing else:\n"
    '{"facts": "same" or "changed", "steps": "same", "changed" or "none", '
    '"conclusion": "same" or "changed", "added_claims": [<claims NEW adds>], '
    '"changes": [{"golden": "<the sentence or fact in GOLDEN>", "new": "<what NEW says instead>"}], '
    '"score": <number from 0.0 to 1.0>, "reason": "<one sentence>"}\n'
    "Score 1.0 when the meaning is the same, 0.9 or more when only harmless wording differs, "
    "at most 0.5 when any fact, polarity, role, step or conclusion changed or a claim was added, "
    "and 0.0 when NEW is unrelated to or contradicts GOLDEN. The reason names the most important "
    "difference, or says the meaning is the same."
)


class JudgeError(AgentsnapError, RuntimeError):
    """The judge could not produce a score.

    Raised for an HTTP error (after retries for 408/429/5xx), a network
    failure, a response that is not a chat completion, or a reply whose text
    holds no score in [0, 1]. ``reply`` is the model's text when there was
    one (shown in the message, cut to 600 characters), ``status`` the HTTP
    status when there was one. Never a silent score of 0.
    """

    def __init__(
        self, message: str, *, reply: str | None = None, status: int | None = None
    ) -> None:
        super().__init__(message)
        self.reply = reply
        self.status = status


class Judgement(float):
    """The judge's verdict: a ``float`` (the score in [0.0, 1.0], 1.0 = same meaning)
    that also carries the one-sentence ``reason``.

    It compares, sorts, formats and converts as its score (``verdict > 0.5``,
    ``float(verdict)``, ``f"{verdict:.2f}"``) — :meth:`LLMJudge.score` returned a
    plain float in agentsnap 0.5.1 — and unpacks as ``score, reason =
    verdict`` (``verdict[0]``, ``verdict[1]``). Two verdicts are equal when both
    score and reason are; a verdict equals a number when its score does.
    """

    reason: str

    def __new__(cls, score: float, reason: str = "") -> Judgement:
        obj = super().__new__(cls, score)
        obj.reason = str(reason)
        return obj

    @property
    def score(self) -> float:
        """The score as a plain ``float``."""
        return float(self)

    def __iter__(self) -> Iterator[Any]:
        yield float(self)
        yield self.reason

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> Any:
        return (float(self), self.reason)[index]

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Judgement):
            return float(self) == float(other) and self.reason == other.reason
        return float(self) == other

    def __ne__(self, other: object) -> bool:
        return not self == other

    __hash__ = float.__hash__

    def __repr__(self) -> str:
        return f"Judgement(score={float(self)!r}, reason={self.reason!r})"

    def __reduce__(self) -> tuple[Any, ...]:
        return (Judgement, (float(self), self.reason))


def _excerpt(text: str, width: int = _EXCERPT) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


@functools.cache
def _fence() -> re.Pattern[str]:
    return re.compile(r"```[A-Za-z0-9_-]*\s*\n?(.*?)```", re.DOTALL)


@functools.cache
def _score_line() -> re.Pattern[str]:
    return re.compile(r"""["']?score["']?\s*[:=]\s*["']?(-?\d+(?:\.\d+)?|-?\.\d+)""", re.IGNORECASE)


@functools.cache
def _reason_line() -> re.Pattern[str]:
    return re.compile(
        r"""["']?reason["']?\s*[:=]\s*["']?(.+?)["']?\s*(?:,?\s*[}\n]|$)""",
        re.IGNORECASE | re.DOTALL,
    )


def _as_score(value: Any) -> float | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        text = value.strip()
        percent = text.endswith("%")
        try:
            number = float(text.rstrip("%").strip())
        except ValueError:
            return None
        return number / 100.0 if percent else number
    return None


def _changes(obj: Mapping[str, Any]) -> str:
    """The ``changes`` list of a structured reply as ``golden: "…" → new: "…"`` items, joined by "; "."""
    items = obj.get("changes")
    if not isinstance(items, list):
        return ""
    out = []
    for item in items[:5]:
        if isinstance(item, Mapping):
            golden, new = item.get("golden"), item.get("new")
            if golden or new:
                out.append(f'golden: "{golden or ""}" → new: "{new or ""}"')
        elif isinstance(item, str) and item.strip():
            out.append(item.strip())
    return "; ".join(out)


def _objects(text: str) -> list[dict[str, Any]]:
    """JSON objects found in ``text``: fenced blocks first, then any ``{...}`` in the prose."""
    found: list[dict[str, Any]] = []
    candidates = [m.group(1) for m in _fence().finditer(text)] + [text]
    decoder = json.JSONDecoder()
    for candidate in candidates:
        for start in [m.start() for m in re.finditer(r"\{", candidate)]:
            try:
                value, _ = decoder.raw_decode(candidate, start)
            except ValueError:
                continue
            if isinstance(value, dict):
                found.append(value)
    return found


def parse_reply(text: str) -> Judgement:
    """Read a :class:`Judgement` out of the model's reply text.

    Accepted, in this order: a JSON object with a ``score`` key, inside a
    Markdown code fence or anywhere in surrounding prose
    (``Sure! {"score": 0.9, "reason": "…"} Hope that helps``); else
    ``score: 0.9`` / ``reason: …`` lines. ``score`` may be a number, a
    numeric string or a percentage string (``"90%"`` is 0.9); ``reason`` is
    optional (``""`` when absent). The structured fields the prompt asks for
    (``facts``, ``steps``, ``conclusion``, ``added_claims``, ``changes``)
    are optional; the ``changes`` pairs are appended to the reason as
    ``golden: "…" → new: "…"`` so the report names what changed.

    Raises:
        JudgeError: no score found, or a score outside [0, 1]; the message
            shows the reply.
    """
    text = text if isinstance(text, str) else str(text)
    for obj in _objects(text):
        if "score" not in obj:
            continue
        score = _as_score(obj["score"])
        if score is None:
            break
        reason = obj.get("reason", "")
        reason = "" if reason is None else str(reason).strip()
        changes = _changes(obj)
        if changes and changes not in reason:
            reason = f"{reason} ({changes})" if reason else changes
        return _checked(score, reason, text)
    match = _score_line().search(text)
    if match:
        reason_match = _reason_line().search(text)
        reason = reason_match.group(1).strip() if reason_match else ""
        return _checked(float(match.group(1)), reason, text)
    raise JudgeError(
        "agentsnap: the LLM judge's reply holds no score; expected a JSON object like "
        f'{{"score": 0.8, "reason": "..."}}. The reply was:\n{_excerpt(text)}',
        reply=text,
    )


def _checked(score: float, reason: str, text: str) -> Judgement:
    if not (0.0 <= score <= 1.0):
        raise JudgeError(
            f"agentsnap: the LLM judge replied with score {score}, outside 0.0–1.0. The reply was:\n{_excerpt(text)}",
            reply=text,
        )
    return Judgement(score, reason)


def _message_text(body: Any) -> str | None:
    """The assistant text of a chat-completions response body, or None."""
    try:
        content = body["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None
    if isinstance(content, str):
        return content
    if isinstance(content, list):  # content parts
        parts = [
            p.get("text", "")
            for p in content
            if isinstance(p, Mapping) and isinstance(p.get("text"), str)
        ]
        return "".join(parts) if parts else None
    return None


class LLMJudge:
    """Scores semantic equivalence of two texts with a chat model; see the module doc.

    ``api_key``: the bearer token (never shown in ``repr`` or errors).
    ``model``: the model id the endpoint expects (default
    ``"openai/gpt-4o-mini"``, OpenRouter's name). ``base_url``: the API root
    ending before ``/chat/completions`` (default OpenRouter's
    ``https://openrouter.ai/api/v1``). ``timeout``: seconds per HTTP attempt.
    ``max_retries``: extra attempts after HTTP 408/429/5xx or a timeout,
    waiting ``Retry-After`` (at most 10 s) or ``backoff × 2**attempt``
    seconds. ``temperature`` / ``max_tokens``: sent when not None.

    Raises:
        ValueError: empty ``api_key``, ``model`` or ``base_url``, or a
            ``base_url`` that is not http(s).
    """

    def __init__(
        self,
        api_key: str,
        model: str = DEFAULT_MODEL,
        base_url: str = DEFAULT_BASE_URL,
        *,
        timeout: float = 60.0,
        max_retries: int = 2,
        backoff: float = 0.5,
        temperature: float | None = 0.0,
        max_tokens: int | None = 300,
    ) -> None:
        if not isinstance(api_key, str) or not api_key.strip():
            raise ValueError("agentsnap: LLMJudge needs a non-empty api_key")
        if not isinstance(model, str) or not model.strip():
            raise ValueError("agentsnap: LLMJudge needs a non-empty model")
        if not isinstance(base_url, str) or not base_url.startswith(("http://", "https://")):
            raise ValueError(
                f"agentsnap: LLMJudge base_url must start with http:// or https://, got {base_url!r}"
            )
        self._api_key = api_key.strip()
        self.model = model.strip()
        self.base_url = base_url.rstrip("/")
        self.timeout = float(timeout)
        self.max_retries = max(0, int(max_retries))
        self.backoff = max(0.0, float(backoff))
        self.temperature = temperature
        self.max_tokens = max_tokens
        self._reasons: dict[str, str] = {}
        self._calls = 0

    # ------------------------------------------------------------------ construction

    @classmethod
    def from_env(
        cls,
        settings: Any = None,
        *,
        env: Mapping[str, str] | None = None,
        ignore: tuple[str, ...] = (),
        **kwargs: Any,
    ) -> LLMJudge | None:
        """A judge configured from the settings and environment, or None when no key resolves.

        ``settings``: an :class:`agentsnap.config.Settings` (default:
        :func:`agentsnap.config.load` from the current directory, with
        ``env``). The key comes from
        :func:`agentsnap.config.resolve_judge_api_key` (``AGENTSNAP_JUDGE_API_KEY``,
        then the provider key matching ``judge_base_url``); values in
        ``ignore`` count as unset. ``kwargs`` go to the constructor.

        Raises:
            ValueError: a configuration value of the wrong type (from
                :func:`agentsnap.config.load`).
        """
        from ... import config

        if settings is None:
            settings = config.load(env=env)
        found = config.resolve_judge_api_key(settings.judge_base_url, env, ignore=ignore)
        if found is None:
            return None
        return cls(found[0], settings.judge_model, settings.judge_base_url, **kwargs)

    def __repr__(self) -> str:
        return f"LLMJudge(model={self.model!r}, base_url={self.base_url!r})"

    def describe(self) -> dict[str, Any]:
        """``{"backend": "judge", "model", "base_url"}`` for reports (no key)."""
        return {"backend": "judge", "model": self.model, "base_url": self.base_url}

    # ------------------------------------------------------------------ scoring

    def messages(self, golden: str, new: str) -> list[dict[str, str]]:
        """The chat messages sent for one pair (system instructions, then both texts)."""
        user = f"GOLDEN:\n<<<\n{golden}\n>>>\n\nNEW:\n<<<\n{new}\n>>>"
        return [{"role": "system", "content": _SYSTEM}, {"role": "user", "content": user}]

    def last_reasons(self) -> dict[str, str]:
        """The reason of every pair scored so far, by the ``key`` given to :meth:`score`
        (``"llm_call[0]"``, ``"output"``; ``"comparison[n]"`` for the n-th call made
        without one) — agentsnap 0.5.1's way to read them. A copy."""
        return dict(self._reasons)

    def score(self, golden: str, new: str, key: str | None = None) -> Judgement:
        """Score how well ``new`` preserves the meaning of ``golden``: a :class:`Judgement`
        (a ``float`` carrying ``.reason``).

        ``key``: where :meth:`last_reasons` keeps the reason (default
        ``"comparison[n]"``, n counting the calls).

        One chat-completions request (plus retries). Identical texts are not
        special-cased here (:func:`agentsnap.diff.compute_diff` never sends
        them).

        Raises:
            JudgeError: HTTP or network failure, a response that is not a chat
                completion, or a reply without a score in [0, 1] (the message
                shows the reply).
        """
        body: dict[str, Any] = {"model": self.model, "messages": self.messages(golden, new)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        response = self._post(body)
        text = _message_text(response)
        if text is None:
            raise JudgeError(
                f"agentsnap: the LLM judge at {self.base_url} returned no chat-completion message; "
                f"response: {_excerpt(json.dumps(response, ensure_ascii=False))}"
            )
        verdict = parse_reply(text)
        if not isinstance(verdict, Judgement):  # a parser that still returns a (score, reason) pair
            verdict = Judgement(verdict[0], verdict[1])
        self._reasons[key if key is not None else f"comparison[{self._calls}]"] = verdict.reason
        self._calls += 1
        return verdict

    def _post(self, body: dict[str, Any]) -> Any:
        import urllib.error
        import urllib.request

        from ..._version import __version__
        from ...capture.ownership import (  # the transports leave agentsnap's own requests alone
            INTERNAL,
            owned,
        )

        url = f"{self.base_url}/chat/completions"
        data = json.dumps(body).encode("utf-8")
        headers = {
            "Authorization": f"Bearer {self._api_key}",
            "Content-Type": "application/json",
            "Accept": "application/json",
            "User-Agent": f"agentsnap-judge/{__version__}",
        }
        attempt = 0
        while True:
            request = urllib.request.Request(url, data=data, headers=headers, method="POST")
            wait: float | None = None
            try:
                with (
                    owned(INTERNAL),
                    urllib.request.urlopen(request, timeout=self.timeout) as handle,
                ):
                    raw = handle.read()
                break
            except urllib.error.HTTPError as exc:
                detail = self._scrub(exc.read().decode("utf-8", "replace"))
                if exc.code in _RETRY_STATUS and attempt < self.max_retries:
                    wait = self._retry_after(exc.headers.get("Retry-After"), attempt)
                else:
                    hint = ""
                    if exc.code in (401, 403):
                        hint = " Check the judge's API key (AGENTSNAP_JUDGE_API_KEY or the provider key for judge_base_url)."
                    raise JudgeError(
                        f"agentsnap: the LLM judge request to {url} failed with HTTP {exc.code}.{hint} "
                        f"Response: {_excerpt(detail)}",
                        status=exc.code,
                    ) from None
            except (urllib.error.URLError, TimeoutError, OSError) as exc:
                reason = getattr(exc, "reason", exc)
                timed_out = isinstance(exc, TimeoutError) or isinstance(reason, TimeoutError)
                if timed_out and attempt < self.max_retries:
                    wait = self.backoff * (2**attempt)
                else:
                    raise JudgeError(
                        f"agentsnap: the LLM judge could not reach {url}: {self._scrub(str(reason))}"
                    ) from None
            attempt += 1
            time.sleep(wait or 0.0)
        try:
            return json.loads(raw)
        except ValueError:
            raise JudgeError(
                f"agentsnap: the LLM judge at {url} answered with something that is not JSON: "
                f"{_excerpt(self._scrub(raw.decode('utf-8', 'replace')))}"
            ) from None

    def _retry_after(self, header: str | None, attempt: int) -> float:
        if header:
            try:
                return max(0.0, min(_MAX_RETRY_AFTER, float(header)))
            except ValueError:
                pass
        return float(self.backoff * (2**attempt))

    def _scrub(self, text: str) -> str:
        return text.replace(self._api_key, "***") if self._api_key else text
