"""Server-sent events (``text/event-stream``) parsing shared by the SSE codecs.

The rules are those of the WHATWG HTML Living Standard, section 9.2
"Server-sent events", subsection "Event stream interpretation"
(https://html.spec.whatwg.org/multipage/server-sent-events.html).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

__all__ = ["SSEEvent", "parse_sse"]

# The spec's end-of-line: CRLF, a lone LF or a lone CR. The order matters:
# "\r\n" must be tried before "\r" so that CRLF counts as one line end.
_LINE_END = re.compile(r"\r\n|\n|\r")


@dataclass(frozen=True)
class SSEEvent:
    """One dispatched server-sent event.

    Attributes:
        event: the event type; ``"message"`` when the block had no ``event:``
            field (the spec's default).
        data: the ``data:`` lines of the block joined with ``"\\n"`` (the
            spec's data buffer without its final newline).
        id: the last event ID string at dispatch time. Per the spec it carries
            over from earlier blocks until an ``id:`` field changes it; ``""``
            when none was ever set.
        retry: the reconnection time in milliseconds given by a ``retry:``
            field inside this event's block, or ``None``. (The spec makes this
            a connection setting, not an event attribute; it is kept here only
            so nothing on the wire is lost.)
    """

    event: str = "message"
    data: str = ""
    id: str = ""
    retry: int | None = None


def parse_sse(text: str) -> list[SSEEvent]:
    """Parse a complete ``text/event-stream`` body into its dispatched events.

    Args:
        text: the whole stream as decoded text. For a stream received in
            pieces, join the pieces first (``"".join(chunks)``): piece
            boundaries carry no meaning in SSE, so the result never depends on
            them.

    Returns:
        The events in wire order. Follows the WHATWG SSE interpretation rules:

        * one leading U+FEFF byte order mark is ignored;
        * lines end with ``"\\r\\n"``, ``"\\n"`` or a lone ``"\\r"``;
        * a line starting with ``":"`` is a comment and is ignored;
        * ``name:value`` sets field *name*; one space after the colon is
          dropped; a line with no colon is a field with an empty value;
        * ``data`` appends the value and ``"\\n"`` to the data buffer (so
          several ``data:`` lines become one multi-line string); ``event``
          sets the type; ``id`` sets the last event ID unless the value
          contains U+0000; ``retry`` is kept only when all ASCII digits;
          other fields are ignored;
        * an empty line dispatches the event, unless the data buffer is empty
          (an ``event:``-only block dispatches nothing);
        * at end of input an unterminated final block is discarded, exactly
          as a browser (and the openai SDK's decoder) would: it is not yet an
          event.

    Raises:
        Nothing for any input string.
    """
    text = text.removeprefix("\ufeff")

    events: list[SSEEvent] = []
    data_lines: list[str] = []
    has_data = False
    event_type = ""
    last_id = ""
    retry: int | None = None

    lines = _LINE_END.split(text)
    # The piece after the final line end is an unterminated line: the spec
    # only processes a line once its end-of-line has been seen.
    lines.pop()

    for line in lines:
        if line == "":
            if has_data:
                events.append(
                    SSEEvent(
                        event=event_type or "message",
                        data="\n".join(data_lines),
                        id=last_id,
                        retry=retry,
                    )
                )
            data_lines = []
            has_data = False
            event_type = ""
            retry = None
            continue
        if line.startswith(":"):
            continue
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            data_lines.append(value)
            has_data = True
        elif name == "event":
            event_type = value
        elif name == "id":
            if "\x00" not in value:
                last_id = value
        elif name == "retry" and value and value.isascii() and value.isdigit():
            retry = int(value)
    return events
