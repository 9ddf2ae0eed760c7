"""Single rules of the meaning check (agentsnap.diff.meaning.verdict), each on a short pair written
here (not taken from a dev set): the verdict at the default threshold and the finding that names why.

The dev and frozen sets measure the rules together (tests/test_semantic_frozen.py); these pin what
each rule does and does not do, so a change that breaks one says which.
"""

from __future__ import annotations

import pytest

from agentsnap.diff.meaning.verdict import compare

THRESHOLD = 0.92  # semantic_threshold's default


def _messages(golden: str, new: str) -> tuple[bool, list[str]]:
    verdict = compare(golden, new)
    return verdict.score >= THRESHOLD, [f.message for f in verdict.findings]


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (  # an apology at the start, an offer with its own words at the end
            "Your refund of $42 was issued today and reaches your card in 5 business days.",
            "I'm so sorry for the trouble with this order, I completely understand the frustration. "
            "Your refund of $42 was issued today and reaches your card in 5 business days. "
            "If anything looks off on your statement, just write back and I'll dig into it!",
        ),
        (  # a comfort idiom with a negation in it ("don't worry") negates no fact
            "The printer is offline because its IP address changed. Restart it to get a new lease.",
            "Oh no, printers do this a lot, but don't worry, it's an easy one! The printer is "
            "offline because its IP address changed. Restart it to get a new lease.",
        ),
    ],
)
def test_talk_between_speaker_and_reader_at_the_edges_is_courtesy(golden: str, new: str) -> None:
    passed, messages = _messages(golden, new)
    assert passed, messages
    assert any(m.startswith("courtesy added") for m in messages), messages


@pytest.mark.parametrize(
    "added",
    [
        "I've also waived the late fee on your account.",  # an additive word: a claim
        "I have not charged the late fee.",  # a negation outside courtesy idioms
        "I moved your booking to 14:30.",  # a fact
        "I'd recommend switching to annual billing instead.",  # a recommendation
    ],
)
def test_speaker_talk_that_states_something_is_still_a_claim(added: str) -> None:
    golden = "Your invoice INV-2207 is paid and the account is active again."
    passed, messages = _messages(golden, f"{golden} {added}")
    assert not passed, messages


def test_the_same_talk_in_the_middle_of_an_answer_is_read_as_a_claim() -> None:
    golden = (
        "Your order shipped on Monday. The carrier is DHL. It arrives on Thursday. "
        "The tracking link is in your email."
    )
    new = (
        "Your order shipped on Monday. The carrier is DHL. I checked the warehouse logs myself and "
        "everything was packed twice over. It arrives on Thursday. The tracking link is in your email."
    )
    passed, messages = _messages(golden, new)
    assert not passed, messages


def test_names_in_another_order_are_a_swap_only_when_the_rest_stayed() -> None:
    swapped, messages = _messages(
        "Acme pays Globex the licence fee every March.",
        "Globex pays Acme the licence fee every March.",
    )
    assert not swapped
    assert any(m.startswith("roles swapped") for m in messages), messages
    reworded, messages = _messages(
        "An E42 code on your Miele washer means the drain pump is blocked.",
        "Miele washers show E42 when the drain pump is blocked.",
    )
    assert reworded, messages


def test_an_absence_word_is_a_negation() -> None:
    passed, messages = _messages(
        "The form is missing your tax number, so we cannot process it.",
        "The form has no tax number on it, so we cannot process it.",
    )
    assert passed, messages


def test_two_flips_in_one_sentence_do_not_cancel() -> None:
    passed, messages = _messages(
        "You have 40 days of service, so you qualify, and the transfer can go ahead on Monday.",
        "You have 40 days of service, so you do not qualify, and the transfer cannot go ahead on Monday.",
    )
    assert not passed
    assert any(m.startswith("polarity flipped") for m in messages), messages


@pytest.mark.parametrize(
    ("golden_end", "new_end", "was", "now"),
    [
        (
            "Recommendation: ship the release tonight.",
            "Recommendation: postpone the release.",
            "ship tonight",
            "postpone",
        ),
        (
            "I therefore recommend renewing the contract for another year.",
            "I therefore recommend letting the contract lapse and switching vendors.",
            "renewing",
            "switching",
        ),
    ],
)
def test_a_changed_conclusion_fails_and_quotes_both(
    golden_end: str, new_end: str, was: str, now: str
) -> None:
    facts = "The load test passed at 1,200 requests per second with no errors. "
    passed, messages = _messages(facts + golden_end, facts + new_end)
    assert not passed
    found = [m for m in messages if m.startswith("conclusion changed")]
    assert found, messages
    assert f"({was}" in found[0] and f"{now}" in found[0].split("→")[1], found


def test_a_reworded_conclusion_passes() -> None:
    passed, messages = _messages(
        "Both checks are green. You can switch to monthly billing in Settings before the renewal.",
        "Both checks are green. If you prefer monthly billing, you can switch in Settings any time "
        "before the renewal.",
    )
    assert passed, messages


def test_list_to_prose_keeps_steps_labels_and_labelled_values() -> None:
    golden = (
        "To reset your token:\n"
        "1. Sign in to the admin console.\n"
        "2. Choose **API keys**.\n"
        "3. Click Rotate and copy the new token.\n\n"
        "- **Owner:** platform team\n"
        "- **Expiry:** 90 days"
    )
    new = (
        "To reset your token, sign in to the admin console, open API keys, then click Rotate and "
        "copy the new token. The platform team owns the key and it expires after 90 days."
    )
    passed, messages = _messages(golden, new)
    assert passed, messages


def test_a_step_left_out_of_the_prose_is_still_missing() -> None:
    golden = (
        "1. Sign in to the admin console.\n"
        "2. Choose **API keys**.\n"
        "3. Revoke the old token.\n"
        "4. Click Rotate and copy the new token."
    )
    new = "Sign in to the admin console, open API keys, then click Rotate and copy the new token."
    passed, messages = _messages(golden, new)
    assert not passed
    assert any(m.startswith("step missing") for m in messages), messages


def test_almost_nothing_is_a_small_amount_not_a_negation() -> None:
    _, messages = _messages(
        "The job sends 600 requests in the first seconds and then almost nothing for the rest of the minute.",
        "The job sends 600 requests in the first seconds and then goes nearly silent for the rest of the minute.",
    )
    assert messages and not any(m.startswith("polarity flipped") for m in messages), messages


def test_a_sentence_reworded_in_its_place_is_restated_not_dropped_and_added() -> None:
    golden = (
        "The adjuster visits on Tuesday. Please keep the damaged items until the inspection is "
        "done, and photograph everything before you clean up. The claim number is CL-5521."
    )
    new = (
        "The adjuster visits on Tuesday. Hold on to the damaged belongings until that visit has "
        "happened, and take photos of all of it before any clean-up. The claim number is CL-5521."
    )
    passed, messages = _messages(golden, new)
    assert passed, messages
    assert any(m.startswith("sentence restated") for m in messages), messages


def test_a_restated_sentence_that_changes_a_fact_still_fails() -> None:
    golden = (
        "The adjuster visits on Tuesday. Please keep the damaged items for 30 days, and "
        "photograph everything before you clean up. The claim number is CL-5521."
    )
    new = (
        "The adjuster visits on Tuesday. Hold on to the damaged belongings for 14 days, and take "
        "photos of all of it before any clean-up. The claim number is CL-5521."
    )
    passed, messages = _messages(golden, new)
    assert not passed, messages
    assert any("30 days" in m and "14 days" in m for m in messages), messages


def test_greetings_and_a_closing_signature_add_no_facts() -> None:
    golden = "Your application for unit 4B is approved. The lease starts on 1 June."
    new = (
        "Hi Sarah, thanks so much for reaching out!\n\nYour application for unit 4B is approved. "
        "The lease starts on 1 June.\n\nIf you have any other questions, just let me know.\n\n"
        "Best,\nTom, Leasing Office"
    )
    passed, messages = _messages(golden, new)
    assert passed, messages


def test_a_lone_final_answer_word_is_not_a_signature() -> None:
    passed, messages = _messages(
        "The review is complete.\nVerdict:\nApproved", "The review is complete.\nVerdict:\nRejected"
    )
    assert not passed, messages


@pytest.mark.parametrize(
    ("golden", "new", "finding"),
    [
        (  # roles swapped across clauses joined by a semicolon (no list)
            "Claims over $500 are approved by the team lead and then by finance; the clerk only "
            "approves claims under $500.",
            "Claims over $500 are approved by the clerk and then by finance; the team lead only "
            "approves claims under $500.",
            "roles swapped",
        ),
        (  # the decision itself turned, the verb kept
            "All 214 tests pass and coverage stayed at 87%. This is safe to merge.",
            "All 214 tests pass and coverage stayed at 87%. I'd hold off merging this for now.",
            "conclusion changed",
        ),
        (  # one more member joined to a list in the one changed sentence
            "Your room is booked for two nights. Breakfast is included. Check-in opens at 14:00.",
            "Your room is booked for two nights. Breakfast and parking are included. Check-in opens at 14:00.",
            "claim added",
        ),
        (  # the one changed sentence lost a part
            "To amend it, download the form, enter the corrected amounts, attach any new or changed "
            "schedules, and mail it to the tax office. Processing takes about 16 weeks.",
            "To amend it, download the form, enter the corrected amounts, and mail it to the tax "
            "office. Processing takes about 16 weeks.",
            "part dropped",
        ),
    ],
)
def test_small_edits_that_change_what_an_answer_says_fail(
    golden: str, new: str, finding: str
) -> None:
    passed, messages = _messages(golden, new)
    assert not passed, messages
    assert any(m.startswith(finding) for m in messages), messages


def test_a_list_in_another_order_is_no_role_swap() -> None:
    passed, messages = _messages(
        "Common side effects include nausea, headache, dizziness and a dry mouth.",
        "Common side effects include a dry mouth, dizziness, nausea and headache.",
    )
    assert passed, messages


def test_a_labelled_value_restates_the_sentence_that_says_it() -> None:
    passed, messages = _messages(
        "Your ticket gives access to the standing area. Doors open at 19:00.",
        "- **Zone:** standing area\n- **Doors:** 19:00",
    )
    assert passed, messages


@pytest.mark.parametrize(
    ("golden", "new", "finding"),
    [  # a reviewer's cases: each passed before
        ("The fee is $30.", "The fee is €30.", "numbers differ ($30 → €30)"),
        ("Take 5 mg twice a day.", "Take 5 mg once a day.", "numbers differ (twice → once)"),
        ("Team A beat Team B 3-1.", "Team B beat Team A 3-1.", "roles swapped (a ↔ b)"),
        (
            "The landlord must pay the tenant's moving costs.",
            "The tenant must pay the landlord's moving costs.",
            "roles swapped",
        ),
        ("Plan A is cheaper.", "Plan A is more expensive.", "polarity flipped"),
        ("All tests passed.", "Some tests passed.", "polarity flipped"),
        (
            "First back up your files, then install the update, and finally restart.",
            "First install the update, and finally restart.",
            'step missing: golden: "First back up your files"',
        ),
    ],
)
def test_a_reviewers_changes_fail_with_the_finding_that_names_them(
    golden: str, new: str, finding: str
) -> None:
    passed, messages = _messages(golden, new)
    assert not passed, messages
    assert any(m.startswith(finding) for m in messages), messages


def test_twice_a_day_is_two_times_daily_and_a_table_header_is_a_label() -> None:
    passed, messages = _messages("Take 5 mg twice a day.", "Take 5 mg two times daily.")
    assert passed, messages
    passed, messages = _messages(
        "Berlin is at 12 degrees and Paris at 15 degrees.",
        "| City | Temp |\n|---|---|\n| Berlin | 12 degrees |\n| Paris | 15 degrees |",
    )
    assert passed, messages
    assert any(m.startswith("label added") for m in messages), messages


def test_a_sentence_opening_with_a_sign_off_word_is_still_a_claim() -> None:
    passed, messages = _messages(
        "Rotate the keys monthly. Best to use AWS KMS.",
        "Rotate the keys monthly.",
    )
    assert not passed, messages


# ------------------------------------------------------------------ the third session's rules

#: rewordings the rules read as saying the same: courtesy, number words and hour ranges, weekday
#: forms, list lines and table cells, possessives, counts of a list given in full, order words
SAME_SAID_OTHERWISE = [
    # an offer whose condition holds a negation; an apology restating the reader's trouble
    (
        "Your refund of 80 € was issued today.",
        "Your refund of 80 € was issued today. If it hasn't arrived by then, reply here "
        "and I'll chase it.",
    ),
    (
        "The outage in your area is expected to end at 6 pm.",
        "I'm so sorry you're without internet, that's never fun. The outage in your area "
        "is expected to end at 6 pm.",
    ),
    # a lead-in that only reports the checking; a team's signature; a French sign-off
    (
        "Your visa application is complete.",
        "I've checked your documents and can confirm that your visa application is complete.",
    ),
    (
        "Desk 14 is booked for Monday.",
        "Desk 14 is booked for Monday.\n\nCheers,\nthe Nest team",
    ),
    (
        "Votre commande part demain.",
        "Votre commande part demain.\n\nBien cordialement,\nLe service client",
    ),
    # facts said in words or by convention: midnight, weekdays, "and a half", a quarter (¼)
    (
        "The museum stays open until midnight on Fridays.",
        "The museum stays open until 00:00 on Fridays.",
    ),
    ("The shuttle runs on weekdays only.", "The shuttle runs Mon–Fri only."),
    ("The flight takes three and a half hours.", "The flight takes 3.5 h."),
    ("Tighten the screw a quarter turn at a time.", "Tighten the screw ¼ turn at a time."),
    # French "ne … que" restricts ("only"); it negates nothing
    ("La garantie ne couvre que les pièces.", "La garantie couvre uniquement les pièces."),
    # a time right after a date is no day of the month ("3 March 02:14" is not "March 2")
    ("The backup job failed on 3 March at 02:14 UTC.", "Backup job failed, 3 March 02:14 UTC."),
    # a line ending in a full-width colon above a list opens it (a label)
    (
        "アカウントを削除する手順：\n1. 設定を開く\n2. 「削除」を押す",
        "1. 設定を開く\n2. 「削除」を押す",
    ),
    # "next time" is an occasion, not the next step of a sequence
    (
        "The crown is fitted at the second appointment, a week later.",
        "First the tooth is cleaned; next time, the crown is fitted a week later.",
    ),
    # a word negated by its prefix is a negation in the count: "unchanged" = "nothing changes"
    ("The opening hours are unchanged.", "Nothing changes about the opening hours."),
    # a count said as a multiple or a pair
    (
        "Triple the dose of fertiliser in spring.",
        "In spring, use three times the dose of fertiliser.",
    ),
    ("Make the sauce with three times the garlic.", "Triple the garlic in the sauce."),
    ("The two reviewers must both sign.", "The pair of reviewers must both sign."),
    # a name with a verb's or plural's s is the name; a quoted Japanese name keeps its characters
    (
        "We remove duplicates by using MERGE on the id key.",
        "Duplicates are removed: the job MERGEs on the id key.",
    ),
    ("支払いは月末締め翌月末払いです。", "支払いは「月末締め・翌月末払い」です。"),
    # a number word of tens and ones is the number
    ("The warranty lasts 36 months.", "The warranty lasts thirty-six months."),
    ("Le délai est de 45 jours.", "Le délai est de quarante-cinq jours."),
    ("Die Frist beträgt 33 Tage.", "Die Frist beträgt dreiunddreißig Tage."),
    # a cue inside a condition concludes nothing
    (
        "You can dispute the charge within 60 days by sending the receipt.",
        "If you want to challenge that decision, you can dispute the charge within 60 days "
        "by sending the receipt.",
    ),
    # weekdays in the plural, as German adverbs, and abbreviated in a range or pair
    ("The gym is open on Mondays and Fridays.", "The gym is open Mon/Fri."),
    ("Die Praxis ist montags bis freitags geöffnet.", "Die Praxis ist Mo.–Fr. geöffnet."),
    # a list item that opens a sub-list keeps no stray number; a line that starts with a date
    (
        "First back up the database. Then copy the dump and the config to the new host.",
        "1. Back up the database.\n2. Copy to the new host:\n   - the dump\n   - the config",
    ),
    (
        "Die Lieferung kam am 4. Juni um 9:15 Uhr in Bremen an.",
        "- 4. Juni, 9:15 Uhr: Lieferung in Bremen angekommen",
    ),
    # "-free" negates its first part as "without" does
    ("It is a flat without carpets.", "It is a carpet-free flat."),
    # a possessive names the same name
    ("The estimate from Garage Dupont was approved.", "Garage Dupont's estimate was approved."),
    # a bare hour that opens a range ending in a time is that hour
    ("Der Kurs läuft von 9 bis 12:30 Uhr.", "Der Kurs läuft von 9:00 bis 12:30 Uhr."),
    ("Le cours a lieu de 9 h à 12 h 30.", "Le cours a lieu de 9:00 à 12:30."),
    # a letter of recommendation recommends nothing
    (
        "Letters of recommendation may be sent by your teachers until 1 March.",
        "Your teachers can send the letters of recommendation until 1 March.",
    ),
    # a sign cell reads with its column: "–" under "Change" is no change
    (
        "The 9:10 train is direct; no change is needed.",
        "| Train | Change |\n|---|---|\n| 9:10 | – |",
    ),
    # a count of a list given in full, dropped
    (
        "Bring three documents: your passport, the lease and a bank statement.",
        "Bring your passport, the lease and a bank statement.",
    ),
    # an order word with nothing to be ordered against is no negation
    (
        "The tenant hasn't paid the rent after 30 days.",
        "The rent has gone unpaid for 30 days.",
    ),
    # an ordinal count and a unit said with an article
    (
        "Pupils who turn six in 2025 start in September.",
        "Pupils whose sixth birthday falls in 2025 start in September.",
    ),
    ("Come back in seven days.", "Come back in a week."),
    ("The loan is repaid in 2 weeks.", "The loan is repaid in 14 days."),
    # a capital M after a number is a million; a scale word is no name
    (
        "Impact: 1.2 M events delayed, none lost.",
        "About 1.2 million events were delayed; none were lost.",
    ),
    ("Der Umsatz lag bei 3 Mio. €.", "Der Umsatz lag bei 3.000.000 €."),
    # a table's header row dropped in prose is a label; a numbered labelled item keeps no number
    (
        "| Time | Room |\n|---|---|\n| 09:00 | Hall A |\n| 10:15 | Foyer |",
        "At 09:00 we meet in Hall A, at 10:15 in the Foyer.",
    ),
    (
        "Turn the adjuster a quarter turn. Then test the brake.",
        "1. Adjuster: a quarter turn.\n2. Test the brake.",
    ),
    # the same values under their labels in another layout
    ("1. Price: 40 dollars\n2. Tax: 8 dollars", "- **Tax:** $8\n- **Price:** $40"),
    # a step list that deletes then adds is no partial negation
    ("1. Delete the old key.\n2. Add the new key.", "Delete the old key, then add the new key."),
    # a negation with its exception restricts (none but X = only X); an absence said two ways,
    # a colon after a whole clause ending it
    (
        "None of the invoices need to be resent except the March invoice.",
        "Only the March invoice has to be resent; every other invoice can stay as it is.",
    ),
    # members reordered around a negation that stays where it was
    (
        "Roaming is free in France and Spain, not in Switzerland.",
        "Roaming is free in Spain and France, not in Switzerland.",
    ),
    (
        "The parcel is held at the depot because the label is missing the postcode.",
        "The depot has stopped the parcel: the postcode isn't on the label.",
    ),
    # half a unit is 0.5 of it; "only one" and "just one" are one count
    ("Add half a cup of sugar to the dough.", "Add ½ cup of sugar to the dough."),
    ("Only one seat is left on the 9:40 train.", "Just one seat is left on the 9:40 train."),
    # a contrast said in another order, each member keeping its polarity ("not A but B" =
    # "B, not A" = "B rather than A"): no role swap, no flipped polarity
    ("Send it not to Alice but to Bob.", "Send it to Bob, not Alice."),
    ("Use version 2.5 instead of 2.4.", "Use version 2.5, not 2.4."),
    ("Meet at gate B12 instead of B14.", "Meet not at gate B14 but at gate B12."),
    ("Le rendez-vous n'est pas à 10 h mais à 11 h.", "Le rendez-vous est à 11 h, pas à 10 h."),
    ("Envoyez-le non pas à Alice mais à Bob.", "Envoyez-le à Bob, pas à Alice."),
    ("Usa la versión 3.2 en lugar de la 3.1.", "Usa la versión 3.2, no la 3.1."),
    # an exception moved to the front of the sentence (guards: these passed before)
    (
        "Refunds are possible, except for sale items.",
        "Except for sale items, refunds are possible.",
    ),
    (
        "Todos los empleados pueden participar, salvo los becarios.",
        "Salvo los becarios, todos los empleados pueden participar.",
    ),
    # a clock time said in words is the time (noon and 5 pm passed before: guards)
    ("The call is at 9:30.", "The call is at half past nine."),
    ("The call is at quarter to ten.", "The call is at 9:45."),
    ("Check-in opens at a quarter past two.", "Check-in opens at 2:15 pm."),
    ("Lunch is at noon.", "Lunch is at 12:00."),
    ("The shop closes at 17:00.", "The shop closes at 5 pm."),
    ("Der Zug fährt um halb zehn.", "Der Zug fährt um 9:30 Uhr."),
    ("Der Zug fährt um Viertel vor zehn.", "Der Zug fährt um 9:45 Uhr."),
    ("Le train part à neuf heures et demie.", "Le train part à 9 h 30."),
    ("Le train part à dix heures moins le quart.", "Le train part à 9 h 45."),
    ("Le déjeuner est à midi et demi.", "Le déjeuner est à 12 h 30."),
    ("El tren sale a las diez menos cuarto.", "El tren sale a las 9:45."),
    ("La clase empieza a la una y media.", "La clase empieza a las 13:30."),
    # a reformatted answer read as a reader reads its layout (agentsnap.diff.meaning.layout):
    # initials stand for their words
    (
        "Ask the Data Protection Officer before you share the file.",
        "Ask the DPO before you share the file.",
    ),
    ("Le loyer est de 700 € par mois, toutes charges comprises.", "Loyer : 700 €/mois TCC"),
    ("Die Tickets gibt es am Schalter der Deutschen Bahn.", "Tickets: am Schalter der DB."),
    # a count is the rows of the table that lists what it counts
    (
        "We have two rooms left. The Garden room costs 120 € a night and the Harbour room "
        "costs 150 € a night.",
        "| Room | Price per night |\n|---|---|\n| Garden | 120 € |\n| Harbour | 150 € |",
    ),
    (
        "Wir haben noch zwei Zimmer frei. Das Zimmer Linde kostet 90 € pro Nacht, das Zimmer "
        "Eiche 110 € pro Nacht.",
        "| Zimmer | Preis pro Nacht |\n|---|---|\n| Linde | 90 € |\n| Eiche | 110 € |",
    ),
    # a cell under a header is the value the prose says (no "à" to make it a time)
    (
        "Le cours commence à 10 h en salle Garonne.",
        "| Heure | Salle |\n|---|---|\n| 10 h | Garonne |",
    ),
    # a label is no name, a unit after a number is the number's, a middle dot separates values
    ("The visit is on Monday 3 March at 10:00.", "Date/time: Monday 3 March, 10:00"),
    ("Die Kündigungsfrist beträgt drei Monate.", "Es gilt eine Kündigungsfrist von 3 Monaten."),
    ("The fee is £80 and a decision usually takes two weeks.", "Fee: £80 · Typical wait: 2 weeks"),
    ("次の便は10時15分に出発します。", "- 出発時刻：10:15"),
    # numbered steps said as one sentence, and the other way round
    (
        "1. Abra la aplicación.\n2. Elija una tienda de recogida.\n3. Confirme el pedido.",
        "Abra la aplicación, elija la tienda donde recogerá y confirme el pedido.",
    ),
    (
        "Entfernen Sie den Filter, spülen Sie ihn unter warmem Wasser aus und setzen Sie ihn "
        "wieder ein.",
        "1. Filter entfernen.\n2. Unter warmem Wasser ausspülen.\n3. Wieder einsetzen.",
    ),
]


@pytest.mark.parametrize(("golden", "new"), SAME_SAID_OTHERWISE)
def test_a_rewording_the_rules_read_as_the_same_passes(golden: str, new: str) -> None:
    passed, messages = _messages(golden, new)
    assert passed, messages


#: small changes the rules catch, with the finding that names each
CHANGED = [
    # one stretch of a kept sentence replaced by unrelated words
    (
        "The deploy was rolled back because of a memory leak in the queue worker.",
        "The deploy was rolled back because of an expired signing certificate in the queue worker.",
        "claim",
    ),
    # two flips in two clauses of one sentence do not cancel
    (
        "The bug is still present in 2.3; the patch will not help.",
        "The bug is no longer present in 2.3; the patch will help.",
        "polarity flipped",
    ),
    # names swapped across a contrast: the list ends at "but not"
    (
        "The pass covers the Louvre and the Orsay, but not the Pompidou.",
        "The pass covers the Louvre and the Pompidou, but not the Orsay.",
        "roles swapped",
    ),
    # a recommendation at the clause's end (German verb-final), then another one
    (
        "Die Kosten sind gedeckt. Aus unserer Sicht können wir den Umzug so empfehlen.",
        "Die Kosten sind gedeckt. Aus unserer Sicht sollten Sie mit dem Umzug noch ein Jahr warten.",
        "conclusion changed",
    ),
    # a number word of tens and ones that changed
    (
        "The warranty lasts 36 months.",
        "The warranty lasts twenty-four months.",
        "numbers differ",
    ),
    # values that trade places between labels keep every fact of the answer
    (
        "1. Price: 40 dollars\n2. Tax: 8 dollars",
        "- Price: 8 dollars\n- Tax: 40 dollars",
        "value under a label changed",
    ),
    (
        "| Region | Revenue |\n|---|---|\n| EU | 4 M |\n| US | 6 M |",
        "| Region | Revenue |\n|---|---|\n| EU | 6 M |\n| US | 4 M |",
        "value under a label changed",
    ),
    # two flips in two clauses joined by ", so" do not cancel
    (
        "The update is compatible with old configs, so you do not need to migrate them.",
        "The update is not compatible with old configs, so you do need to migrate them.",
        "polarity flipped",
    ),
    # a member taken out of what was stated for all
    (
        "Breakfast and parking are included.",
        "Breakfast is included, but parking is not included.",
        "polarity flipped",
    ),
    (
        "朝食と駐車場が含まれています。",
        "朝食が含まれていますが、駐車場は含まれていません。",
        "polarity flipped",
    ),
    # the count of a list that lost a member
    (
        "Bring three documents: your passport, the lease and a bank statement.",
        "Bring two documents: your passport and the lease.",
        "numbers differ",
    ),
    # a sign cell flipped
    (
        "| Train | Direct |\n|---|---|\n| 9:10 | ✓ |",
        "| Train | Direct |\n|---|---|\n| 9:10 | ✗ |",
        "polarity flipped",
    ),
    # "ne … pas" is a negation where "ne … que" was a restriction
    (
        "Le vol n'est couvert que si la porte est blindée.",
        "Le vol n'est pas couvert si la porte est blindée.",
        "polarity flipped",
    ),
    # facts said in words that changed
    ("The shuttle runs on weekdays.", "The shuttle runs Mon–Sat.", "weekdays differ"),
    ("Boil the stock for two and a half hours.", "Boil the stock for 3.5 h.", "numbers differ"),
    ("The museum stays open until midnight.", "The museum stays open until 23:00.", "times differ"),
    ("Tighten the screw a quarter turn.", "Tighten the screw ½ turn.", "numbers differ"),
    # clauses read against the clause that says the same, wherever it stands; a dash cuts clauses
    (
        "The backup ran on time, but nobody checked the logs.",
        "Someone checked the logs, but the backup never ran on time.",
        "polarity flipped",
    ),
    (
        "On Sundays no ticket is required, so you can ride freely.",
        "Sundays: a ticket is also required — you can't ride freely.",
        "polarity flipped",
    ),
    # necessary / nötig are the required pole
    ("Eine Anmeldung ist nicht nötig.", "Eine Anmeldung ist erforderlich.", "polarity flipped"),
    # pending is not yet approved: an outcome of another class (test_semantic_outcomes)
    ("Your expense claim has been approved.", "Your expense claim is pending.", "outcome"),
    # a count that changed is still a changed number next to a pair word
    ("The two reviewers must both sign.", "The three reviewers must both sign.", "numbers differ"),
    # a quoted Japanese name whose characters changed
    (
        "支払いは月末締め翌月末払いです。",
        "支払いは「月末締め・翌々月末払い」です。",
        "names differ",
    ),
    # a time moved across its reference; a changed week count, weekday, hour or million
    ("Take the tablet before meals.", "Take the tablet after meals.", "polarity flipped"),
    ("Come back in seven days.", "Come back in two weeks.", "numbers differ"),
    ("The gym is open on Mondays and Fridays.", "The gym is open Mon/Thu.", "weekdays differ"),
    ("Der Kurs läuft von 9 bis 12:30 Uhr.", "Der Kurs läuft von 10 bis 12:30 Uhr.", "times differ"),
    ("Impact: 1.2 M events delayed.", "Impact: 2.1 million events delayed.", "numbers differ"),
    # a clause negated inside a sentence reworded around it: the two clauses that say the same
    (
        "You can pay with any major card at the kiosk, and the day ticket includes unlimited "
        "rides within its 24-hour window.",
        "Payment at the kiosk works with all major cards; the day ticket lasts 24 hours but does "
        "not include unlimited rides.",
        "polarity flipped in a clause",
    ),
    (
        "Como el vuelo se canceló por una huelga, se trata de un caso de fuerza mayor y la "
        "agencia no está obligada a devolverte los 300 euros del billete.",
        "- Motivo: huelga (fuerza mayor)\n- Billete de 300 €: la agencia está obligada a devolverlo",
        "polarity flipped in a clause",
    ),
    # a list item that says nothing new but a negation is read against the sentence it restates
    (
        "Your plan covers roaming in the EU. Calls to Switzerland are also allowed with this "
        "plan, and texts are free anyway.",
        "- EU roaming: covered\n- Switzerland: calls not allowed with the plan\n- Texts: free",
        "polarity flipped",
    ),
    # the negation moved from one member to another, every word kept
    (
        "Send the signed invoice to the finance team, not to the project lead, who only "
        "approves it.",
        "Send the signed invoice to the project lead, who only approves it, not to the finance "
        "team.",
        "negation moved to another member",
    ),
    # obligation in more words: "tenu de" is obliged to, 必要 / 不要 the required pair
    (
        "Le locataire est tenu de souscrire une assurance habitation avant la remise des clés.",
        "Avant la remise des clés, la souscription d'une assurance habitation n'est pas "
        "obligatoire pour le locataire.",
        "polarity flipped",
    ),
    (
        "この手続きには事前の申請が必要で、窓口で受け付けています。",
        "窓口で受け付けていますが、この手続きに事前の申請は不要です。",
        "polarity flipped",
    ),
    # a reviewer's finding: an obligation made voluntary, in the words the pole lacked
    (
        "Die Teilnahme am Kurs ist verpflichtend.",
        "Die Teilnahme am Kurs ist freiwillig.",
        "polarity",
    ),
    (
        "Attendance at the briefing is mandatory.",
        "Attendance at the briefing is voluntary.",
        "polarity",
    ),
    ("La participation est obligatoire.", "La participation est volontaire.", "polarity"),
    # a reviewer's finding: "both" is two, and "only one of the two" is one of them
    (
        "Both servers must be restarted after the patch.",
        "Only one of the two servers must be restarted after the patch.",
        "numbers differ",
    ),
    # values swapped across a negation or a contrast: numbers, dates, times, versions and names
    # holding a digit are members a negation excludes, like words
    ("The fee is $20, not $30.", "The fee is $30, not $20.", "negation moved"),
    (
        "The meeting is on 12 May, not 15 May.",
        "The meeting is on 15 May, not 12 May.",
        "negation moved",
    ),
    (
        "The train leaves at 9:10 rather than 9:40.",
        "The train leaves at 9:40 rather than 9:10.",
        "negation moved",
    ),
    (
        "Install Python 3.11 instead of 3.12.",
        "Install Python 3.12 instead of 3.11.",
        "negation moved",
    ),
    ("Book room B12 and not B14.", "Book room B14 and not B12.", "negation moved"),
    (
        "Die Gebühr beträgt nicht 20 €, sondern 30 €.",
        "Die Gebühr beträgt nicht 30 €, sondern 20 €.",
        "negation moved",
    ),
    (
        "Die Wartung ist am 3. März, nicht am 5. März.",
        "Die Wartung ist am 5. März, nicht am 3. März.",
        "negation moved",
    ),
    (
        "Le rendez-vous n'est pas à 10 h mais à 11 h.",
        "Le rendez-vous n'est pas à 11 h mais à 10 h.",
        "negation moved",
    ),
    (
        "Usa la versión 3.2 en lugar de la 3.1.",
        "Usa la versión 3.1 en lugar de la 3.2.",
        "negation moved",
    ),
    (
        "La reunión es a las 10:00 y no a las 11:00.",
        "La reunión es a las 11:00 y no a las 10:00.",
        "negation moved",
    ),
    # a member a contrastive clause excluded is now stated, the exclusion moved to another one
    (
        "The app works, although not on Windows.",
        "The app works on Windows, although not on Linux.",
        "negation moved",
    ),
    (
        "Die App läuft, obwohl nicht unter Windows.",
        "Die App läuft unter Windows, obwohl nicht unter Linux.",
        "negation moved",
    ),
    (
        "Das Feature ist verfügbar, aber nicht im Basistarif.",
        "Das Feature ist im Basistarif verfügbar, aber nicht im Testzugang.",
        "negation moved",
    ),
    (
        "La fonction est disponible, mais pas sur Android.",
        "La fonction est disponible sur Android, mais pas sur iOS.",
        "negation moved",
    ),
    (
        "Funciona, aunque no en Windows.",
        "Funciona en Windows, aunque no en Linux.",
        "negation moved",
    ),
    # an exception excludes its member as a negation does: the excluded member now stated
    (
        "Refunds are possible, except for sale items.",
        "Refunds are possible for sale items, except for gift cards.",
        "negation moved",
    ),
    (
        "Die Lieferung ist kostenlos, außer auf die Inseln.",
        "Die Lieferung auf die Inseln ist kostenlos, außer nach Helgoland.",
        "negation moved",
    ),
    (
        "La livraison est gratuite, sauf en Corse.",
        "La livraison en Corse est gratuite, sauf en Guadeloupe.",
        "negation moved",
    ),
    (
        "El envío es gratis, excepto a Canarias.",
        "El envío a Canarias es gratis, excepto a Ceuta.",
        "negation moved",
    ),
    # a clock time said in words that changed: the finding names both times
    ("The call is at 9:30.", "The call is at half past ten.", "times differ (9:30 → 10:30)"),
    ("The call is at quarter to ten.", "The call is at 9:15.", "times differ (9:45 → 9:15)"),
    ("Der Zug fährt um 9:30 Uhr.", "Der Zug fährt um halb elf.", "times differ (9:30 Uhr → 10:30)"),
    (
        "Le train part à neuf heures et quart.",
        "Le train part à 9 h 45.",
        "times differ (9:15 → 9 h 45)",
    ),
    (
        "El tren sale a las 9:45.",
        "El tren sale a las diez y cuarto.",
        "times differ (9:45 → 10:15)",
    ),
]


CHANGED += [
    # the layout rules keep every change: a step joined into prose but negated, a step left out,
    # other initials, a count that is not the table's, a changed cell, "sans attendre" is no negation
    (
        "1. Unplug the charger.\n2. Press the reset button.\n3. Plug the charger back in.",
        "Unplug the charger, do not press the reset button, and plug the charger back in.",
        "polarity flipped",
    ),
    (
        "1. Back up the database.\n2. Clear the cache.\n3. Install the update.\n4. Restart the service.",
        "Back up the database, install the update and restart the service.",
        "step missing",
    ),
    (
        "1. Abra la aplicación.\n2. Elija una tienda de recogida.\n3. Confirme el pedido.",
        "Abra la aplicación y confirme el pedido.",
        "step missing",
    ),
    (
        "Ask the Data Protection Officer before you share the file.",
        "Ask the CTO before you share the file.",
        "names differ",
    ),
    (
        "We have three rooms left. The Garden room costs 120 €, the Harbour room 150 € and the "
        "Tower room 180 €.",
        "| Room | Price |\n|---|---|\n| Garden | 120 € |\n| Harbour | 150 € |",
        "numbers differ",
    ),
    (
        "Le cours commence à 10 h en salle Garonne.",
        "| Heure | Salle |\n|---|---|\n| 11 h | Garonne |",
        "times differ",
    ),
    ("次の便は10時15分に出発します。", "- 出発時刻：10:45", "times differ"),
    (
        "Le cabinet n'accepte pas de nouveaux patients avant mai.",
        "Nouveaux patients : acceptés sans attendre mai.",
        "polarity flipped",
    ),
]


@pytest.mark.parametrize(("golden", "new", "finding"), CHANGED)
def test_a_small_change_fails_with_the_finding_that_names_it(
    golden: str, new: str, finding: str
) -> None:
    passed, messages = _messages(golden, new)
    assert not passed, messages
    assert any(m.startswith(finding) for m in messages), messages


@pytest.mark.parametrize(
    "sentence",
    [
        "When the light turns green, then you may cross, and then keep walking.",
        "Once the payment clears, then the order ships, and then you get an email.",
        "Sobald die Zahlung eingeht, dann wird versandt, und dann kommt eine E-Mail.",
    ],
)
def test_a_sentence_opening_with_its_condition_is_one_condition_not_steps(sentence: str) -> None:
    # two module regexes shared a name: the later one (a condition anywhere) replaced the
    # sentence-opening one, so "When…"/"Once…"/"Sobald…" sentences were cut into steps
    from agentsnap.diff.meaning.units import _sequence

    assert _sequence(sentence) == [sentence]


# ------------------------------------------------------------------ issue 29: what a value or an
# exception is bound to (agentsnap.diff.meaning.bindings)

#: the same values bound to the same things, or the same exception, said otherwise
SAME_SAID_OTHERWISE += [
    (
        "The Berlin office opens at 8:00 and the Paris office at 9:00.",
        "Paris opens at 9:00; Berlin at 8:00.",
    ),
    ("Germany grew 3 % and France 5 %.", "France grew 5 %, Germany 3 %."),
    ("Starter kostet 12 € und Team 30 €.", "Team kostet 30 €, Starter 12 €."),
    (
        "| Plan | Price |\n|---|---|\n| Starter | 12 € |\n| Team | 30 € |",
        "Starter costs 12 € and Team costs 30 €.",
    ),
    (
        "The pharmacy is open every day until 8 pm, except on holidays.",
        "The pharmacy is open every day until 8 pm, but not on holidays.",
    ),
    (
        "The pharmacy is open every day until 8 pm, except on holidays.",
        "The pharmacy is open every day until 8 pm, holidays excepted.",
    ),
    (
        "Die Apotheke hat täglich bis 20 Uhr geöffnet, außer an Feiertagen.",
        "Die Apotheke hat täglich bis 20 Uhr geöffnet, aber nicht an Feiertagen.",
    ),
    (
        "La pharmacie est ouverte tous les jours jusqu'à 20 h, sauf les jours fériés.",
        "La pharmacie est ouverte tous les jours jusqu'à 20 h, mais pas les jours fériés.",
    ),
    (
        "La farmacia abre todos los días hasta las 20 h, excepto los festivos.",
        "La farmacia abre todos los días hasta las 20 h, pero no los festivos.",
    ),
]

CHANGED += [
    # values swapped between the things their clauses (or table rows) name
    (
        "Starter costs 12 € and Team costs 30 €.",
        "Starter costs 30 € and Team costs 12 €.",
        "values swapped: Starter 12 € → 30 €",
    ),
    (
        "| Plan | Price |\n|---|---|\n| Starter | 12 € |\n| Team | 30 € |",
        "Starter costs 30 € and Team costs 12 €.",
        "values swapped: Starter 12 € → 30 €",
    ),
    ("Mia has 4 tickets and Tom 7.", "Mia has 7 tickets and Tom 4.", "values swapped: Mia"),
    (
        "The Berlin office opens at 8:00 and the Paris office at 9:00.",
        "The Berlin office opens at 9:00 and the Paris office at 8:00.",
        "values swapped: Berlin 8:00 → 9:00",
    ),
    (
        "The audit is due on June 4 and the renewal on June 18.",
        "The audit is due on June 18 and the renewal on June 4.",
        "values swapped",
    ),
    (
        "Germany grew 3 % and France 5 %.",
        "Germany grew 5 % and France 3 %.",
        "values swapped",
    ),
    ("Starter kostet 12 € und Team 30 €.", "Starter kostet 30 € und Team 12 €.", "values swapped"),
    (
        "Le bureau de Lyon ouvre à 8 h et celui de Nantes à 9 h.",
        "Le bureau de Lyon ouvre à 9 h et celui de Nantes à 8 h.",
        "values swapped: Lyon 8 h → 9 h",
    ),
    (
        "Ana trabaja el lunes y Luis el martes.",
        "Ana trabaja el martes y Luis el lunes.",
        "values swapped",
    ),
    # an exception made an inclusion, and back
    (
        "The pharmacy is open every day until 8 pm, except on holidays.",
        "The pharmacy is open daily until 8 pm, including holidays.",
        "exception made an inclusion",
    ),
    (
        "Die Apotheke hat täglich bis 20 Uhr geöffnet, außer an Feiertagen.",
        "Die Apotheke hat täglich bis 20 Uhr geöffnet, einschließlich an Feiertagen.",
        "exception made an inclusion",
    ),
    (
        "La pharmacie est ouverte tous les jours jusqu'à 20 h, sauf les jours fériés.",
        "La pharmacie est ouverte tous les jours jusqu'à 20 h, y compris les jours fériés.",
        "exception made an inclusion",
    ),
    (
        "La farmacia abre todos los días hasta las 20 h, excepto los festivos.",
        "La farmacia abre todos los días hasta las 20 h, y también los festivos.",
        "exception made an inclusion",
    ),
    (
        "All tests but the slow ones run on each push.",
        "All tests and the slow ones run on each push.",
        "exception made an inclusion",
    ),
    (
        "The warranty covers every part including the battery.",
        "The warranty covers every part except the battery.",
        "inclusion made an exception",
    ),
]

# issue 29 (review): a word value hidden in a reformat is a claim about its label or its row
CHANGED += [
    (
        "**Decision:** approved\n**Amount:** 64 €",
        "Your claim was not approved. The amount is 64 €.",
        "value negated",
    ),
    (
        "- Sat: 10:00–16:00\n- Sun: closed",
        "We are open Saturday 10:00–16:00 and on Sunday.",
        "yes/no of",
    ),
    (
        "Exports work to CSV and PDF, but not to XLSX.",
        "- CSV: ✅\n- PDF: ❌\n- XLSX: ❌",
        "yes/no of",
    ),
    (
        "| Member | Access |\n|---|---|\n| Mara | Editor |\n| Tom | Reader |",
        "Mara is a reader and Tom is an editor.",
        "value moved to another row",
    ),
    (
        "| Member | Access |\n|---|---|\n| Mara | Editor |\n| Tom | Reader |",
        "| Member | Access |\n|---|---|\n| Mara | Reader |\n| Tom | Editor |",
        "value moved to another row",
    ),
    (
        "| Forfait | Prix |\n|---|---|\n| Solo | 7 € |\n| Duo | 17 € |",
        "Le forfait Solo coûte 17 € et le forfait Duo coûte 7 €.",
        "values swapped",
    ),
    (
        "| コース | 料金 |\n|---|---|\n| ライト | 2000円 |\n| スタンダード | 5000円 |",
        "ライトは5000円、スタンダードは2000円です。",
        "values swapped",
    ),
    (
        "- **Lite:** 5 $/month\n- **Plus:** 15 $/month",
        "Lite is 15 $/month and Plus is 5 $/month.",
        "values swapped",
    ),
    (
        "The voucher is valid on all orders except gift wrapping.",
        "The voucher is valid on all orders, gift wrapping included.",
        "exception made an inclusion",
    ),
    (
        "The cleaning covers all rooms except the attic.",
        "The cleaning covers only the attic.",
        "exception made an inclusion",
    ),
]

SAME_SAID_OTHERWISE += [
    ("**Decision:** approved\n**Amount:** 64 €", "Your claim was approved. The amount is 64 €."),
    ("- Sat: 10:00–16:00\n- Sun: closed", "We are open Saturday 10:00–16:00 and closed on Sunday."),
    ("Exports work to CSV and PDF, but not to XLSX.", "- CSV: ✅\n- PDF: ✅\n- XLSX: ❌"),
    (
        "| Member | Access |\n|---|---|\n| Mara | Editor |\n| Tom | Reader |",
        "Mara is an editor; Tom is a reader.",
    ),
    (
        "| Forfait | Prix |\n|---|---|\n| Solo | 7 € |\n| Duo | 17 € |",
        "Le forfait Solo coûte 7 € et le forfait Duo coûte 17 €.",
    ),
    (
        "| コース | 料金 |\n|---|---|\n| ライト | 2000円 |\n| スタンダード | 5000円 |",
        "ライトは2000円、スタンダードは5000円です。",
    ),
    ("- **Lite:** 5 $/month\n- **Plus:** 15 $/month", "Lite is 5 $/month and Plus is 15 $/month."),
]

# ------------------------------------------------------------------ issue 29 (false passes): an
# order the answer states (agentsnap.diff.meaning.ordering)

CHANGED += [
    (
        "To reset the router, first unplug it for 30 seconds, then hold the reset button.",
        "To reset the router, first hold the reset button, then unplug it for 30 seconds.",
        "steps out of order",
    ),
    (
        "Schalten Sie zuerst die Sicherung aus, dann nehmen Sie die alte Lampe ab.",
        "Nehmen Sie zuerst die alte Lampe ab, dann schalten Sie die Sicherung aus.",
        "steps out of order",
    ),
    (
        "Sauvegardez d'abord vos fichiers, puis installez la mise à jour.",
        "Installez d'abord la mise à jour, puis sauvegardez vos fichiers.",
        "steps out of order",
    ),
    (  # a ranking said with "followed by", then numbered the other way round
        "Applicants are ranked by household income, followed by the date of application.",
        "Ranking:\n1. Date of application\n2. Household income",
        "steps out of order",
    ),
    (  # numbered inside one line
        "To clear it: 1. Close the app. 2. Delete the cache folder. 3. Reopen the app.",
        "To clear it: 1. Delete the cache folder. 2. Close the app. 3. Reopen the app.",
        "steps out of order",
    ),
]

SAME_SAID_OTHERWISE += [
    (
        "First unplug the router, then hold the reset button.",
        "1. Unplug the router\n2. Hold the reset button",
    ),
    # the other place with a word that turns the order round is the same order
    (
        "Install the update after you back up your files.",
        "First back up your files, then install the update.",
    ),
    (
        "Back up your files, then install the update.",
        "Install the update, but back up your files beforehand.",
    ),
    (
        "Sauvegardez d'abord vos fichiers, puis installez la mise à jour.",
        "Installez la mise à jour après avoir sauvegardé vos fichiers.",
    ),
    # a list whose order says nothing may come in any order
    (
        "Bring your passport, a photo and the signed form.",
        "- the signed form\n- a photo\n- your passport",
    ),
]

# issue 29 (false passes): a member of a sentence's list left out, the rest word for word
# (agentsnap.diff.meaning.omissions)
CHANGED += [
    (
        "To replace the filter, switch off the unit, open the side panel, unscrew the old filter "
        "and fit the new one.",
        "To replace the filter, switch off the unit, unscrew the old filter and fit the new one.",
        "part of a list dropped (open the side panel)",
    ),
    (
        "Melden Sie sich im Portal an, laden Sie den Vertrag hoch, bestätigen Sie die "
        "Lieferadresse und senden Sie den Antrag ab.",
        "Melden Sie sich im Portal an, laden Sie den Vertrag hoch und senden Sie den Antrag ab.",
        "part of a list dropped",
    ),
    (
        "Faites chauffer le lait, ajoutez le sucre vanillé, laissez refroidir la crème et "
        "versez-la dans les moules.",
        "Faites chauffer le lait, laissez refroidir la crème et versez-la dans les moules.",
        "part of a list dropped",
    ),
    (
        "Rellene el formulario, adjunte una copia del pasaporte, firme la solicitud y envíela "
        "por correo.",
        "Rellene el formulario, firme la solicitud y envíela por correo.",
        "part of a list dropped",
    ),
]

SAME_SAID_OTHERWISE += [
    (  # a member reworded keeps a word of its own
        "To replace the filter, switch off the unit, open the side panel, unscrew the old filter "
        "and fit the new one.",
        "To replace the filter, switch off the unit, take off the side panel, unscrew the old "
        "filter and fit the new one.",
    ),
    (
        "To replace the filter, switch off the unit, open the side panel, unscrew the old filter "
        "and fit the new one.",
        "To replace the filter:\n- switch off the unit\n- open the side panel\n"
        "- unscrew the old filter\n- fit the new one",
    ),
    (  # a negation is no word of its own: "not damaged" said as "intact" keeps the member
        "The parcel was opened, checked, not damaged, and the contents were resealed.",
        "The parcel was opened and checked; the contents were intact and were resealed.",
    ),
    (  # a condition is no member of a list, and may be said in other words
        "Your tickets remain valid for the new date, and if you cannot come, you can ask for a "
        "refund until 30 June.",
        "Your tickets remain valid for the new date. Should you be unavailable, you can ask for a "
        "refund until 30 June.",
    ),
]

# issue 29 (false passes): the same prices, another option chosen (agentsnap.diff.meaning.choices)
CHANGED += [
    (
        "The Basic plan costs $8 a month and the Plus plan $15 a month. For your usage, Basic is "
        "the better choice.",
        "| Plan | Price |\n|---|---|\n| Basic | $8/month |\n| Plus | $15/month |\n\n"
        "**Recommendation:** Plus.",
        "conclusion changed",
    ),
    (
        "Die Bahn kostet 39 €, der Flug 89 €. Für Sie ist die Bahn daher günstiger.",
        "- Bahn: 39 €\n- Flug: 89 €\n\nFür Sie ist der Flug günstiger.",
        "conclusion changed: another option chosen (bahn → flug)",
    ),
    (
        "Le forfait Mobile coûte 10 € par mois et le forfait Box 30 € par mois ; pour vous, le "
        "forfait Mobile est le plus avantageux.",
        "Mobile : 10 € par mois. Box : 30 € par mois. Pour vous, le forfait Box est le plus "
        "avantageux.",
        "conclusion changed: another option chosen",
    ),
    (
        "El seguro Anual cuesta 300 € y el Mensual 30 € al mes, así que el Anual sale más barato.",
        "Anual: 300 €. Mensual: 30 € al mes. El Mensual sale más barato.",
        "conclusion changed: another option chosen",
    ),
]

SAME_SAID_OTHERWISE += [
    (
        "The Basic plan costs $8 a month and the Plus plan $15 a month. For your usage, Basic is "
        "the better choice.",
        "| Plan | Price |\n|---|---|\n| Basic | $8/month |\n| Plus | $15/month |\n\n"
        "**Recommendation:** Basic.",
    ),
    (
        "Die Bahn kostet 39 €, der Flug 89 €. Für Sie ist die Bahn daher günstiger.",
        "Bahn 39 €, Flug 89 € – die Bahn ist für Sie die günstigere Wahl.",
    ),
    (
        "El seguro Anual cuesta 300 € y el Mensual 30 € al mes, así que el Anual sale más barato.",
        "Anual: 300 €. Mensual: 30 € al mes. Es más barato el Anual.",
    ),
]

# issue 29 (review): a label over a list of values binds each value to its own thing
CHANGED += [
    (
        "We offer three plans: Starter at 9 € a month, Team at 29 € a month and Business at "
        "79 € a month.",
        "- Starter: 29 €/month\n- Team: 9 €/month\n- Business: 79 €/month",
        "values swapped: Starter 9 € → 29 €",
    ),
    (
        "Es gibt drei Tarife: Basis für 5 € im Monat, Plus für 12 € im Monat und Premium für "
        "20 € im Monat.",
        "- Basis: 12 €/Monat\n- Plus: 5 €/Monat\n- Premium: 20 €/Monat",
        "values swapped",
    ),
]

SAME_SAID_OTHERWISE += [
    (
        "We offer three plans: Starter at 9 € a month, Team at 29 € a month and Business at "
        "79 € a month.",
        "- Starter: 9 €/month\n- Team: 29 €/month\n- Business: 79 €/month",
    ),
    (
        "Es gibt drei Tarife: Basis für 5 € im Monat, Plus für 12 € im Monat und Premium für "
        "20 € im Monat.",
        "- Basis: 5 €/Monat\n- Plus: 12 €/Monat\n- Premium: 20 €/Monat",
    ),
]


# --------------------------------------------------------------------------- order said both ways

_OFFICE = "Your new office is on the third floor. {}"
_HANDOVER = "Sign the handover form before you collect the keys from reception."
_NOTICE = "Lisez la notice avant de brancher l'appareil."


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            _OFFICE.format(_HANDOVER),
            _OFFICE.format(
                "Collect the keys from reception only after the handover form is signed."
            ),
        ),
        (_NOTICE, "Branchez l'appareil seulement après avoir lu la notice."),
    ],
)
def test_one_order_said_with_before_and_with_after_passes(golden: str, new: str) -> None:
    passed, messages = _messages(golden, new)
    assert passed, messages


@pytest.mark.parametrize(
    ("golden", "new"),
    [
        (
            _OFFICE.format(_HANDOVER),
            _OFFICE.format("Sign the handover form after you collect the keys from reception."),
        ),
        (
            _OFFICE.format(_HANDOVER),
            _OFFICE.format(
                "You collect the keys from reception first; only after that does the handover "
                "form get signed."
            ),
        ),
        (_NOTICE, "Lisez la notice après avoir branché l'appareil."),
    ],
)
def test_the_order_turned_round_with_the_other_pole_still_fails(golden: str, new: str) -> None:
    passed, messages = _messages(golden, new)
    assert not passed, messages
    assert any("polarity flipped" in m for m in messages), messages
