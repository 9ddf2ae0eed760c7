"""One base for every agentsnap exception, and the built-in bases each keeps (issue 15)."""

from __future__ import annotations

import pickle

import pytest

import agentsnap
from agentsnap import exceptions
from agentsnap.extract import ExtractionError

#: the documented classes and the built-in base each had before AgentsnapError existed
KEEPS = {
    "AgentRegressionError": AssertionError,
    "SnapshotPendingError": AssertionError,
    "SnapshotNotFoundError": FileNotFoundError,
    "SnapshotFormatError": ValueError,
    "ReplayError": RuntimeError,
}
#: raised inside an SDK call: an ``except Exception`` (an SDK retry loop) must not catch them
NOT_EXCEPTIONS = (
    "ReplayMissError",
    "SnapshotMissingInCIError",
    "NetworkBlockedError",
    "AdapterNotWrappedError",
)


def test_every_exception_class_derives_from_agentsnap_error() -> None:
    errors = [n for n in exceptions.__all__ if n not in ("AgentsnapWarning", "AgentsnapError")]
    assert sorted(errors) == sorted([*KEEPS, *NOT_EXCEPTIONS])
    for name in errors:
        assert issubclass(getattr(exceptions, name), exceptions.AgentsnapError), name
    assert issubclass(ExtractionError, exceptions.AgentsnapError)
    assert issubclass(ExtractionError, TypeError)


def test_the_classes_keep_their_builtin_bases() -> None:
    for name, base in KEEPS.items():
        assert issubclass(getattr(exceptions, name), base), name
        assert issubclass(getattr(exceptions, name), Exception), name


def test_the_retry_safe_errors_are_base_exceptions_only() -> None:
    for name in NOT_EXCEPTIONS:
        cls = getattr(exceptions, name)
        assert issubclass(cls, BaseException) and not issubclass(cls, Exception), name
    assert issubclass(exceptions.NetworkBlockedError, exceptions.ReplayMissError)
    assert issubclass(exceptions.SnapshotMissingInCIError, exceptions.ReplayMissError)


def test_except_agentsnap_error_catches_them_all_and_except_exception_not_the_retry_safe_ones() -> (
    None
):
    samples = [
        exceptions.AgentRegressionError("drift"),
        exceptions.SnapshotNotFoundError("t"),
        exceptions.SnapshotFormatError("bad"),
        exceptions.SnapshotPendingError("pending"),
        exceptions.ReplayError("which golden"),
        exceptions.ReplayMissError("miss"),
        exceptions.SnapshotMissingInCIError("ci"),
        exceptions.NetworkBlockedError("blocked", host="example.com", port=443),
        exceptions.AdapterNotWrappedError("unwrapped"),
    ]
    for error in samples:
        with pytest.raises(agentsnap.AgentsnapError):
            raise error
        if not isinstance(error, Exception):
            with pytest.raises(BaseException) as info:
                try:
                    raise error
                except Exception:  # pragma: no cover - the assertion below fails instead
                    pytest.fail(f"except Exception caught {error!r}")
            assert info.value is error


def test_errors_keep_their_attributes_and_pickle() -> None:
    err = exceptions.SnapshotNotFoundError("t", "/snapshots/t.json")
    assert err.test_name == "t" and "Record it first" in str(err)
    blocked = exceptions.NetworkBlockedError("blocked", host="example.com", port=443)
    assert (blocked.host, blocked.port) == ("example.com", 443)
    regression = exceptions.AgentRegressionError("drift", diff_report=None)
    assert str(pickle.loads(pickle.dumps(regression))) == "drift"


def test_agentsnap_error_is_public() -> None:
    assert "AgentsnapError" in agentsnap.__all__
    assert agentsnap.AgentsnapError is exceptions.AgentsnapError
