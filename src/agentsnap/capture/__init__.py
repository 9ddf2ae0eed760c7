"""The capture layer: the send seams of every HTTP library an LLM stack uses, switched at run time.

Nothing is imported here (importing ``agentsnap.capture.x`` runs this file, so
it stays empty of submodule imports and the layer has no import cycle). The
rooms, lowest first:

* :mod:`.trace` (exchanges and tool calls → snapshot steps), :mod:`.cassette`
  (recorded exchanges served by request key), :mod:`.client_ids`, :mod:`.scope`
  (what a recording given adapters accepts);
* :mod:`.active` (the state transports consult, the stack of active
  recordings) and :mod:`.recording` (:class:`~.recording.Recording`, started
  and stopped);
* the shared exchange path every transport goes through (:mod:`.contract`
  declares it; :mod:`.requests`, :mod:`.ownership`, :mod:`.sinks`,
  :mod:`.serving`, :mod:`.exchange`);
* :mod:`.transports` (one module per library, httpx included) and
  :mod:`.hooks` (installs them from the one registry);
* :mod:`.guard` (the socket guard) and :mod:`.observe` (never-silent reporting).
"""
