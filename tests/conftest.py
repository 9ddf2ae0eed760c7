"""Shared fixtures for the agentsnap test suite."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest
from hypothesis import HealthCheck, settings

from agentsnap.config import is_ci
from tests._support.offline import Offline
from tests.fake_provider import FakeOpenAI

# Hypothesis: in CI (the CI rule of agentsnap.config.is_ci) a fixed profile, so a
# run is reproducible: derandomised (examples derive from each test's source),
# bounded, no example database, no deadline (shared CI machines are slow).
# Tests that set max_examples themselves keep their own (bounded) number.
settings.register_profile(
    "ci",
    derandomize=True,
    max_examples=50,
    database=None,
    deadline=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow],
)
settings.register_profile("dev", max_examples=100)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if is_ci() else "dev"))


@pytest.fixture
def fake_openai() -> Iterator[FakeOpenAI]:
    """A started FakeOpenAI (fresh per test); ``.base_url`` is ``http://127.0.0.1:<port>/v1``."""
    with FakeOpenAI() as fake:
        yield fake


@pytest.fixture(autouse=True)
def _inner_runs_without_syrupy(request: pytest.FixtureRequest) -> Iterator[None]:
    """The pytest runs tests start (pytester, subprocesses) run without syrupy: with syrupy
    active, `snapshot` is syrupy's (agentsnap's rule, ``snapshot_fixture = "auto"``), and
    the inner projects use agentsnap's `snapshot` as a project without syrupy does.
    tests/test_syrupy_coexistence.py runs with both."""
    if "pytester" in request.fixturenames:
        # Pytester deletes PYTEST_ADDOPTS when it starts: start it first, then set ours
        request.getfixturevalue("pytester")
    # its own MonkeyPatch, not the `monkeypatch` fixture: requesting that here would set it up
    # before every test's own fixtures and so tear it down after them
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("PYTEST_ADDOPTS", "-p no:syrupy")
        yield


@pytest.fixture
def offline(monkeypatch: pytest.MonkeyPatch) -> Iterator[Offline]:
    """``with offline(): ...`` refuses every outgoing connection and fails the test if one was tried."""
    guard = Offline(monkeypatch)
    yield guard
    assert guard.attempts == [], f"replay opened sockets: {guard.attempts}"


@pytest.fixture
def fresh_scrub() -> Iterator[None]:
    """The redaction rules and remembered credentials as a new process has them, before and after."""
    from agentsnap.storage import scrub

    scrub.forget_secrets()
    scrub.configure(None)
    yield
    scrub.forget_secrets()
    scrub.configure(None)
