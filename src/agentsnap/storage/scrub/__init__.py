"""Secret scrubbing for everything agentsnap stores.

Request headers are never stored at all (they carry API keys). Everything
else that is stored — URL queries, request and response bodies, streamed
chunks, kept response headers, tool arguments and results, a snapshot's input
and output — goes through this module:

* at capture time (:mod:`agentsnap.capture.request`), so the replay key of a
  request is computed from the scrubbed request, exactly as it will be stored,
  and a scrubbed recording still matches the live request it came from;
* again when a snapshot is built and when it is saved (idempotent, so a second
  pass changes nothing), which covers tool calls reported by adapters and
  snapshots built through the Python API.

It never runs on load: a stored snapshot is served as it is.

What is replaced by ``<redacted>``:

* every credential a request of this process carried (remembered by
  :func:`remember_credentials`, which the send wrappers call with each
  request's headers and URL before anything of it is stored), wherever its
  value appears, in each form :func:`secret_forms` lists (plain,
  JSON-escaped, URL-encoded, base64 at any alignment): one Aho-Corasick pass
  (``ahocorasick-rs``) over the text for all of them at once;
* the shapes of other credentials — URL passwords (``scheme://user:PASSWORD@``),
  AWS secret keys and session tokens (``aws_secret_access_key = …``,
  ``"SecretAccessKey"`` / ``"SessionToken"`` JSON keys), and the credential
  kinds of detect-secrets' plugin set (Slack, Stripe, GitLab, npm, SendGrid,
  PEM private keys), written here as expressions: detect-secrets itself scans
  line by line with every plugin plus entropy checks, far too slow to run on
  every request, and it would bring its own dependencies;
* token shapes, wherever they appear in text: OpenAI ``sk-…`` / ``sk-proj-…``,
  Anthropic ``sk-ant-…``, Google ``AIza…``, Groq ``gsk_…``, Hugging Face
  ``hf_…``, GitHub ``ghp_…`` and friends, AWS access key ids, JWTs, and the
  credential after ``Bearer``;
* the value after a credential header name written out in text
  (``Authorization: Basic …``, ``x-api-key: …``, ``api-key=…``,
  ``x-goog-api-key: …``), after a secret JSON key inside a JSON string
  (``"password": "…"``, ``"client_secret": "…"``, ``"api_key": "…"``) and
  after a secret query or form parameter (``?key=…``, ``&access_token=…``);
* the value of a secret key in a JSON object (``password``, ``api_key``,
  ``client_secret``, ``access_token``, ``authorization`` … compared without
  case, ``-`` or ``_``);
* URL query parameters named ``key``, ``api_key``, ``apikey``, ``api-key``,
  ``access_token``, ``token`` …, and ``user:password@`` in a URL;
* the value of a kept response header that identifies the account
  (:data:`ACCOUNT_HEADERS`, plus a spec's ``[response] mask_headers``);
  request ids are kept (not secrets; the SDKs' ``_request_id`` reads them);
* whatever the user's ``redact`` setting names (:func:`configure`);
* in a streamed response, any of the above sent in pieces across events (the
  deltas of one field joined first, :func:`scrub_chunks`).

Bytes that are not text (uploads, non-UTF-8 bodies, bytes in tool values) are
scrubbed in place by :func:`scrub_bytes` (same length, ``*``) before they are
stored as base64 envelopes or side files. Not scrubbed: a snapshot's ``name``
(the test's node id, by which the file is found).

Idempotence: a placeholder is never matched again — every text rule runs on
the pieces between existing placeholders, to a fixed point — so
``scrub(scrub(x)) == scrub(x)`` for every rule, the user's included.
"""

from __future__ import annotations

from .chunks import scrub_chunks
from .credentials import (
    MIN_SECRET_LENGTH,
    forget_secrets,
    remember_credentials,
    remember_secret,
    remembered,
    scrub_bytes,
    secret_forms,
)

# the public scrubbing API, from the module that does each job
from .rules import (
    ACCOUNT_HEADERS,
    CREDENTIAL_HEADERS,
    REDACTED,
    Redaction,
    active,
    configure,
    parse_redact,
)
from .text import mask_header, scrub_text
from .walk import (
    scrub_json,
    scrub_parsed_json,
    scrub_snapshot,
    scrub_step,
    scrub_url,
    scrub_value,
)

__all__ = [
    "ACCOUNT_HEADERS",
    "CREDENTIAL_HEADERS",
    "MIN_SECRET_LENGTH",
    "REDACTED",
    "Redaction",
    "active",
    "configure",
    "forget_secrets",
    "mask_header",
    "parse_redact",
    "remember_credentials",
    "remember_secret",
    "remembered",
    "scrub_bytes",
    "scrub_chunks",
    "scrub_json",
    "scrub_parsed_json",
    "scrub_snapshot",
    "scrub_step",
    "scrub_text",
    "scrub_url",
    "scrub_value",
    "secret_forms",
]
