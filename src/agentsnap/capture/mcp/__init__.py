"""MCP sessions: captured and replayed at the client session, whatever the transport.

An MCP client (``mcp.ClientSession``, which the OpenAI Agents SDK, pydantic-ai,
langchain-mcp-adapters and FastMCP's client all use) talks to its server over a
pair of message streams that a transport opened: ``stdio_client`` (a server
subprocess), ``streamable_http_client``, ``sse_client``, ``websocket_client``, or
in-memory streams. Both mcp 1.x and 2.x pass ``SessionMessage`` objects
(one JSON-RPC message each) over those streams, so the streams are the one seam
that covers every transport and both SDK lines:

* :mod:`.servers`: who a session talks to, from the transport's arguments
  (stdio command and args, URL), scrubbed; the secrets passed to a server (its
  env, its headers) are remembered so no stored byte holds them;
* :mod:`.channel`: one session's record: its outgoing requests, each with the
  result or error and the messages the server sent meanwhile;
* :mod:`.taps`: capture: the session's streams wrapped so each message is
  noted as it passes (nothing changes on the wire);
* :mod:`.peer`: replay: a stream pair answered from the golden; the transport
  is never entered, so no process starts and no socket opens;
* :mod:`.patch`: the wrapt hooks (``ClientSession.__init__`` and each transport's
  context manager), installed when ``mcp`` is imported, never before;
* :mod:`.steps`: a recorded session as snapshot steps (``tool_call`` steps named
  ``mcp:<server>.<tool>``, ``mcp`` steps for the rest), placed in the trace.

``docs/mcp.md`` says what a user sees.
"""
