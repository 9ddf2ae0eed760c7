"""Per-SDK quirk patches, installed by post-import hooks named in ``patches/*.toml``.

Each module here patches one SDK where send-level capture alone is not enough
(retry sleeps outside HTTP, a second HTTP stack, …). Rules for every patch:
installed once and never removed (``wrapt``), idempotent, gated at call time by
:func:`agentsnap.capture.active.current` (no active recording: behave exactly as
unpatched), and never raising into the user's ``import``.
"""
