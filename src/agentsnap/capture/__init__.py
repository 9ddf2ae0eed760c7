"""The capture layer: send-level hooks on httpx/httpx2, switched at run time.

See :mod:`agentsnap.capture.hooks` (installation), :mod:`agentsnap.capture.send`
(the wrappers), :mod:`agentsnap.spec.providers` (provider recognition) and
:class:`Recording` (the active scope).
"""

from .hooks import install, is_installed
from .recording import Recording

__all__ = ["Recording", "install", "is_installed"]
