"""False alarms of the meaning check read away by kind (issue 29, the false-alarm round), each on a
short pair written here (not taken from a dev or the frozen set): the harmless form passes, and its
near miss, which changes what the answer says, still fails with the finding that names it.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


def _verdict(golden: str, new: str) -> tuple[bool, list[str]]:
    verdict = compare(golden, new)
    return verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


_FEATURES = "| Feature | Supported |\n|---|---|\n| SSO | Yes |\n| SCIM | {} |\n| Audit log | Yes |"
_FEATURES_SAID = "SSO and the audit log are supported, but SCIM is not."
_SERVICES = "| Service | Inclus |\n|---|---|\n| Wi-Fi | Oui |\n| Petit-déjeuner | {} |"
_SERVICES_SAID = "Le Wi-Fi est inclus, le petit-déjeuner ne l'est pas."


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (_FEATURES_SAID, _FEATURES.format("No")),
        (_FEATURES.format("No"), _FEATURES_SAID),
        (_SERVICES_SAID, _SERVICES.format("Non")),
        # a header whose words are no plain capitalised word keeps its spelling
        (
            "Both hotels have Wi-Fi; only Sol serves breakfast.",
            "| Hotel | Wi-Fi | Breakfast |\n|---|---|---|\n| Alma | Yes | No |\n| Sol | Yes | Yes |",
        ),
    ],
)
def test_a_yes_no_column_says_its_header_or_denies_it(golden: str, new: str) -> None:
    passed, messages = _verdict(golden, new)
    assert passed, messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (_FEATURES_SAID, _FEATURES.format("Yes")),
        (_FEATURES.format("Yes"), _FEATURES_SAID),
        (_SERVICES_SAID, _SERVICES.format("Oui")),
    ],
)
def test_a_yes_no_cell_that_says_the_opposite_still_fails(golden: str, new: str) -> None:
    passed, messages = _verdict(golden, new)
    assert not passed, messages
    assert any("yes/no" in m or "polarity" in m for m in messages), messages


_PLANS = "| Plan | Unlimited data | Phone support |\n|---|---|---|\n| Basic | Yes | No |\n| Pro | Yes | {} |"
_TARIFE = (
    "| Tarif | Flatrate | Telefonsupport |\n|---|---|---|\n| Basis | Ja | Nein |\n| Pro | Ja | {} |"
)


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # what "only Pro" grants Pro it denies Basic: Basic's "No" is the sentence's reading
        (
            "Both plans include unlimited data, but only Pro includes phone support.",
            _PLANS.format("Yes"),
            True,
        ),
        (
            "Beide Tarife enthalten eine Flatrate, aber nur Pro enthält Telefonsupport.",
            _TARIFE.format("Ja"),
            True,
        ),
        # the member "only" names denied: a flip
        (
            "Both plans include unlimited data, but only Pro includes phone support.",
            _PLANS.format("No"),
            False,
        ),
    ],
)
def test_only_one_member_denies_it_to_the_rows_of_the_others(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        (
            "**Status:** Shipped\n**Carrier:** DHL\n**Due:** Friday",
            "Your parcel has shipped with DHL and is due on Friday.",
            True,
        ),
        (  # a value that only denies is said by a sentence that names the label and negates
            "**Status:** Paid\n**Amount:** €120\n**Due:** none",
            "The invoice of €120 is paid, so nothing is due.",
            True,
        ),
        (
            "**Status:** Genehmigt\n**Betrag:** 420 €\n**Fällig:** 15. März",
            "Ihr Antrag wurde genehmigt: 420 €, fällig am 15. März.",
            True,
        ),
        (  # the status no sentence says: still dropped
            "**Status:** Shipped\n**Carrier:** DHL\n**Due:** Friday",
            "Your parcel has been delayed; DHL says it is due on Friday.",
            False,
        ),
        (
            "**Status:** Paid\n**Amount:** €120\n**Due:** none",
            "The invoice of €120 is paid, and the rest is due Friday.",
            False,
        ),
        (
            "**Status:** Genehmigt\n**Betrag:** 420 €\n**Fällig:** 15. März",
            "Ihr Antrag wurde abgelehnt: 420 €, fällig am 15. März.",
            False,
        ),
    ],
)
def test_a_label_line_whose_value_the_prose_says_is_not_dropped(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if passes:
        assert not any("sentence dropped" in m for m in messages), messages


_LIMIT = "Your limit has been raised to 500 requests per minute, effective immediately."
_MUSEUM = "Die Ausstellung ist bis zum 31. August verlängert."


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (_LIMIT, f"{_LIMIT} Best regards, the Developer Support team"),
        (_LIMIT, f"{_LIMIT} We look forward to hearing from you – kind regards, Customer Care"),
        (
            _MUSEUM,
            f"{_MUSEUM} Wir freuen uns auf Ihren Besuch – mit freundlichen Grüßen, Ihr Museumsteam",
        ),
        (
            "La inscripción está confirmada.",
            "La inscripción está confirmada. Un saludo cordial y quedamos a su disposición "
            "para cualquier duda.",
        ),
    ],
)
def test_a_sign_off_and_the_signature_after_it_are_courtesy(golden: str, new: str) -> None:
    passed, messages = _verdict(golden, new)
    assert passed, messages
    assert any(m.startswith("courtesy added") for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (_LIMIT, f"{_LIMIT} Best regards, and note that the daily cap drops to 100,000 on Monday."),
        (_LIMIT, f"{_LIMIT} Kind regards, the Support team in Berlin will not raise it again."),
        (_MUSEUM, f"{_MUSEUM} Wir freuen uns auf Ihren Besuch – der Eintritt ist frei."),
    ],
)
def test_a_claim_after_a_sign_off_is_still_a_claim(golden: str, new: str) -> None:
    passed, messages = _verdict(golden, new)
    assert not passed, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        ("It's not $30 — the refund is $20.", "The refund is $20.", True),
        ("The refund is $20.", "It's not $30 — the refund is $20.", True),
        ("Es sind nicht 30 €, die Erstattung beträgt 20 €.", "Die Erstattung beträgt 20 €.", True),
        ("Ce n'est pas 30 €, le remboursement est de 20 €.", "Le remboursement est de 20 €.", True),
        # the denied value made the answer, or the correction turned round: still a change
        ("It's not $30 — the refund is $20.", "The refund is $30.", False),
        ("It's not $30 — the refund is $20.", "It's not $20 — the refund is $30.", False),
        ("It's not $30 — the refund is $20.", "The refund is $25.", False),
    ],
)
def test_a_value_denied_on_the_way_to_the_right_one_is_no_fact(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # "Uhr" after a time is the time's unit, in a sentence read as German or not
        ("The tour starts at 10:00.", "The tour starts at 10 Uhr.", True),
        ("Abfahrt 10 Uhr, Ankunft 12 Uhr", "Abfahrt um 10:00, Ankunft um 12:00", True),
        ("Abfahrt 10 Uhr, Ankunft 12 Uhr", "Abfahrt um 10:00, Ankunft um 13:00", False),
        ("The tour starts at 10:00.", "The tour starts at 11 Uhr.", False),
        # an abbreviation by initials says its words, defined in parentheses or not
        (
            "The free tier allows 100 requests per minute (RPM).",
            "The free tier allows 100 RPM.",
            True,
        ),
        ("The free tier allows 100 RPM.", "The free tier allows 100 requests per minute.", True),
        (
            "Free tier: 100 requests per minute (RPM), 10,000 tokens per minute (TPM).",
            "Free tier: 100 RPM, 10,000 TPM.",
            True,
        ),
        ("The free tier allows 100 RPM.", "The free tier allows 100 requests per hour.", False),
        (
            "The free tier allows 100 requests per minute (RPM).",
            "The free tier allows 100 RPS.",
            False,
        ),
    ],
)
def test_a_unit_or_initials_written_another_way_is_the_same_value(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_EVENING = "The Year 7 open evening is on 9 October at 18:00 in the main hall."
_VISA = "Your application is still being processed; you will get an email as soon as a decision has been made."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        (
            _EVENING,
            "We'd love to see you at the Year 7 open evening on 9 October at 18:00 in the main "
            "hall — just come along.",
            True,
        ),
        (
            _VISA,
            "Hello, and thank you for getting in touch! I completely understand how stressful "
            "waiting can be. Your application is still being processed; as soon as there's a "
            "decision, we'll send you an email.",
            True,
        ),
        # a fact inside the invitation, a claim beside the sympathy: still read
        (
            _EVENING,
            "We'd love to see you at the Year 7 open evening on 10 October at 18:00 in the main "
            "hall — just come along.",
            False,
        ),
        (
            _VISA,
            "I completely understand how stressful waiting can be. Your application is no "
            "longer being processed; as soon as there's a decision, we'll send you an email.",
            False,
        ),
    ],
)
def test_an_invitation_or_sympathy_around_the_same_facts_is_courtesy(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a conclusion cue inside a time clause concludes nothing
        (_VISA, "Your application is still being processed; once decided, we'll email you.", True),
        (
            "Once the checks pass, you should merge the branch.",
            "Once the checks pass, do not merge the branch.",
            False,
        ),
    ],
)
def test_a_decision_awaited_is_no_conclusion(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_TARIFA = "**Tarifa:** Luz Fija 24h\n**Potencia contratada:** 4,6 kW\n**Permanencia:** ninguna"
_FIBRE = "**Plan:** Fibre 500\n**Speed:** 500 Mbps\n**Minimum term:** none"


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a label whose value only denies is said by prose that negates it
        (
            _TARIFA,
            "Tiene la tarifa Luz Fija 24h con 4,6 kW. El contrato no tiene permanencia.",
            True,
        ),
        (_FIBRE, "You are on Fibre 500 at 500 Mbps. There is no minimum term.", True),
        ("You are on Fibre 500 at 500 Mbps. There is no minimum term.", _FIBRE, True),
        (_TARIFA, "Tiene la tarifa Luz Fija 24h con 4,6 kW. El contrato tiene permanencia.", False),
        (_FIBRE, "You are on Fibre 500 at 500 Mbps. There is a minimum term.", False),
        ("You are on Fibre 500 at 500 Mbps. There is a minimum term.", _FIBRE, False),
        (_FIBRE, "You are on Fibre 500 at 500 Mbps.", False),
    ],
)
def test_a_label_whose_value_denies_is_a_negation(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_BILL = "To reduce your bill, move files older than 90 days to the Cold tier and delete unused snapshots."
_TIPS = "1. Move files older than 90 days to the Cold tier.\n2. Delete unused snapshots.\n\n"
_RESTART = "1. Stop the service.\n2. Delete the cache folder.\n3. Start the service.\n\n"


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a pointer to one of the answer's own steps names a place in it, no fact
        (_BILL, f"{_TIPS}If you'd like, I can walk you through a lifecycle rule for step 1.", True),
        (
            "1. Stoppen Sie den Dienst.\n2. Löschen Sie den Cache.",
            "1. Stoppen Sie den Dienst.\n2. Löschen Sie den Cache.\n\nBei Schritt 2 helfe ich gern.",
            True,
        ),
        # a step the answer does not have, or both answers pointing to different steps
        (
            _BILL,
            f"{_TIPS}If you'd like, I can walk you through a lifecycle rule for step 3.",
            False,
        ),
        (
            f"{_RESTART}If it still fails, repeat step 2.",
            f"{_RESTART}If it still fails, repeat step 1.",
            False,
        ),
    ],
)
def test_a_pointer_to_the_answers_own_step_is_no_fact(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_LIMIT_HIT = "Your API key hit the hourly limit of 5,000 requests at 09:47 UTC."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # sympathy restates the reader's trouble; its failing is no claim of the answer
        (
            _LIMIT_HIT,
            "I understand how frustrating it is when calls start failing, so let me explain what "
            f"happened. {_LIMIT_HIT}",
            True,
        ),
        # a signature block: sign-off, name, practice "am Stadtpark"
        (
            "Die Blutwerte von Luna sind im Normalbereich.",
            "Guten Tag Frau Becker,\n\nLunas Blutwerte liegen im Normalbereich.\n\n"
            "Mit freundlichen Grüßen\nDr. Anna Keller\nTierarztpraxis am Stadtpark",
            True,
        ),
        (
            _LIMIT_HIT,
            "I understand how frustrating it is when calls start failing, so note that the limit "
            f"does not reset today. {_LIMIT_HIT}",
            False,
        ),
        (
            "Die Blutwerte von Luna sind im Normalbereich.",
            "Guten Tag Frau Becker,\n\nLunas Blutwerte liegen im Normalbereich.\n\n"
            "Mit freundlichen Grüßen\nDr. Anna Keller\nBitte kommen Sie am 3. Mai zur Kontrolle",
            False,
        ),
    ],
)
def test_sympathy_and_a_signature_block_are_courtesy(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        ("The fine is $0.20 per day.", "The fine is 20 cents a day.", True),
        ("The fine is $0.20 per day.", "There is a 20-cent daily fine.", True),
        ("Die Gebühr beträgt 0,50 € pro Tag.", "Die Gebühr beträgt 50 Cent pro Tag.", True),
        ("The fine is $0.20 per day.", "The fine is 25 cents a day.", False),
        ("The fine is 20 cents a day.", "The fine is $0.30 per day.", False),
        # a price in cents with decimals stays in cents
        (
            "Der Arbeitspreis beträgt 32,4 Cent pro kWh.",
            "Der Arbeitspreis beträgt 32,0 Cent pro kWh.",
            False,
        ),
    ],
)
def test_a_sum_in_cents_is_the_hundredth_of_its_currency(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_DONE = "Your application is complete. Decisions are sent out by 15 March."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # thanks for the reader's request, or the request restated, name what the reader named
        (_DONE, "Thank you for applying to our Master's programme! " + _DONE, True),
        (_DONE, "Good question — you asked about the MBA deadline. " + _DONE, True),
        (_DONE, "Vielen Dank für Ihre Bewerbung bei der TU Berlin! " + _DONE, True),
        (_DONE, "Merci pour votre candidature au programme Erasmus. " + _DONE, True),
        # past the clause of thanks the sentence claims again: its names are facts
        (
            _DONE,
            "Thank you for applying, your application to the Master's programme is complete. "
            "Decisions are sent out by 15 March.",
            False,
        ),
        (
            "The refund was sent.",
            "Thanks for your patience — the refund was sent to Berlin.",
            False,
        ),
        ("The refund was sent.", "Thanks for your payment of $40. The refund was sent.", False),
    ],
)
def test_thanks_for_the_readers_request_names_no_fact(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_MIGRATION = (
    "The migration touches {} tables. `users` gets a new nullable column `locale`. "
    "`orders` gets an index on `created_at`. The `sessions` table is dropped."
)
_STEPS = (
    "### Migration changes\n1. `users` — add nullable column `locale`\n"
    "2. `orders` — add index on `created_at`\n3. `sessions` — drop table"
)

_PAPERS = "Documents:\n- your passport\n- your birth certificate\n- a proof of address"
_NEEDED = (
    "Bring {} documents. You need your passport. You need your birth certificate. "
    "You need a proof of address."
)


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a count the other answer says by the length of its list
        (_MIGRATION.format("three"), _STEPS, True),
        (_PAPERS, _NEEDED.format("three"), True),
        (_NEEDED.format("three"), _PAPERS, True),
        # a count the list does not match is a changed count
        (_MIGRATION.format("four"), _STEPS, False),
        (_MIGRATION.format("two"), _STEPS, False),
        (_PAPERS, _NEEDED.format("four"), False),
        (_NEEDED.format("two"), _PAPERS, False),
    ],
)
def test_a_count_is_the_length_of_the_list_the_other_lays_out(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if not passes:
        assert any("numbers differ" in m for m in messages), messages


_BUS = (
    "The N12 doesn't stop at Elm Street until Friday; use the temporary stop on Oak Road instead."
)
_NOTICE = "We can cancel your contract immediately without the usual notice period."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a word of omission is the negation the other answer says; a stop that is a place is
        # no end of anything
        (
            _BUS,
            "Until Friday the N12 skips Elm Street and calls at a temporary stop on Oak Road.",
            True,
        ),
        (
            _NOTICE,
            "We can cancel your contract right away, skipping the usual notice period.",
            True,
        ),
        (
            "The N12 stops at Elm Street until Friday.",
            "The N12 calls at Elm Street until Friday.",
            True,
        ),
        # the halt said, or the omission denied, is a flip
        (
            _BUS,
            "Until Friday the N12 stops at Elm Street and at a temporary stop on Oak Road.",
            False,
        ),
        (
            "The N12 stops at Elm Street until Friday.",
            "The N12 skips Elm Street until Friday.",
            False,
        ),
        (
            "The N12 skips Elm Street until Friday.",
            "The N12 stops at Elm Street until Friday.",
            False,
        ),
        (
            _NOTICE,
            "We can cancel your contract right away, keeping the usual notice period.",
            False,
        ),
        (
            "The nightly job skips the integration tests.",
            "The nightly job does not skip them.",
            False,
        ),
    ],
)
def test_a_word_of_omission_is_the_negation_the_other_says(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if not passes:
        assert any("polarity" in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # "nothing is wrong with X" is one denial of a fault: "X is not affected"
        (
            "The test and build stages are not affected.",
            "Nothing is wrong with the build and test stages.",
            True,
        ),
        ("Nothing is wrong with the build stage.", "The build stage is not affected.", True),
        # a fault said, or the stage said affected, is a flip
        (
            "Nothing is wrong with the build stage.",
            "Something is wrong with the build stage.",
            False,
        ),
        ("Nothing is wrong with the build stage.", "The build stage is affected.", False),
        (
            "The test and build stages are affected.",
            "Nothing is wrong with the build and test stages.",
            False,
        ),
    ],
)
def test_nothing_wrong_is_one_denial_of_a_fault(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if not passes:
        assert any("polarity" in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a state left is the state denied: "out of stock" = "not in stock", 「在庫切れ」 = 「在庫 0個」
        (
            "Shrink wrap: not in stock, backorder allowed.",
            "Shrink wrap is out of stock, though backorders are allowed.",
            True,
        ),
        (
            "The lift is out of service until Monday.",
            "The lift is not in service until Monday.",
            True,
        ),
        ("Le film étirable n'est pas en stock.", "Le film étirable est en rupture de stock.", True),
        (
            "品番 A-410:在庫 0個、入荷予定 6月3日",
            "A-410は現在在庫切れで、6月3日に入荷予定です。",
            True,
        ),
        # the state said, or another count, still differs
        (
            "Shrink wrap: in stock, backorder allowed.",
            "Shrink wrap is out of stock, though backorders are allowed.",
            False,
        ),
        ("The lift is out of service until Monday.", "The lift is in service until Monday.", False),
        ("Le film étirable est en stock.", "Le film étirable est en rupture de stock.", False),
        (
            "品番 A-410:在庫 0個、入荷予定 6月3日",
            "A-410は現在在庫ありで、6月3日に入荷予定です。",
            False,
        ),
        (
            "A-410は現在在庫切れで、6月3日に入荷予定です。",
            "品番 A-410:在庫 5個、入荷予定 6月3日",
            False,
        ),
    ],
)
def test_a_state_left_is_the_state_denied(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_VISA = "The fee is £115 and the decision usually takes three weeks."


@pytest.mark.parametrize(
    ("golden", "new", "passes", "finding"),
    [
        # a decision as an event in time (it takes, it is expected, its time) concludes nothing
        (_VISA, "Fee: £115. Typical decision time: 3 weeks", True, ""),
        (
            "Die Gebühr beträgt 115 £ und die Entscheidung dauert meist drei Wochen.",
            "Gebühr: 115 £. Entscheidung dauert in der Regel drei Wochen.",
            True,
            "",
        ),
        # its time changed is a fact; a decision that concludes still concludes
        (_VISA, "Fee: £115. Typical decision time: 5 weeks", False, "numbers differ"),
        ("Decision: approve the refund.", "Decision: decline the refund.", False, "conclusion"),
        (
            "The decision usually takes three weeks, so we recommend applying now.",
            "The decision usually takes three weeks, so we recommend waiting until spring.",
            False,
            "changed",
        ),
    ],
)
def test_a_decision_as_an_event_in_time_concludes_nothing(
    golden: str, new: str, passes: bool, finding: str
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    assert any(finding in m for m in messages), messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a time zone by another of its names
        ("The meeting starts at 3:30 PM Eastern.", "Start: 15:30 ET.", True),
        ("Der Anruf ist um 10:00 MEZ.", "The call is at 10:00 CET.", True),
        # an acronym of a kind of thing beside a value the other states
        (
            "If you exceed the limit, the API returns HTTP 429.",
            "Exceeding the limit gets you a 429 response.",
            True,
        ),
        (
            "Each API key may make 60 requests per minute.",
            "Keys are capped at 60 calls a minute.",
            True,
        ),
        # another zone, another kind, or the acronym all the sentence says
        ("The meeting starts at 3:30 PM Eastern.", "Start: 15:30 PT.", False),
        (
            "If you exceed the limit, the API returns HTTP 429.",
            "If you exceed the limit, the CLI returns HTTP 429.",
            False,
        ),
        ("Upload the file through the API.", "Upload the file through the web interface.", False),
    ],
)
def test_a_zone_or_a_kind_named_another_way_is_no_name_changed(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if not passes:
        assert any("names differ" in m for m in messages), messages


_PRINTER = "To fix it, uninstall the printer in Settings and reinstall it."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a prefixed verb with its object is an undoing done, said by another verb of undoing
        (_PRINTER, "To fix it, remove the printer in Settings and install it again.", True),
        # the undoing gone, or its base said instead, is a flip
        (_PRINTER, "To fix it, install the printer in Settings.", False),
        ("Uninstall the printer in Settings.", "Install the printer in Settings.", False),
        (
            "Disconnect the printer before the update.",
            "Connect the printer before the update.",
            False,
        ),
    ],
)
def test_an_undoing_said_by_another_verb_of_undoing_is_no_flip(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
    if not passes:
        assert any("polarity" in m for m in messages), messages


_LATE = ", des pénalités de 40 € s'appliquent."
_KSCHUTZ = "Ab der Anmeldung, frühestens aber acht Wochen vor Beginn, gilt der Kündigungsschutz."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a lack that conditions is a negation ("faute de", "mangels", "in the absence of")
        (
            "Si le paiement n'est pas reçu avant le 30 avril" + _LATE,
            "Faute de paiement reçu avant le 30 avril" + _LATE,
            True,
        ),
        (
            "If no payment is received by 30 April, a €40 penalty applies.",
            "In the absence of payment by 30 April, a €40 penalty applies.",
            True,
        ),
        (
            "Wenn keine Zahlung bis zum 30. April eingeht, fällt eine Gebühr von 40 € an.",
            "Mangels Zahlung bis zum 30. April fällt eine Gebühr von 40 € an.",
            True,
        ),
        # a bound said with a negated comparative is the bound ("nicht früher als" = "frühestens")
        (
            _KSCHUTZ,
            "Der Kündigungsschutz beginnt mit der Anmeldung, allerdings nicht früher als acht Wochen vor Beginn.",
            True,
        ),
        # the payment made, or the bound dropped or moved, differs
        (
            "Si le paiement est reçu avant le 30 avril" + _LATE,
            "Faute de paiement reçu avant le 30 avril" + _LATE,
            False,
        ),
        (
            "If payment is received by 30 April, a €40 penalty applies.",
            "In the absence of payment by 30 April, a €40 penalty applies.",
            False,
        ),
        (
            _KSCHUTZ,
            "Der Kündigungsschutz beginnt mit der Anmeldung, allerdings nicht vor Beginn.",
            False,
        ),
        (
            _KSCHUTZ,
            "Der Kündigungsschutz beginnt mit der Anmeldung, allerdings nicht früher als sechs Wochen vor Beginn.",
            False,
        ),
    ],
)
def test_a_lack_negates_and_a_negated_comparative_is_a_bound(
    golden: str, new: str, passes: bool
) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a reminder asks for what it names; the occasion of a polite request adds no claim
        ("Please bring your insurance card.", "Don't forget to bring your insurance card.", True),
        ("保険証をお持ちください。", "当日は保険証をお忘れなくお持ちください。", True),
        ("保険証をお持ちください。", "ご来局の際は保険証をお持ちください。", True),
        # the request denied, or another thing asked for, differs
        ("Please bring your insurance card.", "Please don't bring your insurance card.", False),
        (
            "Please bring your insurance card.",
            "Don't forget: do not bring your insurance card.",
            False,
        ),
        ("保険証をお持ちください。", "保険証はお持ちにならないでください。", False),
    ],
)
def test_a_reminder_asks_for_what_it_names(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a German common noun after "in" ("in Rechnung stellen") names no place
        (
            "Fehlt Kraftstoff, berechnen wir eine Servicegebühr von 15 €.",
            "Ist der Tank nicht voll, stellen wir Ihnen eine Servicegebühr von 15 € in Rechnung.",
            True,
        ),
        # a place after "in" or "nach" is still a name
        ("Wir liefern in Hamburg aus.", "Wir liefern in Bremen aus.", False),
        ("Die Sendung geht morgen nach Hamburg.", "Die Sendung geht morgen nach Bremen.", False),
    ],
)
def test_a_german_common_noun_after_in_names_no_place(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a data rate in another unit is the same rate, and a unit names nothing
        ("The new plan offers up to 1 Gbps.", "The new plan offers up to 1,000 Mbps.", True),
        (
            "新しいプランの通信速度は最大1Gbpsです。",
            "新プランの最大通信速度は1,000Mbpsです。",
            True,
        ),
        # another rate differs
        ("The new plan offers up to 1 Gbps.", "The new plan offers up to 100 Mbps.", False),
        ("新しいプランの通信速度は最大1Gbpsです。", "新プランの最大通信速度は100Mbpsです。", False),
    ],
)
def test_a_data_rate_in_another_unit_is_the_same_rate(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_TICKETS = "| Ticket | Price (€) |\n|---|---|\n| Adult | 18 |\n| Child under 6 | {} |"


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a price of 0 is "free"
        (
            "Adult tickets are €18 and children under 6 enter free.",
            _TICKETS.format("0 (free)"),
            True,
        ),
        ("Der Eintritt für Kinder ist kostenlos.", "Eintritt Kinder: 0 €", True),
        # another price, or a 0 that is no price, differs
        ("Adult tickets are €18 and children under 6 enter free.", _TICKETS.format("5"), False),
        ("Der Eintritt für Kinder ist kostenlos.", "Eintritt Kinder: 5 €", False),
        ("Der Eintritt für Kinder kostet 5 €.", "Eintritt Kinder: 0 €", False),
    ],
)
def test_a_price_of_zero_is_free(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages


_NEED = "**Documents you'll need:**\n- your W-2\n- last year's return"
_NEED_SAID = "You'll need your W-2 and last year's return."


@pytest.mark.parametrize(
    ("golden", "new", "passes"),
    [
        # a line in bold that opens a list is its label
        (_NEED, _NEED_SAID, True),
        # a member left out, or an opener that negates (a claim), still fails
        (_NEED, "You'll need your W-2.", False),
        ("**Do not sign the lease yet:**\n- your W-2\n- last year's return", _NEED_SAID, False),
        ("Do not sign the lease yet:\n- your W-2\n- last year's return", _NEED_SAID, False),
    ],
)
def test_a_bold_line_opening_a_list_is_its_label(golden: str, new: str, passes: bool) -> None:
    passed, messages = _verdict(golden, new)
    assert passed is passes, messages
