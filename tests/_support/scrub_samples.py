"""Strings the redaction rules act on, for the Hypothesis tests of the scrub fast paths.

``SECRET`` is a credential a test remembers; ``TOUCHY`` holds strings a rule changes (a token
shape, the remembered credential, a user pattern's match, a secret key's name) and ones that only
look odd in JSON (a quote, a backslash, line separators, non-ASCII); a test adds its own.
"""

from __future__ import annotations

from agentsnap.storage.scrub import REDACTED

SECRET = "Zx9-remembered-credential-4471"

TOUCHY = [
    "sk-proj-" + "A1b2C3d4" * 5,
    f"key is {SECRET}",
    "Bearer abcdefghijklmnop123456",
    "acct_12345",
    "password",
    "api_key",
    'say "hi"',
    "path\\to",
    REDACTED,
    "é ☀ \n\t",
    "\u2028",
]

#: user ``redact`` rules the properties run under: none, a pattern, a JSON path
RULES = [None, {"patterns": ["acct_[0-9]+"]}, {"paths": ["..city"]}]


def set_rules(rules: object, remember: bool) -> None:
    """A new process's redaction state under ``rules``, with :data:`SECRET` remembered (from an
    ``Authorization`` header) when ``remember``."""
    from agentsnap.storage import scrub

    scrub.forget_secrets()
    scrub.configure(rules)
    if remember:
        scrub.remember_credentials([("authorization", f"Bearer {SECRET}")])
