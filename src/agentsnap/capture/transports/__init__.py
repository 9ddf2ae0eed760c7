"""Transport adapters beyond httpx: each one translates one HTTP library's
request and response objects for :mod:`agentsnap.capture.core`.

* :mod:`.stdlib`: ``http.client.HTTPConnection`` (``urllib.request`` and any
  code speaking ``http.client`` directly);
* :mod:`.urllib3`: ``urllib3.HTTPConnectionPool.urlopen`` (``requests``,
  botocore, plain urllib3);
* :mod:`.aiohttp`: ``aiohttp.ClientSession._request``;
* :mod:`.lm15`: DSPy's bundled transport (``dspy._vendor.lm15.transports``),
  which speaks HTTP/1.1 over raw sockets.

Each registers through :mod:`agentsnap.capture.hooks` (wrapt post-import
hooks, idempotent); none is imported before its library is.
"""
