"""The offline guard moved to :mod:`tests._support.offline`; this path stays importable."""

from tests._support.offline import Offline

__all__ = ["Offline"]
