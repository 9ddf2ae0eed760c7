"""Replay is offline in every thread: the socket guard.

While a test must run offline (replay from its snapshot, or CI with no usable
snapshot) every thread, event loop and HTTP client of the process reaches
loopback and ``allowed_hosts`` only; anything else fails with
:class:`agentsnap.NetworkBlockedError` naming the host and the remedy, before
a DNS query or a SYN leaves the machine. Outside those tests the guard is not
installed at all.

Addresses used: ``192.0.2.1`` (TEST-NET-1, RFC 5737: never routed) and names
under ``.invalid`` / real provider hosts, whose lookups the guard must stop
before they happen.
"""

from __future__ import annotations

import asyncio
import builtins
import concurrent.futures
import socket
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agentsnap import AgentAsserter, NetworkBlockedError, Snapshot, SnapshotStore, config
from agentsnap.capture import guard
from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from tests._support.ci import CI_MARKERS, clear_ci

pytest_plugins = ["pytester"]

BLACKHOLE = ("192.0.2.1", 9)

_SOCKET_ATTRS = ("getaddrinfo", "gethostbyname", "gethostbyname_ex")
_METHODS = ("connect", "connect_ex", "sendto")


@pytest.fixture(autouse=True)
def _pristine_sockets() -> Iterator[None]:
    """Each test starts and ends with the socket module untouched (set up before, and
    torn down after, the test's own monkeypatch)."""
    before_mod = {name: getattr(socket, name) for name in _SOCKET_ATTRS}
    before_cls = {name: socket.socket.__dict__.get(name) for name in _METHODS}
    yield
    assert not guard.active(), "a test left the guard on"
    guard.configure(())
    for name, value in before_mod.items():
        setattr(socket, name, value)
    for name, value in before_cls.items():
        if value is None:
            if name in socket.socket.__dict__:
                delattr(socket.socket, name)
        else:
            setattr(socket.socket, name, value)


@pytest.fixture(autouse=True)
def _local_not_ci(_pristine_sockets: None, monkeypatch: pytest.MonkeyPatch) -> None:
    clear_ci(monkeypatch)


def _connect(address: tuple[str, int] = BLACKHOLE) -> None:
    sock = socket.socket(
        socket.AF_INET6 if ":" in address[0] else socket.AF_INET, socket.SOCK_STREAM
    )
    sock.settimeout(0.3)
    try:
        sock.connect(address)
    finally:
        sock.close()


_GROUPS = tuple(t for t in (getattr(builtins, "BaseExceptionGroup", None),) if t is not None)


def _assert_blocked(exc: BaseException, host: str) -> None:
    while _GROUPS and isinstance(exc, _GROUPS) and len(exc.exceptions) == 1:  # type: ignore[attr-defined]  # anyio's happy eyeballs
        exc = exc.exceptions[0]  # type: ignore[attr-defined]
    assert isinstance(exc, NetworkBlockedError), f"not blocked by agentsnap: {exc!r}"
    text = str(exc)
    assert host in text and "allowed_hosts" in text and "--agentsnap-record" in text
    assert "\n" not in text


def _not_blocked(fn: Any) -> None:
    """Runs ``fn``; whatever happens (connected, refused, timed out), agentsnap did not block it."""
    try:
        fn()
    except BaseException as exc:
        assert not isinstance(exc, NetworkBlockedError), exc


def _raises_blocked(fn: Any, host: str) -> None:
    with pytest.raises(BaseException) as info:
        fn()
    _assert_blocked(info.value, host)


# --------------------------------------------------------------------------- every path out


def test_main_thread_connect_and_connect_ex_are_refused() -> None:
    with guard.guarded("testing"):
        _raises_blocked(_connect, "192.0.2.1:9")
        sock = socket.socket()
        try:
            _raises_blocked(lambda: sock.connect_ex(BLACKHOLE), "192.0.2.1")
        finally:
            sock.close()
        _raises_blocked(lambda: socket.create_connection(BLACKHOLE, timeout=0.3), "192.0.2.1")


def test_dns_lookups_are_refused_before_any_query(monkeypatch: pytest.MonkeyPatch) -> None:
    looked_up: list[Any] = []
    real = socket.getaddrinfo

    def spy(host: Any, *args: Any, **kwargs: Any) -> Any:
        looked_up.append(host)
        return real(host, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", spy)
    with guard.guarded("testing"):
        _raises_blocked(lambda: socket.getaddrinfo("api.openai.com", 443), "api.openai.com:443")
        _raises_blocked(
            lambda: socket.gethostbyname("generativelanguage.googleapis.com"),
            "generativelanguage.googleapis.com",
        )
        _raises_blocked(
            lambda: socket.create_connection(("api.anthropic.com", 443), timeout=0.3),
            "api.anthropic.com",
        )
        _raises_blocked(
            lambda: urllib.request.urlopen("http://example.invalid/", timeout=0.3),
            "example.invalid",
        )
        assert socket.getaddrinfo("localhost", 80)  # loopback names resolve
    assert looked_up == ["localhost"]  # nothing else reached the resolver


def test_worker_threads_are_guarded_too() -> None:
    with guard.guarded("testing"), concurrent.futures.ThreadPoolExecutor(4) as pool:
        futures = [pool.submit(_connect), pool.submit(socket.getaddrinfo, "api.groq.com", 443)]
        errors = [f.exception() for f in futures]
    _assert_blocked(errors[0], "192.0.2.1")  # type: ignore[arg-type]
    _assert_blocked(errors[1], "api.groq.com")  # type: ignore[arg-type]


def test_asyncio_connections_and_lookups_are_guarded() -> None:
    async def by_name() -> Any:
        return await asyncio.wait_for(asyncio.open_connection("api.mistral.ai", 443), 2)

    async def by_address() -> Any:
        return await asyncio.wait_for(asyncio.open_connection(*BLACKHOLE), 2)

    async def raw_socket() -> Any:
        loop = asyncio.get_running_loop()
        sock = socket.socket()
        sock.setblocking(False)
        try:
            await asyncio.wait_for(loop.sock_connect(sock, BLACKHOLE), 2)
        finally:
            sock.close()

    with guard.guarded("testing"):
        for make, host in (
            (by_name, "api.mistral.ai"),
            (by_address, "192.0.2.1"),
            (raw_socket, "192.0.2.1"),
        ):
            _raises_blocked(lambda make=make: asyncio.run(make()), host)


def test_http_clients_and_sdk_retries_do_not_swallow_the_error() -> None:
    import httpx
    import openai

    with guard.guarded("testing"):
        _raises_blocked(
            lambda: httpx.get("https://api.cohere.com/v2/models", timeout=1), "api.cohere.com"
        )
        _raises_blocked(
            lambda: asyncio.run(httpx.AsyncClient(timeout=1).get("https://192.0.2.1/")), "192.0.2.1"
        )
        # an SDK request agentsnap does not recognise (custom User-Agent) is not served by replay:
        # it reaches the socket layer, and the SDK's retry loop does not turn the error into APIConnectionError
        client = openai.OpenAI(
            api_key="sk-x", default_headers={"User-Agent": "my-agent/1.0"}, max_retries=3, timeout=1
        )
        _raises_blocked(lambda: client.models.list(), "api.openai.com")


def test_loopback_and_fake_servers_stay_reachable() -> None:
    import httpx

    from tests.fake_provider import FakeOpenAI, text_reply

    with FakeOpenAI() as fake, guard.guarded("testing"):
        fake.script(text_reply("hi"))
        reply = httpx.post(
            f"{fake.base_url}/chat/completions", json={"model": "m", "messages": []}, timeout=5
        )
        assert reply.json()["choices"][0]["message"]["content"] == "hi"
        port = fake.port
        httpx.get(f"http://localhost:{port}/nothing", timeout=5)  # by name
        for host in ("127.0.0.1", "127.1.2.3", "0.0.0.0"):
            with pytest.raises(OSError) as info:
                _connect((host, 1))  # refused by the OS, not by agentsnap
            assert not isinstance(info.value, NetworkBlockedError)
        assert (
            guard.host_allowed("::1")
            and guard.host_allowed("::ffff:127.0.0.1")
            and guard.host_allowed("[::1]")
        )
        assert guard.host_allowed("svc.localhost") and not guard.host_allowed(
            "localhost.example.com"
        )
        unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)  # local IPC is never network
        with pytest.raises(OSError):
            unix.connect("/nonexistent/agentsnap.sock")
        unix.close()


def test_allowed_hosts_names_globs_addresses_and_networks(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.agentsnap]\nallowed_hosts = ["db.internal", "*.svc.cluster.local", "10.1.2.3", "172.16.0.0/12"]\n',
        encoding="utf-8",
    )
    settings = config.apply(config.load(tmp_path, env={}))
    assert settings.allowed_hosts == [
        "db.internal",
        "*.svc.cluster.local",
        "10.1.2.3",
        "172.16.0.0/12",
    ]
    reached: list[Any] = []

    def fake_connect(self: socket.socket, address: Any) -> None:
        reached.append(address[0])

    def fake_getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.99.0.7", port))]

    monkeypatch.setattr(socket.socket, "connect", fake_connect)
    monkeypatch.setattr(socket, "getaddrinfo", fake_getaddrinfo)
    with guard.guarded("testing"):
        for host in ("10.1.2.3", "172.20.1.1"):
            _connect((host, 5432))
        assert socket.getaddrinfo("redis.svc.cluster.local", 6379)[0][4][0] == "10.99.0.7"
        _connect(("10.99.0.7", 6379))  # an address an allowed name resolved to
        socket.getaddrinfo("db.internal", 5432)
        _raises_blocked(lambda: socket.getaddrinfo("db.external", 5432), "db.external")
        _raises_blocked(lambda: _connect(("10.1.2.4", 5432)), "10.1.2.4")
    assert reached == ["10.1.2.3", "172.20.1.1", "10.99.0.7"]
    with pytest.raises(ValueError, match="allowed_hosts"):
        config.load(tmp_path, env={}, overrides={"allowed_hosts": [""]})


# --------------------------------------------------------------------------- when it is on


def _replay_recording() -> Recording:
    return Recording("replay", cassette=Cassette([]))


def test_only_replay_and_blocked_recordings_turn_it_on_and_it_comes_off_after() -> None:
    originals = {name: getattr(socket, name) for name in _SOCKET_ATTRS}
    with Recording("capture"):
        assert not guard.active()
        assert "connect" not in socket.socket.__dict__
    with Recording("replay", block="CI, no snapshot"):
        assert guard.active()
        with pytest.raises(BaseException) as info:
            _connect()
        assert "this is CI and the test has no usable snapshot" in str(info.value)
    rec = _replay_recording().start()
    assert guard.active()
    rec.stop()
    rec.stop()  # twice: harmless
    assert not guard.active()
    assert all(
        name not in socket.socket.__dict__ for name in _METHODS
    )  # removed, not merely disabled
    assert {name: getattr(socket, name) for name in _SOCKET_ATTRS} == originals


def test_nested_and_out_of_order_scopes() -> None:
    outer = guard.activate("outer")
    inner = guard.activate("inner")
    guard.deactivate(outer)
    assert guard.active()
    _raises_blocked(_connect, "192.0.2.1")
    guard.deactivate(inner)
    guard.deactivate(inner)  # unknown token: ignored
    assert not guard.active()


def test_other_patches_on_top_are_never_clobbered(monkeypatch: pytest.MonkeyPatch) -> None:
    """Another plugin patches socket.connect while the guard is on, and undoes it after the guard is gone."""
    calls: list[Any] = []
    token = guard.activate("testing")
    ours = socket.socket.__dict__["connect"]

    def theirs(self: socket.socket, address: Any) -> Any:
        calls.append(address)
        return ours(self, address)

    with monkeypatch.context() as m:
        m.setattr(socket.socket, "connect", theirs)
        guard.deactivate(token)
        assert socket.socket.__dict__["connect"] is theirs  # left alone
        with pytest.raises(OSError) as info:
            _connect(("127.0.0.1", 1))
        assert not isinstance(info.value, NetworkBlockedError)
        _not_blocked(_connect)  # the guard is off: our wrapper, still in their chain, does nothing
    # their undo put our (inert) wrapper back; the next activation reuses it
    with guard.guarded("again"):
        _raises_blocked(_connect, "192.0.2.1")
    assert len(calls) == 2


def test_replay_blocks_in_the_python_api(tmp_path: Path) -> None:
    SnapshotStore(tmp_path).save(Snapshot(name="offline", trace=[], approved=True))
    with (
        pytest.raises(BaseException) as info,
        AgentAsserter("offline", snapshot_dir=tmp_path, mode="replay"),
    ):
        with concurrent.futures.ThreadPoolExecutor(1) as pool:
            pool.submit(_connect).result()
    _assert_blocked(info.value, "192.0.2.1")
    assert "replays from its snapshot" in str(info.value)
    assert not guard.active()


# --------------------------------------------------------------------------- through pytest


TEST_FILE = """
import asyncio, socket, threading
import pytest
from agentsnap.capture import guard

def connect(host="192.0.2.1", port=9):
    s = socket.socket(); s.settimeout(0.3)
    try:
        s.connect((host, port))
    finally:
        s.close()

def test_replayed_main_thread():
    assert guard.active()
    connect()

def test_replayed_worker_thread():
    errors = []
    def work():
        try:
            socket.getaddrinfo("api.openai.com", 443)
        except BaseException as exc:
            errors.append(exc)
    t = threading.Thread(target=work); t.start(); t.join()
    raise errors[0]

def test_replayed_asyncio():
    asyncio.run(asyncio.open_connection("api.anthropic.com", 443))

def test_replayed_loopback_is_fine():
    srv = socket.create_server(("127.0.0.1", 0))
    socket.create_connection(srv.getsockname()).close()
    srv.close()

def test_allowed_host_passes_the_guard():
    try:
        connect("198.51.100.7")  # may connect, time out or be unreachable: not agentsnap's business
    except BaseException as exc:
        assert type(exc).__name__ != "NetworkBlockedError", exc

def test_no_snapshot_here():
    assert guard.active() is GUARD_EXPECTED
"""


def _snapshot_for(root: Path, nodeid: str) -> None:
    SnapshotStore(root).save(Snapshot(name=nodeid, trace=[], approved=True))


#: the child pytest loads agentsnap's plugin only (PYTEST_DISABLE_PLUGIN_AUTOLOAD): a quicker start
ONLY_AGENTSNAP = ("-p", "agentsnap.pytest_plugin", "-p", "no:cacheprovider")


def test_pytest_replay_guards_each_test_that_replays(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml('[tool.agentsnap]\nallowed_hosts = ["198.51.100.7"]\n')
    # replay is offline for the whole run: a test with no snapshot is guarded too
    pytester.makepyfile(test_guarded=TEST_FILE.replace("GUARD_EXPECTED", "True"))
    root = pytester.path / "__agent_snapshots__"
    for name in ("main_thread", "worker_thread", "asyncio", "loopback_is_fine"):
        _snapshot_for(root, f"test_guarded.py::test_replayed_{name}")
    _snapshot_for(root, "test_guarded.py::test_allowed_host_passes_the_guard")
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP, "--agentsnap-replay")
    result.assert_outcomes(passed=3, failed=3)
    out = result.stdout.str()
    assert (
        "agentsnap: blocked a connection to 192.0.2.1:9: the test replays from its snapshot" in out
    )
    assert "agentsnap: blocked a DNS lookup of api.openai.com:443" in out
    assert "agentsnap: blocked a DNS lookup of api.anthropic.com:443" in out


def test_pytest_ci_without_a_snapshot_is_guarded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytester.makepyfile(test_guarded=TEST_FILE.replace("GUARD_EXPECTED", "True"))
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    args = (*ONLY_AGENTSNAP, "--agentsnap-instrument", "-k", "no_snapshot or main_thread")
    # (locally, outside replay, a missing snapshot is captured live with no guard: test_local_live_run_is_not_guarded)
    monkeypatch.setenv("CI", "true")
    ci = pytester.runpytest_subprocess(*args)
    ci.assert_outcomes(passed=1, failed=1)
    assert (
        "agentsnap: blocked a connection to 192.0.2.1:9: this is CI and the test has no usable snapshot"
        in ci.stdout.str()
    )
    assert not (pytester.path / "__agent_snapshots__").exists()


IMPORT_TIME = """
import socket
from agentsnap.capture import guard

GUARDED_AT_IMPORT = guard.active()
try:
    socket.getaddrinfo("api.openai.com", 443)
    LOOKUP = "resolved"
except BaseException as exc:  # NetworkBlockedError is a BaseException
    LOOKUP = type(exc).__name__ + ": " + str(exc)

def test_import_time_was_guarded():
    assert GUARDED_AT_IMPORT is True
    assert LOOKUP.startswith("NetworkBlockedError: agentsnap: blocked a DNS lookup of api.openai.com:443: this run replays"), LOOKUP
"""

CONFTEST_IMPORT = """
from agentsnap.capture import guard
GUARDED_IN_CONFTEST = guard.active()

def pytest_sessionfinish(session):
    with open("conftest_guard.txt", "w") as fh:
        fh.write(str(GUARDED_IN_CONFTEST))
"""


@pytest.mark.parametrize("ci", [False, True], ids=["local", "ci"])
def test_replay_guards_the_whole_run_from_conftest_and_module_import(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, ci: bool
) -> None:
    """An SDK call made while a test module (or conftest.py) is imported under --agentsnap-replay never leaves the machine."""
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for var in CI_MARKERS:
        monkeypatch.delenv(var, raising=False)
    if ci:
        monkeypatch.setenv("CI", "true")
    pytester.makeconftest(CONFTEST_IMPORT)
    pytester.makepyfile(test_import=IMPORT_TIME)
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP, "--agentsnap-replay")
    result.assert_outcomes(passed=1)
    assert (pytester.path / "conftest_guard.txt").read_text() == "True"


def test_local_live_run_is_not_guarded(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    for var in CI_MARKERS:
        monkeypatch.delenv(var, raising=False)
    pytester.makepyfile(test_guarded=TEST_FILE.replace("GUARD_EXPECTED", "False"))
    result = pytester.runpytest_subprocess(
        *ONLY_AGENTSNAP, "--agentsnap-instrument", "-k", "no_snapshot"
    )
    result.assert_outcomes(passed=1)


@pytest.mark.parametrize(
    "host", [b"localhost", bytearray(b"127.0.0.1"), b"xn--bcher-kva.example", b"\xff\xfe.example"]
)
def test_the_guard_reads_hosts_given_as_bytes(host: Any) -> None:
    """Async httpx clients pass the host as bytes: the guard decides, it never crashes (the idna codec is strict-only)."""
    with guard.guarded("bytes hosts"):
        text = bytes(host)
        if text in (b"localhost", b"127.0.0.1"):
            assert guard.host_allowed(host) is True
        else:
            assert guard.host_allowed(host) is False
            with pytest.raises(NetworkBlockedError, match="blocked a DNS lookup of"):
                socket.getaddrinfo(host, 443)


def test_async_httpx_to_localhost_passes_the_guard() -> None:
    """``httpx.AsyncClient`` to ``http://localhost:PORT`` under the guard: allowed (it used to raise UnicodeError)."""
    import httpx

    from tests.fake_provider import FakeOpenAI

    async def call(url: str) -> int:
        async with httpx.AsyncClient() as client:
            return (await client.get(url)).status_code

    with FakeOpenAI() as fake, guard.guarded("async localhost"):
        url = fake.base_url.replace("127.0.0.1", "localhost")
        status = asyncio.run(call(url + "/models"))
    assert status in (200, 404)


_CONFTEST_DIALS = """
import socket
try:
    socket.create_connection(("198.51.100.9", 80), timeout=0.5).close()
except OSError:
    pass  # no route here: what matters is whether agentsnap let the attempt through
"""


@pytest.mark.parametrize("how", ["pyproject", "flag"])
def test_a_conftest_that_dials_out_in_replay_is_a_usage_error_naming_it(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, how: str
) -> None:
    """The guard is on before the root conftest is imported whether replay comes from the
    flag or from ``[tool.agentsnap] mode``; the block is a usage error naming the conftest,
    not pytest's internal traceback."""
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("AGENTSNAP_MODE", raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    if how == "pyproject":
        pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "replay"\n')
    pytester.makeconftest(_CONFTEST_DIALS)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    args = [*ONLY_AGENTSNAP] + (["--agentsnap-replay"] if how == "flag" else [])
    result = pytester.runpytest_subprocess(*args)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    err = result.stderr.str()
    assert "blocked a connection to 198.51.100.9:80" in err
    assert f"raised while importing {pytester.path / 'conftest.py'}" in err
    assert "Traceback" not in err


def test_record_mode_lets_a_conftest_dial_out(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("AGENTSNAP_MODE", raising=False)
    monkeypatch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")
    pytester.makepyprojecttoml('[tool.agentsnap]\nmode = "replay"\n')
    pytester.makeconftest(_CONFTEST_DIALS)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_subprocess(*ONLY_AGENTSNAP, "--agentsnap-record")
    assert result.ret == pytest.ExitCode.OK, result.stderr.str()


SDK_AT_IMPORT = """
import os

import openai

client = openai.OpenAI(base_url=os.environ["FAKE_OPENAI_URL"], api_key="sk-test", max_retries=0)
try:
    AT_IMPORT = client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
except openai.APIError as exc:  # what a live run may get; agentsnap's refusal is not one
    AT_IMPORT = exc
"""

OUTSIDE_ANY_TEST = "an LLM call was made outside any test (while importing a conftest.py, importing or collecting a test module, or in a hook) and this run replays"


@pytest.mark.parametrize("where", ["test-module", "conftest"])
@pytest.mark.parametrize("mode", ["--agentsnap-replay", "--agentsnap-live"])
def test_an_sdk_call_at_import_is_never_sent_in_replay(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, where: str
) -> None:
    """The socket guard lets loopback through, so an SDK call to a loopback server made while
    a test module or a conftest.py is imported is refused at the send seam: replay serves a
    test's calls, and none runs then. The live run is the control: the same code does reach
    the server."""
    from tests.fake_provider import FakeOpenAI, text_reply

    clear_ci(monkeypatch)
    monkeypatch.delenv("AGENTSNAP_MODE", raising=False)
    if where == "conftest":
        pytester.makeconftest(SDK_AT_IMPORT)
        pytester.makepyfile(test_x="def test_x():\n    pass\n")
    else:
        pytester.makepyfile(
            test_import_sdk=SDK_AT_IMPORT + "\n\ndef test_after_import():\n    pass\n"
        )
    with FakeOpenAI() as fake:
        fake.script(text_reply("hello"))
        monkeypatch.setenv("FAKE_OPENAI_URL", fake.base_url)
        result = pytester.runpytest_subprocess(
            "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:syrupy", mode
        )
        sent = len(fake.requests)
    out = result.stdout.str()
    if mode == "--agentsnap-live":
        assert sent == 1, out
        result.assert_outcomes(passed=1)
        return
    assert sent == 0, out
    assert not (pytester.path / "__agent_snapshots__").exists()
    if where == "conftest":
        err = result.stderr.str()
        assert result.ret == pytest.ExitCode.USAGE_ERROR, err
        assert f"agentsnap: {OUTSIDE_ANY_TEST}" in err
        assert f"raised while importing {pytester.path / 'conftest.py'}" in err
        assert "Traceback" not in err
        return
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert "ERROR collecting test_import_sdk.py" in out
    assert f"agentsnap.exceptions.ReplayMissError: agentsnap: {OUTSIDE_ANY_TEST}" in out


def _run_against_fake(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, module: str, *args: str
) -> tuple[pytest.RunResult, int]:
    """``module`` as a test file, run in a subprocess (CI cleared) against a fake OpenAI server
    whose URL is ``FAKE_OPENAI_URL``: the result and the requests the server received."""
    from tests.fake_provider import FakeOpenAI, text_reply

    clear_ci(monkeypatch)
    monkeypatch.delenv("AGENTSNAP_MODE", raising=False)
    pytester.makepyfile(test_module=module)
    with FakeOpenAI() as fake:
        fake.script(text_reply("hello"))
        monkeypatch.setenv("FAKE_OPENAI_URL", fake.base_url)
        result = pytester.runpytest_subprocess(
            "-p", "no:randomly", "-p", "no:cacheprovider", "-p", "no:syrupy", *args
        )
        return result, len(fake.requests)


OUTSIDE_COUNTED = (
    "agentsnap: 1 LLM call(s) were made outside any test's recording (while a test module was "
    "imported or collected, in a hook, or in a fixture's teardown): no snapshot holds them, and "
    "a replay run refuses them."
)


@pytest.mark.parametrize("xdist", [False, True])
@pytest.mark.parametrize("mode", ["--agentsnap-record", "--agentsnap-live"])
def test_an_sdk_call_at_import_is_counted_in_record_and_live_runs(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch, mode: str, xdist: bool
) -> None:
    """A record or live run sends a call made while a test module is imported (replay refuses
    it), but no test's recording holds it: the summary counts it and says what replay will do,
    instead of the record run writing nothing and saying nothing."""
    module = SDK_AT_IMPORT + "\n\ndef test_after_import():\n    pass\n"
    workers = ("-n", "1") if xdist else ()  # one worker: the module is imported once
    result, sent = _run_against_fake(pytester, monkeypatch, module, mode, *workers)
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    assert sent == 1, out
    assert OUTSIDE_COUNTED in " ".join(out.split())
    assert "no snapshot was written" not in out
    assert not list((pytester.path / "__agent_snapshots__").glob("*.json"))


SDK_IN_TEST = """
import os

import openai


def test_call():
    client = openai.OpenAI(base_url=os.environ["FAKE_OPENAI_URL"], api_key="sk-test", max_retries=0)
    client.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "hi"}])
"""


def test_a_record_run_with_every_call_inside_a_test_counts_none_outside(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    result, _ = _run_against_fake(pytester, monkeypatch, SDK_IN_TEST, "--agentsnap-record")
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.OK, out
    assert "outside any test" not in out
    assert "agentsnap: 1 recorded (approved)" in out


RAW_SOCKET_AT_IMPORT = """
import os
import socket
from urllib.parse import urlsplit

# a request no hooked client sends (a raw socket), that looks like an LLM call
_url = urlsplit(os.environ["FAKE_OPENAI_URL"])
_body = b'{"model": "gpt-4o-mini", "messages": [{"role": "user", "content": "hi"}]}'
_sock = socket.create_connection((_url.hostname, _url.port))
_sock.sendall(
    b"POST /v1/chat/completions HTTP/1.1\\r\\nHost: api.openai.com\\r\\n"
    b"Content-Type: application/json\\r\\nContent-Length: %d\\r\\nConnection: close\\r\\n\\r\\n"
    % len(_body) + _body
)
_sock.recv(65536)
_sock.close()


def test_ok():
    pass
"""


def test_what_the_outside_recording_warns_is_a_late_failure_under_warnings_as_errors(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An uncaptured LLM-looking request made at import in a record run: its warning, said as
    the session ends, fails the run under ``-W error`` with the summary still written (not a
    traceback out of pytest's hook)."""
    result, _ = _run_against_fake(
        pytester,
        monkeypatch,
        RAW_SOCKET_AT_IMPORT,
        "--agentsnap-record",
        "-W",
        "error::agentsnap.AgentsnapWarning",
    )
    out = result.stdout.str()
    assert result.ret == pytest.ExitCode.TESTS_FAILED, out + result.stderr.str()
    assert "looks like an LLM call but was not captured" in out
    assert "1 passed" in out
    assert "Traceback" not in result.stderr.str()


def test_a_run_that_configures_without_a_session_leaves_no_recording(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``--help`` configures the plugin and never starts a session: the record run's recording
    of calls outside any test is stopped at unconfigure all the same."""
    from agentsnap.capture import active

    clear_ci(monkeypatch)
    before = list(active._stack)
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    result = pytester.runpytest_inprocess("--agentsnap-record", "--help", "-p", "no:cacheprovider")
    assert result.ret == pytest.ExitCode.OK
    assert [r for r in active._stack if r not in before] == []


def test_consecutive_in_process_record_runs_leave_no_recording(
    pytester: pytest.Pytester, monkeypatch: pytest.MonkeyPatch
) -> None:
    """pytester drops the modules an in-process run imported, but the package keeps its
    attribute: the second run's plugin gets the first run's module object without a new entry in
    ``sys.modules``. Each run still stops its own recording of the calls outside any test."""
    from agentsnap.capture import active, observe

    clear_ci(monkeypatch)
    before, observing = list(active._stack), observe._users
    pytester.makepyfile(test_x="def test_x():\n    pass\n")
    for _ in range(3):
        result = pytester.runpytest_inprocess("--agentsnap-record", "-p", "no:cacheprovider")
        assert result.ret == pytest.ExitCode.OK
        assert [r for r in active._stack if r not in before] == []
        assert observe._users == observing  # the socket observer is left as it was found
