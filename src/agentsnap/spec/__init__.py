"""What agentsnap knows about providers and agent frameworks, as data.

The lowest layer of the capture side: it reads ``patches/*.toml`` and
``patches/frameworks/*.toml`` and imports nothing of :mod:`agentsnap.capture`,
:mod:`agentsnap.adapters` or :mod:`agentsnap.diff`.

* :mod:`agentsnap.spec.provider_specs`: provider specs and request recognition;
* :mod:`agentsnap.spec.provider_facts`: a provider's facts beyond recognition
  (``[sdk]``, ``[adapter]``, ``[judge]``);
* :mod:`agentsnap.spec.frameworks`: agent frameworks' conversation conventions.

This ``__init__`` imports none of them.
"""
