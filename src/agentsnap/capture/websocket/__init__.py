"""WebSocket connections captured and replayed: OpenAI Realtime, the Responses API's WebSocket
mode, Gemini Live — any client built on the ``websockets`` library (the map; imports nothing).

* :mod:`.seams`: the hooks (the library's Sans-I/O protocol records; its asyncio and sync
  clients' network openers are replaced in replay);
* :mod:`.frames`: one connection's record (:class:`~.frames.Connection`) and how its
  messages are stored (JSON parsed, large base64 in side files);
* :mod:`.fake`: replay, a fake server over an in-process socket pair that plays the golden's
  connection and checks each client message;
* :mod:`.turns`: a connection's model turns, read per API as the HTTP requests and responses
  the providers' codecs read;
* :mod:`.session_steps`: the ``websocket`` step of each connection and its turns, placed in
  the trace.

``docs/websocket.md`` is the user's page.
"""
