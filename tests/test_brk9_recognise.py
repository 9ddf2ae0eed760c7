"""brk9 (a reviewer's reproducer, c69eac8): what ``recognise`` keeps of a request read before is
stamped with the remembered credentials' version read *after* the request was remembered and
classified. A ``forget_secrets()`` landing in between (another thread; simulated here by a
``classify`` that calls it) stamps the entry with the new, empty store's version: the key the
request carries is never remembered again while its headers stay the same, and is not masked.

Base a71a8c0: the next identical request is read again and its key remembered (masked from then
on). Main (967d150): the key stays unknown (``scrub_text`` keeps it). Race-only (forget_secrets
is the tests' API); reading the version before ``remember_and_user_agent`` would close it.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest


def _request(key: str) -> httpx.Request:
    headers = {"User-Agent": "OpenAI/Python 3.63.0", "Authorization": f"Bearer {key}"}
    return httpx.Request("POST", "https://api.openai.com/v1/chat/completions", headers=headers)


def test_a_key_forgotten_while_its_request_was_read_is_remembered_by_the_next(
    fresh_scrub: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agentsnap.capture import exchange
    from agentsnap.storage import scrub

    key = "Qz7hTq2Lw9xPv4Rm8Kd3"  # no known key shape: masked only once remembered
    classify = exchange.classify
    raced: list[int] = []

    def forgetting(*args: Any, **kwargs: Any) -> Any:
        if not raced:  # another thread's forget_secrets() between remember and classify
            raced.append(1)
            scrub.forget_secrets()
        return classify(*args, **kwargs)

    monkeypatch.setattr(exchange, "classify", forgetting)
    assert exchange.recognise(_request(key)) is not None
    monkeypatch.setattr(exchange, "classify", classify)
    assert exchange.recognise(_request(key)) is not None
    assert key in scrub.remembered()
    assert key not in scrub.scrub_text(f"the key {key} here")
