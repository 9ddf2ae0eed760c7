"""In replay the socket guard still blocks whatever the transport hooks do
not serve: a request no spec recognises, to a host that is not loopback,
fails with ``NetworkBlockedError`` naming the host, over every transport."""

from __future__ import annotations

import asyncio
import urllib.request

import pytest

from agentsnap.capture.cassette import Cassette
from agentsnap.capture.recording import Recording
from agentsnap.exceptions import NetworkBlockedError

URL = "http://api.blocked-host.example/v1/things"


def _urllib() -> None:
    urllib.request.urlopen(urllib.request.Request(URL, data=b"{}", method="POST"), timeout=5)


def _requests() -> None:
    import requests

    requests.post(URL, data=b"{}", timeout=5)


def _aiohttp() -> None:
    import aiohttp

    async def main() -> None:
        async with aiohttp.ClientSession() as session, session.post(URL, data=b"{}"):
            pass

    asyncio.run(main())


@pytest.mark.parametrize(
    "call", [_urllib, _requests, _aiohttp], ids=["urllib", "requests", "aiohttp"]
)
def test_an_unrecognised_request_is_blocked_in_replay(call: object) -> None:
    with Recording("replay", cassette=Cassette([])):
        with pytest.raises(NetworkBlockedError, match=r"api\.blocked-host\.example"):
            call()  # type: ignore[operator]
