"""LLMJudge against the loopback fake provider: request, reply parsing, errors, retries, key
resolution, compute_diff integration, never captured or replayed, the snapshot fixture."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from agentsnap import config
from agentsnap.diff import compute_diff
from agentsnap.diff.meaning.judge import JudgeError, Judgement, LLMJudge, parse_reply
from tests.fake_provider import FakeOpenAI, error_reply, text_reply

pytest_plugins = ["pytester"]

KEY = "sk-judge-test-123"


def verdict(score: Any, reason: str = "Same meaning.") -> str:
    return json.dumps({"score": score, "reason": reason})


def judge_for(fake: FakeOpenAI, **kwargs: Any) -> LLMJudge:
    kwargs.setdefault("backoff", 0.0)
    return LLMJudge(KEY, "judge-model", fake.base_url, **kwargs)


# ------------------------------------------------------------------ the request


def test_score_sends_one_chat_completion_with_both_texts(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text_reply(verdict(0.25, "The time changed from 3pm to 5pm.")))
    result = judge_for(fake_openai).score("Meet at 3pm.", "Meet at 5pm.")
    assert result == Judgement(0.25, "The time changed from 3pm to 5pm.")
    [request] = fake_openai.requests
    assert request.method == "POST"
    assert request.path == "/v1/chat/completions"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.headers["content-type"] == "application/json"
    assert request.headers["user-agent"].startswith("agentsnap-judge/")
    body = request.body
    assert body["model"] == "judge-model"
    assert body["temperature"] == 0.0
    assert [m["role"] for m in body["messages"]] == ["system", "user"]
    assert "GOLDEN:\n<<<\nMeet at 3pm.\n>>>" in body["messages"][1]["content"]
    assert "NEW:\n<<<\nMeet at 5pm.\n>>>" in body["messages"][1]["content"]
    assert '"score"' in body["messages"][0]["content"]


# ------------------------------------------------------------------ reply parsing


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ('{"score": 1, "reason": "Same."}', Judgement(1.0, "Same.")),
        (
            '```json\n{"score": 0.4, "reason": "A name changed."}\n```',
            Judgement(0.4, "A name changed."),
        ),
        ('```\n{"score": 0.9}\n```', Judgement(0.9, "")),
        (
            'Sure! Here is my assessment:\n{"score": "0.75", "reason": "Mostly the same."}\nLet me know.',
            Judgement(0.75, "Mostly the same."),
        ),
        (
            "Score: 0.6\nReason: The second text drops the deadline.",
            Judgement(0.6, "The second text drops the deadline."),
        ),
        (
            '{"analysis": "x"} then {"score": 0.1, "reason": "Contradicts."}',
            Judgement(0.1, "Contradicts."),
        ),
    ],
)
def test_replies_in_fences_or_with_prose_parse(reply: str, expected: Judgement) -> None:
    assert parse_reply(reply) == expected


def test_the_prompt_asks_about_facts_polarity_roles_steps_conclusion_and_added_claims() -> None:
    system = LLMJudge(api_key="k", model="m").messages("a", "b")[0]["content"]
    for topic in (
        "Facts",
        "Polarity",
        "Roles",
        "Steps and list items",
        "conclusion",
        "Claims in NEW",
    ):
        assert topic in system
    # the formats the offline check treats as equal, and the score bands the thresholds rely on
    assert "10:30 = 10.30 am" in system and "1,000 = 1000" in system
    assert (
        "at most 0.5 when any fact" in system
        and "0.9 or more when only harmless wording differs" in system
    )
    for field in (
        '"facts"',
        '"steps"',
        '"conclusion"',
        '"added_claims"',
        '"changes"',
        '"score"',
        '"reason"',
    ):
        assert field in system


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (
            (
                '```json\n{"facts": "changed", "steps": "none", "conclusion": "same", "added_claims": [],\n'
                ' "changes": [{"golden": "arrives at 10:30", "new": "arrives at 11:30"}],\n'
                ' "score": 0.2, "reason": "The arrival time changed."}\n```'
            ),
            Judgement(
                0.2,
                'The arrival time changed. (golden: "arrives at 10:30" → new: "arrives at 11:30")',
            ),
        ),
        (
            'Let me compare them.\n\n{"facts": "same", "changes": [], "score": "95%", "reason": "Only the tone differs."}\n\nDone!',
            Judgement(0.95, "Only the tone differs."),
        ),
        (
            '{"changes": [{"golden": "Alice pays Bob", "new": "Bob pays Alice"}], "score": 0}',
            Judgement(0.0, 'golden: "Alice pays Bob" → new: "Bob pays Alice"'),
        ),
    ],
)
def test_structured_replies_keep_their_changes_in_the_reason(
    reply: str, expected: Judgement
) -> None:
    assert parse_reply(reply) == expected


@pytest.mark.parametrize(
    ("reply", "match"),
    [
        ("They mean the same thing.", "holds no score"),
        ('{"score": "high", "reason": "x"}', "holds no score"),
        ('{"score": 85, "reason": "x"}', "outside 0.0–1.0"),
        ("", "holds no score"),
    ],
)
def test_an_unparseable_reply_is_an_error_that_shows_it(reply: str, match: str) -> None:
    with pytest.raises(JudgeError, match=match) as err:
        parse_reply(reply)
    assert err.value.reply == reply
    assert reply in str(err.value)


def test_an_unparseable_reply_from_the_server_is_an_error_not_a_zero(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(text_reply("I would rather not say."))
    with pytest.raises(JudgeError, match=r"I would rather not say\.") as err:
        judge_for(fake_openai).score("a", "b")
    assert err.value.reply == "I would rather not say."


# ------------------------------------------------------------------ HTTP errors and retries


def test_rate_limits_are_retried(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(error_reply(429), error_reply(503), text_reply(verdict(0.8)))
    assert judge_for(fake_openai).score("a", "b").score == 0.8
    assert len(fake_openai.requests) == 3


def test_retries_run_out(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(*[error_reply(500, retry_after=None)] * 3)
    with pytest.raises(JudgeError, match="HTTP 500") as err:
        judge_for(fake_openai, max_retries=2).score("a", "b")
    assert err.value.status == 500
    assert len(fake_openai.requests) == 3


def test_auth_errors_fail_at_once_and_never_show_the_key(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(error_reply(401, message=f"Incorrect API key provided: {KEY}"))
    with pytest.raises(JudgeError) as err:
        judge_for(fake_openai).score("a", "b")
    text = str(err.value)
    assert "HTTP 401" in text and "AGENTSNAP_JUDGE_API_KEY" in text
    assert KEY not in text and "***" in text
    assert len(fake_openai.requests) == 1
    assert KEY not in repr(judge_for(fake_openai))


def test_an_unreachable_endpoint_is_an_error() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    judge = LLMJudge(KEY, "m", f"http://127.0.0.1:{port}/v1", timeout=5, backoff=0.0)
    with pytest.raises(JudgeError, match="could not reach"):
        judge.score("a", "b")


def test_a_response_without_a_message_is_an_error(fake_openai: FakeOpenAI) -> None:
    from tests.fake_provider import Reply

    fake_openai.script(Reply(body={"object": "list", "data": []}))
    with pytest.raises(JudgeError, match="no chat-completion message"):
        judge_for(fake_openai).score("a", "b")


@pytest.mark.parametrize(
    ("args", "match"),
    [
        (("", "m", "https://x"), "api_key"),
        ((KEY, "", "https://x"), "model"),
        ((KEY, "m", "ftp://x"), "http"),
    ],
)
def test_constructor_checks_its_arguments(args: tuple[str, str, str], match: str) -> None:
    with pytest.raises(ValueError, match=match):
        LLMJudge(*args)


# ------------------------------------------------------------------ key resolution


@pytest.mark.parametrize(
    ("base_url", "var"),
    [
        ("https://openrouter.ai/api/v1", "OPENROUTER_API_KEY"),
        ("https://api.openai.com/v1", "OPENAI_API_KEY"),
        ("https://api.anthropic.com/v1/", "ANTHROPIC_API_KEY"),
        ("https://api.groq.com/openai/v1", "GROQ_API_KEY"),
        ("https://api.mistral.ai/v1", "MISTRAL_API_KEY"),
        ("https://api.cohere.com/compatibility/v1", "COHERE_API_KEY"),
    ],
)
def test_the_provider_key_matching_the_base_url_is_used(base_url: str, var: str) -> None:
    env = {var: "provider-key", "UNRELATED_API_KEY": "x"}
    assert config.resolve_judge_api_key(base_url, env) == ("provider-key", var)
    assert config._resolve_api_key(base_url, env) == "provider-key"
    # the explicit key always wins
    env["AGENTSNAP_JUDGE_API_KEY"] = "explicit"
    assert config.resolve_judge_api_key(base_url, env) == ("explicit", "AGENTSNAP_JUDGE_API_KEY")


def test_no_key_resolves() -> None:
    assert config.resolve_judge_api_key("https://openrouter.ai/api/v1", {}) is None
    assert (
        config.resolve_judge_api_key("https://openrouter.ai/api/v1", {"OPENAI_API_KEY": "k"})
        is None
    )
    assert config.resolve_judge_api_key("http://localhost:8000/v1", {"OPENAI_API_KEY": "k"}) is None
    # a provider name in the path is not its host
    assert (
        config.resolve_judge_api_key("http://localhost/api.openai.com/v1", {"OPENAI_API_KEY": "k"})
        is None
    )
    assert (
        config.resolve_judge_api_key("https://openrouter.ai/api/v1", {"OPENROUTER_API_KEY": " "})
        is None
    )
    assert (
        config.resolve_judge_api_key(
            "https://openrouter.ai/api/v1", {"OPENROUTER_API_KEY": "dummy"}, ignore=("dummy",)
        )
        is None
    )
    assert [host for host, _ in config.PROVIDER_KEY_MAP] == [
        "openrouter.ai",
        "api.openai.com",
        "anthropic.com",
        "api.groq.com",
        "api.mistral.ai",
        "api.cohere.com",
    ]


def test_from_env_reads_model_and_base_url_from_settings_and_env(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\njudge_base_url = "https://api.openai.com/v1"\njudge_model = "gpt-4o-mini"\n',
        encoding="utf-8",
    )
    settings = config.load(tmp_path, env={})
    assert LLMJudge.from_env(settings, env={"OPENROUTER_API_KEY": "k"}) is None
    judge = LLMJudge.from_env(settings, env={"OPENAI_API_KEY": "k"})
    assert judge is not None
    assert (judge.model, judge.base_url) == ("gpt-4o-mini", "https://api.openai.com/v1")
    env = {
        "AGENTSNAP_JUDGE_API_KEY": "k",
        "AGENTSNAP_JUDGE_MODEL": "other",
        "AGENTSNAP_JUDGE_BASE_URL": "http://127.0.0.1:9/v1",
    }
    judge = LLMJudge.from_env(config.load(tmp_path, env=env), env=env)
    assert judge is not None
    assert (judge.model, judge.base_url) == ("other", "http://127.0.0.1:9/v1")
    assert judge.describe() == {
        "backend": "judge",
        "model": "other",
        "base_url": "http://127.0.0.1:9/v1",
    }


def test_defaults_are_openrouter() -> None:
    judge = LLMJudge(KEY)
    assert (judge.model, judge.base_url) == ("openai/gpt-4o-mini", "https://openrouter.ai/api/v1")
    settings = config.Settings()
    assert (settings.judge_model, settings.judge_base_url) == (judge.model, judge.base_url)


# ------------------------------------------------------------------ in compute_diff


def test_compute_diff_uses_the_judge_for_differing_texts_only(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text_reply(verdict(0.3, "The new answer moves the meeting to Friday.")))
    golden = {
        "trace": [{"step": 0, "type": "llm_call", "response": "same"}],
        "output": "Meet on Thursday.",
    }
    new = {
        "trace": [{"step": 0, "type": "llm_call", "response": "same"}],
        "output": "Meet on Friday.",
    }
    report = compute_diff(
        golden, new, judge=judge_for(fake_openai), judge_mode="score", embedding_backend="onnx"
    )
    assert len(fake_openai.requests) == 1  # identical llm_call[0] is not sent; no model is loaded
    assert report.backend == "judge"
    assert report.semantic_backend == {
        "backend": "judge",
        "model": "judge-model",
        "base_url": fake_openai.base_url,
    }
    assert report.semantic_scores == {"llm_call[0]": 1.0, "output": 0.3}
    assert report.failed_checks == ["semantic:output"]
    assert report.reasons["output"] == [
        "judge: The new answer moves the meeting to Friday.",
        "names differ: Thursday → Friday",
    ]
    lines = report.render().splitlines()
    assert "    reason: judge: The new answer moves the meeting to Friday." in lines
    assert "    hint: names differ: Thursday → Friday" in lines
    assert any(line.startswith("[SEMANTIC] FAIL — backend: judge (judge-model)") for line in lines)


def test_judge_errors_propagate_from_compute_diff(fake_openai: FakeOpenAI) -> None:
    fake_openai.script(text_reply("no idea"))
    with pytest.raises(JudgeError, match="no idea"):
        compute_diff(
            {"output": "a"}, {"output": "b"}, judge=judge_for(fake_openai), judge_mode="score"
        )


# ------------------------------------------------------------------ never captured, never replayed


def test_the_judges_calls_are_never_captured_or_replayed(fake_openai: FakeOpenAI) -> None:
    openai = pytest.importorskip("openai")
    from agentsnap.capture.cassette import Cassette
    from agentsnap.capture.recording import Recording

    fake_openai.script(text_reply("agent answer"), text_reply(verdict(0.9)))
    judge = judge_for(fake_openai)
    with Recording("capture") as rec:
        client = openai.OpenAI(base_url=fake_openai.base_url, api_key="sk-agent", max_retries=0)
        client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}]
        )
        assert judge.score("a", "b").score == 0.9
    # the agent's call is in the trace; the judge's (same server, same path) is not
    assert len(rec.trace.exchanges) == 1
    assert [s["type"] for s in rec.trace.steps()] == ["llm_call"]
    assert len(fake_openai.requests) == 2

    # replay serves the agent from the cassette and never sends; the judge still goes out
    fake_openai.script(text_reply(verdict(0.7)))
    with Recording("replay", cassette=Cassette(rec.trace.steps(), name="judge-test")) as replay:
        assert judge.score("a", "b").score == 0.7
    assert len(fake_openai.requests) == 3
    assert replay.trace.exchanges == []

    # a scope that blocks every LLM call (CI without a snapshot) does not block the judge
    fake_openai.script(text_reply(verdict(0.6)))
    with Recording("replay", block="no LLM calls here") as blocked:
        assert judge.score("a", "b").score == 0.6
    assert blocked.blocked_calls == 0


def test_the_judge_module_imports_no_http_library_or_sdk() -> None:
    code = (
        "import sys, agentsnap.diff.meaning.judge\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in {'httpx', 'httpx2', 'openai', 'requests', 'urllib3'}))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.strip() == "[]"


# ------------------------------------------------------------------ the snapshot fixture


FIXTURE_TESTS = textwrap.dedent(
    """
    import pytest
    from agentsnap import AgentRegressionError, Snapshot, SnapshotStore

    def _golden(snapshot, name):
        SnapshotStore(snapshot._session.settings.snapshot_path).save(
            Snapshot(name=name, output="The meeting is on Thursday at 3pm.", approved=True)
        )

    def test_judge_is_on_when_a_key_resolves(snapshot):
        _golden(snapshot, "judged")
        with pytest.raises(AgentRegressionError) as err:
            with snapshot.assert_agent("judged") as a:
                a.output = "The meeting is on Thursday at 5pm."
        report = err.value.diff_report
        assert report.backend != "judge"  # the meaning check scored it; the judge confirmed
        assert report.details["semantic"]["output"]["judge"]["votes"] == "2 of 2"
        assert report.reasons["output"][0] == (
            "judge confirmed the failure (2 of 2 calls): The time changed."
        )

    def test_judge_false_forces_embeddings(snapshot):
        _golden(snapshot, "judged-lexical")  # (one snapshot name per test)
        with snapshot.assert_agent("judged-lexical", judge=False, embedding_backend="lexical") as a:
            a.output = "The meeting is on Thursday at 3pm!"
        assert a.report.backend == "lexical"
    """
)


def test_the_snapshot_fixture_turns_the_judge_on_when_a_key_resolves(
    pytester: pytest.Pytester, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_openai.script(*[text_reply(verdict(0.2, "The time changed."))] * 2)
    pytester.makepyfile(test_fixture_judge=FIXTURE_TESTS)
    monkeypatch.setenv("AGENTSNAP_JUDGE_API_KEY", KEY)
    monkeypatch.setenv("AGENTSNAP_JUDGE_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("AGENTSNAP_JUDGE_MODEL", "judge-model")
    monkeypatch.delenv("CI", raising=False)
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-q")
    result.assert_outcomes(passed=2)
    request, _ = fake_openai.requests  # two calls agreed; judge=False sent nothing
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["model"] == "judge-model"


def test_the_session_judge_ignores_replay_placeholder_keys_and_missing_keys(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    from agentsnap._pytest.session import DUMMY_KEY as _DUMMY_KEY
    from agentsnap.pytest_plugin import AgentsnapSession

    for var in ["AGENTSNAP_JUDGE_API_KEY", *(v for _, v in config.PROVIDER_KEY_MAP)]:
        monkeypatch.delenv(var, raising=False)
    settings = config.load(tmp_path, env={})
    assert AgentsnapSession(request.config, settings).judge() is None
    monkeypatch.setenv("OPENROUTER_API_KEY", _DUMMY_KEY)  # what --agentsnap-replay sets
    assert AgentsnapSession(request.config, settings).judge() is None
    monkeypatch.setenv("OPENROUTER_API_KEY", "real-key")
    session = AgentsnapSession(request.config, settings)
    judge = session.judge()
    assert isinstance(judge, LLMJudge) and session.judge() is judge


# ------------------------------------------------------------------ agentsnap 0.5.1's judge API


def test_score_compares_and_converts_like_a_float_and_keeps_the_reason(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(
        text_reply(verdict(0.75, "Mostly the same.")), text_reply(verdict(0.2, "Contradicts."))
    )
    judge = judge_for(fake_openai)
    first = judge.score("golden text", "new text", key="llm_call[0]")
    # 0.5.1 code: `judge.score(a, b) > 0.5`, arithmetic, float(), formatting
    assert first > 0.5 and first < 0.8 and first == 0.75 and float(first) == 0.75
    assert isinstance(first, float) and type(float(first)) is float
    assert f"{first:.2f}" == "0.75" and round(first * 4) == 3 and max(first, 0.1) == 0.75
    assert first.reason == "Mostly the same." and first.score == 0.75
    score, reason = first  # the (score, reason) form still unpacks
    assert (score, reason) == (0.75, "Mostly the same.")
    second = judge.score("golden text", "other text")
    assert second < first and sorted([first, second]) == [second, first]
    assert judge.last_reasons() == {
        "llm_call[0]": "Mostly the same.",
        "comparison[1]": "Contradicts.",
    }
    assert Judgement(0.75, "Mostly the same.") == first != Judgement(0.75, "Other reason.")
    import pickle

    assert pickle.loads(pickle.dumps(first)) == first


def test_a_051_style_judge_returning_floats_works_in_compute_diff() -> None:
    class FloatJudge:
        """The protocol of agentsnap 0.5.1's LLMJudge: score(old, new, key=None) -> float, last_reasons()."""

        def __init__(self) -> None:
            self.reasons: dict[str, str] = {}

        def score(self, old: str, new: str, key: str | None = None) -> float:
            self.reasons[str(key)] = f"{old} vs {new}"
            return 0.1

        def last_reasons(self) -> dict[str, str]:
            return dict(self.reasons)

    report = compute_diff({"output": "a"}, {"output": "b"}, judge=FloatJudge(), judge_mode="score")
    assert report.semantic_scores == {"output": 0.1}
    assert report.failed_checks == ["semantic:output"]
    assert report.reasons["output"] == ["judge: a vs b"]
    assert report.semantic_reasons == {"output": "judge: a vs b"}


# ------------------------------------------------------------------ confirm on fail (issue 29)

LATE = {"trace": [], "output": "The meeting is on Thursday at 3pm in room B."}


def test_confirm_mode_asks_only_about_failing_texts_and_passes_on_a_majority(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(
        text_reply(verdict(0.95, "Same meeting, other words.")),
        text_reply(verdict(0.3, "The room changed.")),
        text_reply(verdict(0.9, "Same meeting.")),
    )
    judge = judge_for(fake_openai)
    same = {"trace": [], "output": "The meeting is on Thursday at 3pm in room B. Thanks!"}
    assert compute_diff(LATE, same, judge=judge, embedding_backend="lexical").passed
    assert fake_openai.requests == []  # the meaning check passed it: no call

    moved = {"trace": [], "output": LATE["output"] + " Coffee will be served in the hall."}
    report = compute_diff(LATE, moved, judge=judge, embedding_backend="lexical")
    judged = report.details["semantic"]["output"]["judge"]
    assert len(fake_openai.requests) == 3  # 1 pass, 1 fail, the third decides
    assert judged == {
        "passed": True,
        "votes": "2 of 3",
        "scores": [0.95, 0.3, 0.9],
        "reasons": ["Same meeting, other words.", "The room changed.", "Same meeting."],
        "threshold": 0.7,
    }
    assert report.passed and report.failed_checks == []
    assert report.reasons["output"][0] == (
        "judge passed it (2 of 3 calls): Same meeting, other words."
    )
    line = next(x for x in report.render().splitlines() if x.strip().startswith("output:"))
    assert "< threshold 92%, the judge passed it (2 of 3 calls)" in line


def test_confirm_mode_keeps_a_failure_the_judge_confirms_and_skips_unrelated_answers(
    fake_openai: FakeOpenAI,
) -> None:
    fake_openai.script(*[text_reply(verdict(0.1, "Friday is not Thursday."))] * 2)
    judge = judge_for(fake_openai)
    friday = {"trace": [], "output": "The meeting is on Friday at 3pm in room B."}
    report = compute_diff(LATE, friday, judge=judge, embedding_backend="lexical")
    assert report.failed_checks == ["semantic:output"]
    assert len(fake_openai.requests) == 2  # two agreeing calls are a majority
    assert report.reasons["output"][0] == (
        "judge confirmed the failure (2 of 2 calls): Friday is not Thursday."
    )
    unrelated = {"trace": [], "output": "Your parcel left the depot in Leeds."}
    report = compute_diff(LATE, unrelated, judge=judge, embedding_backend="lexical")
    assert report.failed_checks == ["semantic:output"]
    assert "judge" not in report.details["semantic"]["output"]  # far below: never asked
    assert len(fake_openai.requests) == 2


def test_judge_mode_is_checked() -> None:
    with pytest.raises(ValueError, match="judge_mode must be 'confirm' or 'score'"):
        compute_diff({"output": "a"}, {"output": "b"}, judge_mode="vote")


AUTO_TEST = textwrap.dedent(
    """
    import os
    import openai

    def test_meeting():
        client = openai.OpenAI(base_url=os.environ["FAKE_BASE_URL"], api_key="sk-test", max_retries=0)
        reply = client.chat.completions.create(
            model="gpt-4o-mini", messages=[{"role": "user", "content": "When is the meeting?"}]
        )
        assert reply.choices[0].message.content
    """
)


def test_auto_snapshots_have_the_judge_confirm_a_failing_text(
    pytester: pytest.Pytester, fake_openai: FakeOpenAI, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session's judge confirms failing texts of auto-snapshots (and so of each live sample
    of --agentsnap-runs), as it does in the fixture's blocks."""
    pytest.importorskip("openai")
    pytester.makepyfile(test_auto=AUTO_TEST)
    monkeypatch.setenv("FAKE_BASE_URL", fake_openai.base_url)
    monkeypatch.delenv("CI", raising=False)
    for var in ["AGENTSNAP_JUDGE_API_KEY", *(v for _, v in config.PROVIDER_KEY_MAP)]:
        monkeypatch.delenv(var, raising=False)
    said = "The meeting is on Thursday at 3pm in room B."
    fake_openai.script(text_reply(said))
    pytester.runpytest_subprocess("-p", "no:randomly", "-q", "--agentsnap-record").assert_outcomes(
        passed=1
    )
    monkeypatch.setenv("AGENTSNAP_JUDGE_API_KEY", KEY)
    monkeypatch.setenv("AGENTSNAP_JUDGE_BASE_URL", fake_openai.base_url)
    monkeypatch.setenv("AGENTSNAP_JUDGE_MODEL", "judge-model")
    fake_openai.script(
        text_reply(said + " Coffee will be served in the hall."),  # the agent, live
        *[text_reply(verdict(0.95, "Same meeting; a harmless addition."))] * 2,  # the judge
    )
    result = pytester.runpytest_subprocess("-p", "no:randomly", "-q", "--agentsnap-live")
    result.assert_outcomes(passed=1)
    judged = [r for r in fake_openai.requests if r.body.get("model") == "judge-model"]
    assert len(judged) == 2  # the meaning check failed the added claim; two calls agreed: pass


@pytest.mark.parametrize(
    ("line", "said"),
    [
        ('judge_mode = "vote"', "bad value 'vote' for 'judge_mode'"),
        ('validate_tool_calls = "yes"', "bad value 'yes' for 'validate_tool_calls'"),
    ],
)
def test_a_bad_choice_in_the_settings_is_refused_where_it_is_read(
    tmp_path: Path, line: str, said: str
) -> None:
    (tmp_path / "pyproject.toml").write_text(f"[tool.agentsnap]\n{line}\n", encoding="utf-8")
    with pytest.raises(ValueError) as bad:
        config.load(tmp_path, env={})
    assert said in str(bad.value) and "pyproject.toml" in str(bad.value)
    assert "expected one of" in str(bad.value)
