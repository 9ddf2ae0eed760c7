"""A labelled set of golden/new agent answers for the default semantic check (issue 16).

Written for agentsnap by hand, in the style of real agent transcripts (support
bots, coding agents, travel and calendar assistants, data pipelines, RAG
answers), in English, German, French and Japanese, short and long. Each pair
says whether a careful reader relying on the golden answer would accept the
new one (``same``: the check should pass at the default settings) or not.

Categories (``should pass``): ``paraphrase``, ``markdown`` (reformatting),
``numformat`` (``10:30`` vs ``10.30 am``, ``1,000`` vs ``1000``), ``reorder``
(a reordered list), ``polite`` (politer / more verbose), ``long-para`` (a long
answer with its middle paraphrased), ``json-same``, ``code-same``.
``should fail``: ``negation`` (negation / antonym), ``number`` (changed
number, time, price, version), ``entity`` (changed name, region, file),
``role`` (who pays whom, who calls what), ``long-tail`` (one fact changed at
the end of a 300+ word answer), ``step`` (a step missing from instructions),
``conclusion`` (a different conclusion), ``claim`` (a hallucinated extra
claim), ``json-changed``, ``code-changed``.

Split: :data:`DEV` (tune here) and :data:`HELDOUT` (every third pair of each
category, never looked at while tuning; asserted by
``tests/test_semantic_devset.py``).
"""

from __future__ import annotations

from typing import NamedTuple


class Case(NamedTuple):
    id: str
    category: str
    lang: str
    golden: str
    new: str
    same: bool


PASS_CATEGORIES = (
    "paraphrase",
    "markdown",
    "numformat",
    "reorder",
    "polite",
    "long-para",
    "json-same",
    "code-same",
)
FAIL_CATEGORIES = (
    "negation",
    "number",
    "entity",
    "role",
    "long-tail",
    "step",
    "conclusion",
    "claim",
    "json-changed",
    "code-changed",
)

_RAW: dict[str, list[tuple[str, str, str]]] = {
    # ------------------------------------------------------------------ should pass
    "paraphrase": [
        (
            "en",
            "Your flight to Lisbon is booked for Friday morning.",
            "I've booked your Friday morning flight to Lisbon.",
        ),
        (
            "en",
            "The package was delivered to the front desk at 2 pm.",
            "At 2 pm the package was dropped off at the front desk.",
        ),
        (
            "en",
            "I could not find any invoices from Acme in March.",
            "There are no Acme invoices from March in the system.",
        ),
        (
            "en",
            "The deployment finished successfully and all health checks are green.",
            "All health checks are green; the deployment completed successfully.",
        ),
        (
            "en",
            "You have 3 unread messages from Priya.",
            "Priya sent you three messages you haven't read yet.",
        ),
        (
            "en",
            "The meeting with the design team has been moved to Thursday.",
            "I moved the design team meeting to Thursday.",
        ),
        (
            "en",
            "It will be sunny in Madrid tomorrow with a high of 31°C.",
            "Tomorrow Madrid can expect sunshine and temperatures up to 31°C.",
        ),
        (
            "de",
            "Ihre Bestellung wurde heute versandt und kommt am Freitag an.",
            "Die Bestellung ging heute raus; sie wird am Freitag geliefert.",
        ),
        ("de", "Der Server ist wieder erreichbar.", "Der Server antwortet wieder."),
        (
            "fr",
            "Votre rendez-vous chez le dentiste est confirmé pour mardi.",
            "J'ai confirmé votre rendez-vous chez le dentiste mardi.",
        ),
        ("fr", "Le fichier a été envoyé à Claire.", "J'ai envoyé le fichier à Claire."),
        ("ja", "会議は木曜日の15時からです。", "木曜日の15時から会議が始まります。"),
        (
            "en",
            "The cheapest option is the 7:05 bus, which costs $12.",
            "At $12, the 7:05 bus is your cheapest choice.",
        ),
        ("en", "No errors were found in the log file.", "The log file contains no errors."),
    ],
    "markdown": [
        ("en", "The build passed. Coverage is 87%.", "**The build passed.**\n\nCoverage is 87%."),
        (
            "en",
            "Steps: install the package, then run the tests.",
            "Steps:\n\n- install the package\n- then run the tests",
        ),
        (
            "en",
            "## Summary\nThe migration moved 1,200 rows.",
            "Summary: the migration moved 1,200 rows.",
        ),
        (
            "en",
            "Use the `--force` flag to overwrite the file.",
            "Use the --force flag to overwrite the file.",
        ),
        (
            "en",
            "| Region | Status |\n|---|---|\n| eu-west-1 | healthy |",
            "Region eu-west-1: healthy",
        ),
        ("de", "Ergebnis: **3 Tickets** sind offen.", "Ergebnis: 3 Tickets sind offen."),
        ("fr", "> Le paiement a été reçu.", "Le paiement a été reçu."),
        ("ja", "**注意:** 明日の会議は10時からです。", "注意: 明日の会議は10時からです。"),
        ("en", "Your order #4412 has shipped.", "Your order #4412 has shipped!\n"),
        (
            "en",
            "See the [status page](https://status.example.com) for updates.",
            "See the status page (https://status.example.com) for updates.",
        ),
        ("en", "*Note:* the API key expires in 30 days.", "Note: the API key expires in 30 days."),
        ("en", "1) Open Settings\n2) Click Billing", "1. Open Settings\n2. Click Billing"),
    ],
    "numformat": [
        ("en", "The train leaves at 10:30.", "The train leaves at 10.30 am."),
        ("en", "The total is $1,000.", "The total is $1000."),
        ("en", "You have 3 days left on your trial.", "You have three days left on your trial."),
        ("en", "The call is at 2:30 pm.", "The call is at 14:30."),
        ("de", "Der Zug fährt um 10:30 Uhr.", "Der Zug fährt um 10.30 Uhr."),
        ("de", "Die Datei ist 1,5 GB groß.", "Die Datei ist 1.5 GB groß."),
        ("fr", "Le vol part à 10h30.", "Le vol part à 10:30."),
        ("en", "The refund of $25.00 is on its way.", "The refund of $25 is on its way."),
        ("en", "Your appointment is on March 3rd.", "Your appointment is on 3 March."),
        ("en", "The dataset has 12,500 rows.", "The dataset has 12500 rows."),
        ("ja", "会議は3月4日です。", "会議は2026-03-04です。"),
        ("en", "Latency dropped to 120 ms.", "Latency dropped to 120ms."),
        ("en", "It costs 40 dollars.", "It costs $40."),
        ("fr", "Le total est de 1 000 €.", "Le total est de 1000 €."),
    ],
    "reorder": [
        ("en", "- milk\n- eggs\n- bread", "- bread\n- milk\n- eggs"),
        (
            "en",
            "Supported formats: CSV, JSON and Parquet.",
            "Supported formats: JSON, Parquet and CSV.",
        ),
        ("en", "Attendees:\n- Maria\n- Tom\n- Keiko", "Attendees:\n- Keiko\n- Maria\n- Tom"),
        ("de", "Verfügbare Farben: Rot, Blau und Grün.", "Verfügbare Farben: Grün, Rot und Blau."),
        ("fr", "Ingrédients : farine, sucre, beurre.", "Ingrédients : beurre, farine, sucre."),
        (
            "en",
            "The failing tests are test_login, test_logout and test_signup.",
            "The failing tests are test_signup, test_login and test_logout.",
        ),
        ("ja", "- りんご\n- みかん\n- ぶどう", "- ぶどう\n- りんご\n- みかん"),
        ("en", "Open ports: 22, 80, 443.", "Open ports: 443, 22, 80."),
        (
            "en",
            "Regions with errors:\n* us-east-1\n* ap-south-1",
            "Regions with errors:\n* ap-south-1\n* us-east-1",
        ),
        ("en", "I checked the inbox and the calendar.", "I checked the calendar and the inbox."),
    ],
    "polite": [
        (
            "en",
            "Your refund of $25 was processed.",
            "Sure! I've processed your refund of $25. Let me know if there's anything else I can help with.",
        ),
        (
            "en",
            "The meeting is at 3 pm.",
            "Thanks for asking! The meeting is at 3 pm. Have a great day!",
        ),
        (
            "en",
            "Password reset link sent.",
            "No problem at all — I've sent you a password reset link. I hope this helps!",
        ),
        (
            "en",
            "The invoice is attached.",
            "Hello! Please find the invoice attached. Feel free to reach out if you have any questions.",
        ),
        (
            "de",
            "Ihr Termin ist am Montag um 9 Uhr.",
            "Gerne! Ihr Termin ist am Montag um 9 Uhr. Bei Fragen melden Sie sich jederzeit.",
        ),
        (
            "fr",
            "La commande a été annulée.",
            "Bien sûr ! La commande a été annulée. N'hésitez pas si vous avez besoin d'autre chose.",
        ),
        (
            "ja",
            "注文はキャンセルされました。",
            "かしこまりました。注文はキャンセルされました。ご不明な点があればお気軽にお問い合わせください。",
        ),
        (
            "en",
            "Done. The file was renamed to report.pdf.",
            "All done! I renamed the file to report.pdf for you. Let me know if you'd like anything else.",
        ),
        ("en", "The store opens at 9.", "Great question! The store opens at 9. I hope that helps."),
        (
            "en",
            "Your booking is confirmed.",
            "Good news: your booking is confirmed! If you have any other questions, just let me know.",
        ),
        ("de", "Das Paket kommt morgen.", "Hallo! Das Paket kommt morgen. Ich hoffe, das hilft."),
        (
            "en",
            "The API is down for maintenance until 6 pm.",
            "Sorry for the inconvenience! The API is down for maintenance until 6 pm.",
        ),
    ],
    "json-same": [
        ("en", '{"city": "Paris", "temp_c": 18}', '{"temp_c": 18, "city": "Paris"}'),
        ("en", '{"status": "ok", "items": 3}', '{\n  "status": "ok",\n  "items": 3\n}'),
        ("en", '{"total": 1000, "currency": "EUR"}', '{"currency": "EUR", "total": 1000.0}'),
        ("en", '["alpha", "beta"]', '[ "alpha", "beta" ]'),
        ("en", '{"name": "Ada", "role": "admin"}', '{"role": "admin", "name": "Ada"}'),
    ],
    "code-same": [
        (
            "en",
            "Run `pip install requests` and then `python app.py`.",
            "First run `pip install requests`, then start it with `python app.py`.",
        ),
        (
            "en",
            "The bug is in utils.py: the loop never ends.",
            "The loop in utils.py never terminates; that's the bug.",
        ),
        ("en", "Add `timeout=30` to the request call.", "Pass `timeout=30` to the request call."),
        (
            "en",
            "The function parse_date returns None for empty strings.",
            "For an empty string, parse_date returns None.",
        ),
        (
            "en",
            "Set DEBUG to false in settings.py before deploying.",
            "Before you deploy, set DEBUG to false in settings.py.",
        ),
    ],
    # ------------------------------------------------------------------ should fail
    "negation": [
        ("en", "The user has admin rights.", "The user does not have admin rights."),
        ("en", "The build passed.", "The build failed."),
        (
            "en",
            "Two-factor authentication is enabled for your account.",
            "Two-factor authentication is disabled for your account.",
        ),
        ("en", "The store is open on Sundays.", "The store is closed on Sundays."),
        ("en", "Yes, you can cancel for free.", "No, you cannot cancel for free."),
        ("en", "The coupon is valid until Friday.", "The coupon is invalid."),
        ("de", "Die Zahlung war erfolgreich.", "Die Zahlung war nicht erfolgreich."),
        ("de", "Der Drucker ist verfügbar.", "Der Drucker ist nicht verfügbar."),
        ("fr", "Le service est disponible.", "Le service n'est pas disponible."),
        ("fr", "Le test a réussi.", "Le test a échoué."),
        ("ja", "在庫があります。", "在庫がありません。"),
        ("en", "The request was approved by finance.", "The request was rejected by finance."),
        ("en", "Refunds are allowed within 30 days.", "Refunds are not allowed within 30 days."),
        (
            "en",
            "I found the file on the shared drive.",
            "I couldn't find the file on the shared drive.",
        ),
    ],
    "number": [
        ("en", "The train arrives at 10:30.", "The train arrives at 11:30."),
        ("en", "The total comes to $40.", "The total comes to $400."),
        (
            "en",
            "Upgrade to version 2.3.1 to fix the issue.",
            "Upgrade to version 2.3.2 to fix the issue.",
        ),
        ("en", "The meeting is on Thursday at 3 pm.", "The meeting is on Thursday at 5 pm."),
        ("en", "You have 3 unread messages.", "You have 4 unread messages."),
        ("en", "Your flight departs on March 3.", "Your flight departs on March 4."),
        ("de", "Die Lieferung kostet 4,99 €.", "Die Lieferung kostet 5,99 €."),
        ("de", "Der Termin ist am Dienstag.", "Der Termin ist am Mittwoch."),
        ("fr", "Le train part à 8h15.", "Le train part à 9h15."),
        ("ja", "会議は15時からです。", "会議は16時からです。"),
        ("en", "The port was changed to 9090.", "The port was changed to 9091."),
        ("en", "Disk usage is at 60%.", "Disk usage is at 90%."),
        ("en", "The job took 41 minutes.", "The job took 41 seconds."),
        ("en", "Shipping takes five business days.", "Shipping takes seven business days."),
    ],
    "entity": [
        ("en", "Your flight to Paris is confirmed.", "Your flight to Lyon is confirmed."),
        ("en", "The instance runs in eu-west-1.", "The instance runs in us-east-1."),
        ("en", "The error is in config.yaml.", "The error is in settings.yaml."),
        ("en", "I sent the contract to Maria.", "I sent the contract to Marta."),
        ("de", "Das Paket geht nach Berlin.", "Das Paket geht nach München."),
        ("fr", "Le colis est parti pour Marseille.", "Le colis est parti pour Bordeaux."),
        ("ja", "会議室はAです。", "会議室はBです。"),
        (
            "en",
            "The PR was merged into the main branch by GitHub Actions.",
            "The PR was merged into the release branch by GitHub Actions.",
        ),
        ("en", "Contact support@acme.com for help.", "Contact billing@acme.com for help."),
        (
            "en",
            "The ticket is assigned to the Payments team.",
            "The ticket is assigned to the Identity team.",
        ),
    ],
    "role": [
        ("en", "Alice owes Bob $50.", "Bob owes Alice $50."),
        (
            "en",
            "The client calls the server every minute.",
            "The server calls the client every minute.",
        ),
        ("en", "Acme acquired Globex last year.", "Globex acquired Acme last year."),
        (
            "en",
            "The frontend depends on the auth service.",
            "The auth service depends on the frontend.",
        ),
        ("de", "Anna überweist Jonas 20 Euro.", "Jonas überweist Anna 20 Euro."),
        ("fr", "Paul a remboursé Julie.", "Julie a remboursé Paul."),
        (
            "en",
            "The tenant pays the landlord on the first of each month.",
            "The landlord pays the tenant on the first of each month.",
        ),
        ("en", "Service A sends events to service B.", "Service B sends events to service A."),
    ],
    "step": [
        (
            "en",
            "1. Stop the service\n2. Delete the cache folder\n3. Start the service",
            "1. Stop the service\n2. Start the service",
        ),
        (
            "en",
            "To reset the router: unplug it, wait 30 seconds, plug it back in.\n- Unplug the router\n- Wait 30 seconds\n- Plug it back in",
            "- Unplug the router\n- Plug it back in",
        ),
        (
            "en",
            "First, back up the database. Then run the migration. Finally, restart the app.",
            "First, run the migration. Finally, restart the app.",
        ),
        (
            "en",
            "- Create a virtual environment\n- Install the dependencies\n- Run the tests",
            "- Create a virtual environment\n- Run the tests",
        ),
        (
            "de",
            "1. Gerät ausschalten\n2. Akku entfernen\n3. Gerät einschalten",
            "1. Gerät ausschalten\n2. Gerät einschalten",
        ),
        (
            "fr",
            "1. Ouvrez les paramètres\n2. Choisissez Sécurité\n3. Activez la double authentification",
            "1. Ouvrez les paramètres\n2. Activez la double authentification",
        ),
        (
            "ja",
            "1. アプリを閉じる\n2. キャッシュを削除する\n3. アプリを再起動する",
            "1. アプリを閉じる\n2. アプリを再起動する",
        ),
        (
            "en",
            "Step 1: log in. Step 2: open Billing. Step 3: download the invoice.",
            "Step 1: log in. Step 3: download the invoice.",
        ),
        (
            "en",
            "1. Pull the latest code\n2. Run the linter\n3. Run the test suite\n4. Open a pull request",
            "1. Pull the latest code\n2. Run the test suite\n3. Open a pull request",
        ),
    ],
    "conclusion": [
        (
            "en",
            "Both plans include support, so the annual plan is the better deal.",
            "Both plans include support, so the monthly plan is the better deal.",
        ),
        (
            "en",
            "Given the logs, the outage was caused by the database.",
            "Given the logs, the outage was caused by the load balancer.",
        ),
        (
            "en",
            "The candidate meets all requirements; I recommend hiring her.",
            "The candidate meets all requirements; I recommend not hiring her.",
        ),
        (
            "en",
            "Overall, the safest choice is to wait for the patch.",
            "Overall, the safest choice is to upgrade right away.",
        ),
        (
            "de",
            "Fazit: Das Angebot von Firma X ist günstiger.",
            "Fazit: Das Angebot von Firma Y ist günstiger.",
        ),
        (
            "fr",
            "En conclusion, le train est plus rapide que l'avion.",
            "En conclusion, l'avion est plus rapide que le train.",
        ),
        (
            "en",
            "The test results suggest the new model is more accurate.",
            "The test results suggest the new model is less accurate.",
        ),
        ("en", "So the answer to your question is yes.", "So the answer to your question is no."),
    ],
    "claim": [
        (
            "en",
            "The meeting is at 3 pm in room 4.",
            "The meeting is at 3 pm in room 4. Lunch will be provided for all attendees.",
        ),
        ("en", "Your order has shipped.", "Your order has shipped and includes a free gift card."),
        (
            "en",
            "The refund was processed.",
            "The refund was processed. You will also receive a 10% discount on your next order.",
        ),
        (
            "en",
            "The migration finished without errors.",
            "The migration finished without errors. It also deleted the old backup tables.",
        ),
        (
            "en",
            "The hotel has free Wi-Fi.",
            "The hotel has free Wi-Fi and a rooftop swimming pool open all year.",
        ),
        (
            "de",
            "Die Rechnung wurde bezahlt.",
            "Die Rechnung wurde bezahlt. Außerdem wurde Ihr Konto auf Premium hochgestuft.",
        ),
        (
            "fr",
            "Votre réservation est confirmée.",
            "Votre réservation est confirmée. Le petit-déjeuner est offert chaque matin.",
        ),
        (
            "en",
            "The library supports Python 3.10.",
            "The library supports Python 3.10 and ships native wheels for Windows ARM.",
        ),
        ("ja", "荷物は明日届きます。", "荷物は明日届きます。送料は無料になりました。"),
    ],
    "json-changed": [
        ("en", '{"city": "Paris", "temp_c": 18}', '{"city": "Paris", "temp_c": 21}'),
        ("en", '{"status": "ok", "items": 3}', '{"status": "error", "items": 3}'),
        ("en", '{"approved": true, "amount": 120}', '{"approved": false, "amount": 120}'),
        ("en", '{"name": "Ada", "role": "admin"}', '{"name": "Ada", "role": "viewer"}'),
        ("en", '{"region": "eu-west-1"}', '{"region": "eu-central-1"}'),
    ],
    "code-changed": [
        (
            "en",
            "Run `pip install requests` and then `python app.py`.",
            "Run `pip install httpx` and then `python app.py`.",
        ),
        (
            "en",
            "The bug is in utils.py: the loop never ends.",
            "The bug is in models.py: the loop never ends.",
        ),
        ("en", "Add `timeout=30` to the request call.", "Add `timeout=300` to the request call."),
        (
            "en",
            "Set DEBUG to false in settings.py before deploying.",
            "Set DEBUG to true in settings.py before deploying.",
        ),
        ("en", "Call `save()` before `close()`.", "Call `close()` before `save()`."),
    ],
}

# ---------------------------------------------------------------------- long answers (300+ words)

_LONG_EN_1 = [
    "Here is the summary of last night's data pipeline run.",
    "The import job read 14,250 rows from the billing export and wrote all of them to the warehouse.",
    "The deduplication step removed 312 duplicate invoices, most of them created by retries in the payment gateway.",
    "Customer records were matched against the CRM, and every active account had a valid contact address.",
    "Currency conversion used the rates published at midnight, and the totals per region stayed within the expected range.",
    "The finance report was generated and placed in the shared folder, where the controllers usually pick it up in the morning.",
    "Last month's files were compressed and moved to cold storage, which freed about 40 GB on the primary volume.",
    "Disk usage on the database host is now at 60%, leaving room for roughly five more months of growth at the current rate.",
    "Two warnings appeared in the logs: a slow query on the invoices table and a certificate that expires in 21 days.",
    "Neither warning blocked the run, but the certificate should be renewed before the end of the month.",
    "The slow query took 8 seconds on average; adding an index on the customer_id column would likely fix it.",
    "No alerts were raised during the run, and the on-call engineer did not have to intervene.",
    "The job finished in 41 minutes, a little faster than the weekly average of 47 minutes.",
    "The next run is scheduled for tonight at 02:00 UTC.",
    "If the certificate is renewed today, no further action is needed from the team.",
]
_LONG_EN_1_PARA = {
    3: "The CRM match covered every customer record, and each active account had a working contact address.",
    4: "For currency conversion we used the midnight rates; regional totals were all in the expected range.",
    5: "The controllers will find the generated finance report in the shared folder tomorrow morning, as usual.",
    6: "About 40 GB on the primary volume were freed by compressing last month's files and moving them to cold storage.",
    8: "The logs showed two warnings: one slow query on the invoices table, and one certificate expiring in 21 days.",
    11: "During the run no alert fired and the on-call engineer never had to step in.",
}
_LONG_EN_1_TAIL = {
    12: "The job finished in 41 minutes, a little slower than the weekly average of 37 minutes.",
    13: "The next run is scheduled for tonight at 03:00 UTC.",
    14: "If the certificate is renewed today, the team still has to restart the warehouse manually.",
    11: "Three alerts were raised during the run, and the on-call engineer had to intervene.",
}

_LONG_EN_2 = [
    "Thanks for your patience while I looked into your booking.",
    "Your trip to Vienna is confirmed for the 12th to the 15th of May.",
    "You are flying with Austrian Airlines on flight OS 418, leaving Paris Charles de Gaulle at 9:40 and landing in Vienna at 11:55.",
    "The return flight, OS 417, leaves Vienna on the 15th at 18:20 and lands in Paris at 20:35.",
    "Your fare includes one checked bag of up to 23 kg and a small cabin bag.",
    "Seat selection is free on this fare, and I have reserved window seats on both flights as you asked.",
    "The hotel is the Hotel Am Stephansplatz, right in the city centre, a two-minute walk from the cathedral.",
    "You have a double room with breakfast for three nights, and check-in starts at 3 pm.",
    "The hotel offers free cancellation until 48 hours before arrival.",
    "From the airport, the City Airport Train takes 16 minutes to Wien Mitte, and from there it is two stops on the U3 line.",
    "A taxi costs around 40 euros and takes about 25 minutes, depending on traffic.",
    "The total price for flights and hotel is 1,240 euros, which has been charged to your card ending in 4421.",
    "You will receive the e-tickets and the hotel voucher by email within the next hour.",
    "Online check-in for the outbound flight opens 30 hours before departure.",
    "Have a wonderful trip, and let me know if you want me to book a restaurant or a concert.",
]
_LONG_EN_2_PARA = {
    4: "On this fare you can check one bag weighing up to 23 kg and bring a small cabin bag.",
    5: "As requested, I reserved window seats on both flights; seat selection costs nothing on this fare.",
    6: "You'll stay at the Hotel Am Stephansplatz in the city centre, two minutes on foot from the cathedral.",
    9: "The City Airport Train gets you from the airport to Wien Mitte in 16 minutes; then take the U3 line for two stops.",
    10: "Expect a taxi to cost about 40 euros and to take around 25 minutes, traffic permitting.",
}
_LONG_EN_2_TAIL = {
    12: "You will receive the e-tickets and the hotel voucher by post within the next two weeks.",
    13: "Online check-in for the outbound flight opens 24 hours before departure.",
    11: "The total price for flights and hotel is 1,420 euros, which has been charged to your card ending in 4421.",
    8: "The hotel does not offer free cancellation.",
}

_LONG_DE = [
    "Hier ist die Zusammenfassung der Störung von gestern Abend.",
    "Um 21:14 Uhr meldete das Monitoring erhöhte Fehlerraten im Bestellservice.",
    "Die Ursache war ein fehlerhaftes Konfigurations-Update, das die Verbindung zur Datenbank auf zehn Verbindungen begrenzte.",
    "Unter Last reichten diese Verbindungen nicht aus, und etwa 18 Prozent der Bestellungen schlugen fehl.",
    "Das Bereitschaftsteam hat das Update um 21:52 Uhr zurückgenommen.",
    "Danach sanken die Fehlerraten innerhalb von fünf Minuten wieder auf das normale Niveau.",
    "Insgesamt waren rund 2.300 Bestellungen betroffen.",
    "Die Kunden, deren Bestellungen fehlgeschlagen sind, erhalten heute eine E-Mail mit einem Gutschein über zehn Euro.",
    "Zahlungen wurden in keinem Fall doppelt abgebucht; das hat das Finanzteam heute Morgen bestätigt.",
    "Um eine Wiederholung zu verhindern, wird jede Änderung an der Datenbank-Konfiguration künftig zuerst in der Staging-Umgebung getestet.",
    "Außerdem bekommt das Monitoring einen zusätzlichen Alarm, der schon bei fünf Prozent Fehlerrate auslöst.",
    "Die Nachbesprechung mit allen beteiligten Teams findet am Donnerstag um 10 Uhr statt.",
    "Bis dahin bleibt die Konfiguration eingefroren, und Deployments des Bestellservice sind ausgesetzt.",
    "Für Rückfragen steht Ihnen das Plattform-Team im Kanal #incident-4711 zur Verfügung.",
    "Der vollständige Bericht wird nach der Nachbesprechung im Wiki veröffentlicht.",
]
_LONG_DE_PARA = {
    3: "Unter Last genügten diese Verbindungen nicht, sodass ungefähr 18 Prozent der Bestellungen scheiterten.",
    5: "Innerhalb von fünf Minuten fielen die Fehlerraten anschließend auf ihr übliches Niveau zurück.",
    8: "Das Finanzteam hat heute Morgen bestätigt, dass keine Zahlung doppelt abgebucht wurde.",
    10: "Zusätzlich erhält das Monitoring einen weiteren Alarm, der bereits ab fünf Prozent Fehlerrate anschlägt.",
}
_LONG_DE_TAIL = {
    11: "Die Nachbesprechung mit allen beteiligten Teams findet am Freitag um 10 Uhr statt.",
    12: "Bis dahin bleibt die Konfiguration eingefroren, Deployments des Bestellservice sind aber erlaubt.",
    13: "Für Rückfragen steht Ihnen das Plattform-Team im Kanal #incident-4712 zur Verfügung.",
}

_LONG_FR = [
    "Voici le compte rendu de la réunion de lancement du projet Atlas.",
    "L'équipe a validé le périmètre de la première version, qui couvre la gestion des commandes et la facturation.",
    "Le module de reporting est repoussé à la deuxième version, prévue pour l'automne.",
    "Sophie Martin pilotera le projet, avec l'appui de deux développeurs et d'une designer.",
    "Le budget total est fixé à 180 000 euros, dont 30 000 euros réservés aux imprévus.",
    "Le prestataire externe livrera les maquettes d'ici la fin du mois.",
    "Les tests utilisateurs auront lieu dans l'agence de Lyon, avec une dizaine de conseillers volontaires.",
    "La mise en production de la première version est prévue pour le 15 juin.",
    "Un point d'avancement aura lieu chaque lundi à 9h30, en visioconférence.",
    "Les risques principaux sont la disponibilité de l'équipe infrastructure et la migration des anciennes données.",
    "Pour limiter le second risque, une migration d'essai sera faite dès le mois prochain sur une copie de la base.",
    "Le comité de direction a donné son accord pour démarrer immédiatement.",
    "Les accès aux outils seront créés cette semaine par le service informatique.",
    "La prochaine réunion plénière aura lieu le 2 avril.",
    "Le compte rendu complet et le planning détaillé sont disponibles sur l'espace partagé du projet.",
]
_LONG_FR_PARA = {
    2: "Le reporting ne fera pas partie de la première version : il arrivera avec la deuxième, à l'automne.",
    5: "Les maquettes seront livrées par le prestataire externe avant la fin du mois.",
    9: "Deux risques principaux ont été identifiés : la disponibilité de l'équipe infrastructure et la reprise des anciennes données.",
    12: "Le service informatique créera cette semaine les accès aux outils.",
}
_LONG_FR_TAIL = {
    13: "La prochaine réunion plénière aura lieu le 9 avril.",
    11: "Le comité de direction n'a pas encore donné son accord pour démarrer.",
    14: "Le compte rendu complet et le planning détaillé ont été envoyés à Marc Dubois par courrier.",
}


#: context sentences inserted after the second sentence of each long answer (never changed), so
#: that every long answer has 300+ words and its changed facts sit in its last third
_EXTRA = {
    "en1": [
        "The run started on time at 01:00 UTC, after the upstream export landed in the bucket a few minutes early.",
        "All seven stages of the pipeline ran in their usual order, and none of them had to be retried.",
        "Memory use on the worker nodes peaked at about two thirds of the limit during the join of invoices and payments.",
        "The schema check found no new or renamed columns in any of the source tables.",
    ],
    "en2": [
        "I compared four itineraries on the dates you gave me and picked the one with the shortest total travel time.",
        "The airline confirmed the booking a few minutes ago, and the reservation code is in the confirmation email.",
        "Both flights are operated with an Airbus A320, and meals can be bought on board.",
        "Your passport must be valid for the whole stay, but no visa is needed for this trip.",
    ],
    "de": [
        "Betroffen war ausschließlich der Bestellservice; Suche, Warenkorb und Kundenkonto liefen die ganze Zeit normal weiter.",
        "Das Update war am Nachmittag im Rahmen der regulären Wartung eingespielt worden und zunächst unauffällig geblieben.",
        "Erst mit dem abendlichen Anstieg der Bestellungen wurde die zu niedrige Grenze zum Problem.",
        "Die Datenbank selbst war während der ganzen Störung gesund und hatte genügend freie Kapazität.",
        "Das Monitoring hat den Anstieg der Fehler zuverlässig erkannt, allerdings erst nach einigen Minuten.",
        "Die Kundenhotline meldete in dieser Zeit eine deutlich höhere Zahl von Anrufen als an gewöhnlichen Abenden.",
        "Mehrere Kunden haben ihre Bestellung nach dem Fehler ein zweites Mal aufgegeben, was später zu Rückfragen führte.",
        "Diese doppelten Bestellungen wurden heute Vormittag vom Kundenservice geprüft und, wo nötig, storniert.",
    ],
    "fr": [
        "Étaient présents les responsables du service client, de la comptabilité et de l'équipe technique, ainsi que le sponsor du projet.",
        "La réunion a commencé par un rappel des objectifs : réduire les délais de traitement des commandes et simplifier la facturation.",
        "Les utilisateurs actuels se plaignent surtout de la lenteur de l'ancien outil et des nombreuses saisies manuelles.",
        "Le nouvel outil sera d'abord proposé aux conseillers de deux agences avant d'être étendu à tout le réseau.",
        "Chaque agence désignera un référent chargé de remonter les retours des utilisateurs à l'équipe projet.",
        "La formation des conseillers sera organisée en petits groupes, directement dans les agences.",
    ],
}


def _long(base: list[str], changes: dict[int, str], keys: list[int], extra: list[str]) -> str:
    out = list(base)
    for key in keys:
        out[key] = changes[key]
    out = out[:2] + extra + out[2:]
    third = len(out) // 3
    return (
        " ".join(out[:third])
        + "\n\n"
        + " ".join(out[third : 2 * third])
        + "\n\n"
        + " ".join(out[2 * third :])
    )


def _long_cases() -> dict[str, list[tuple[str, str, str]]]:
    para: list[tuple[str, str, str]] = []
    tail: list[tuple[str, str, str]] = []
    for lang, base, paras, tails, extra in (
        ("en", _LONG_EN_1, _LONG_EN_1_PARA, _LONG_EN_1_TAIL, _EXTRA["en1"]),
        ("en", _LONG_EN_2, _LONG_EN_2_PARA, _LONG_EN_2_TAIL, _EXTRA["en2"]),
        ("de", _LONG_DE, _LONG_DE_PARA, _LONG_DE_TAIL, _EXTRA["de"]),
        ("fr", _LONG_FR, _LONG_FR_PARA, _LONG_FR_TAIL, _EXTRA["fr"]),
    ):
        golden = _long(base, {}, [], extra)
        keys = sorted(paras)
        # one, two, or all middle sentences reworded
        for chosen in (keys[:1], keys[1:3], keys):
            para.append((lang, golden, _long(base, paras, chosen, extra)))
        for key in sorted(tails):
            tail.append((lang, golden, _long(base, tails, [key], extra)))
    return {"long-para": para, "long-tail": tail}


def _build() -> tuple[Case, ...]:
    raw = dict(_RAW)
    raw.update(_long_cases())
    cases = []
    for category, items in raw.items():
        same = category in PASS_CATEGORIES
        for index, (lang, golden, new) in enumerate(items):
            cases.append(Case(f"{category}-{index:02d}", category, lang, golden, new, same))
    return tuple(cases)


CASES: tuple[Case, ...] = _build()
#: every third pair of each category (index 2, 5, 8, …) is held out
HELDOUT: tuple[Case, ...] = tuple(c for c in CASES if int(c.id.rsplit("-", 1)[1]) % 3 == 2)
DEV: tuple[Case, ...] = tuple(c for c in CASES if c not in HELDOUT)


#: written after the check was tuned (on DEV) and never used to change it: a second, later
#: held-out set, scored once as it stands (tests/test_semantic_devset.py reports it)
_FRESH: dict[str, list[tuple[str, str, str]]] = {
    "paraphrase": [
        (
            "en",
            "The backup completed at midnight and took 12 minutes.",
            "It took 12 minutes to finish the backup, which completed at midnight.",
        ),
        (
            "en",
            "Your subscription renews on the 1st of every month.",
            "Every month on the 1st, your subscription is renewed.",
        ),
        (
            "de",
            "Der Techniker kommt am Donnerstag zwischen 8 und 12 Uhr.",
            "Am Donnerstag kommt der Techniker zwischen 8 und 12 Uhr vorbei.",
        ),
        (
            "fr",
            "Le colis sera livré demain avant midi.",
            "Demain, avant midi, le colis vous sera livré.",
        ),
        ("ja", "明日の天気は晴れです。", "明日は晴れの予報です。"),
    ],
    "polite": [
        (
            "en",
            "The room is booked for 4 people.",
            "Happy to help! I've booked the room for 4 people. Let me know if you need anything else.",
        ),
        (
            "fr",
            "Le remboursement a été effectué.",
            "Merci pour votre patience ! Le remboursement a été effectué.",
        ),
        (
            "en",
            "Order 5521 was cancelled.",
            "Of course — order 5521 was cancelled. Have a nice day!",
        ),
    ],
    "numformat": [
        ("en", "Revenue was $2,500,000 last quarter.", "Revenue was $2500000 last quarter."),
        ("en", "The webinar starts at 4 pm.", "The webinar starts at 16:00."),
        ("de", "Das Paket wiegt 2,5 kg.", "Das Paket wiegt 2.5 kg."),
    ],
    "reorder": [
        (
            "en",
            "Packing list:\n- passport\n- charger\n- sunscreen",
            "Packing list:\n- sunscreen\n- passport\n- charger",
        ),
        (
            "en",
            "The report covers Germany, France and Spain.",
            "The report covers Spain, Germany and France.",
        ),
    ],
    "markdown": [
        ("en", "# Result\n\nAll **12** checks passed.", "Result: all 12 checks passed."),
        ("en", "Run `npm test` to check.", "Run npm test to check."),
    ],
    "negation": [
        ("en", "The invoice has been paid.", "The invoice has not been paid."),
        ("en", "Caching is enabled in production.", "Caching is disabled in production."),
        ("de", "Der Flug ist pünktlich.", "Der Flug ist nicht pünktlich."),
        ("fr", "La réunion est confirmée.", "La réunion n'est pas confirmée."),
        ("en", "The migration succeeded.", "The migration failed."),
    ],
    "number": [
        ("en", "The meeting room holds 8 people.", "The meeting room holds 18 people."),
        ("en", "Your balance is €120.50.", "Your balance is €102.50."),
        ("en", "The release is scheduled for April 14.", "The release is scheduled for April 24."),
        ("fr", "Le rendez-vous est à 14h00.", "Le rendez-vous est à 15h00."),
        ("en", "Node 18 is required.", "Node 20 is required."),
    ],
    "entity": [
        (
            "en",
            "The order ships from the Dublin warehouse.",
            "The order ships from the Madrid warehouse.",
        ),
        ("en", "Logs are written to /var/log/app.log.", "Logs are written to /var/log/web.log."),
        ("de", "Ihr Ansprechpartner ist Herr Weber.", "Ihr Ansprechpartner ist Herr Becker."),
    ],
    "role": [
        ("en", "The manager approved Sam's request.", "Sam approved the manager's request."),
        ("en", "Team Red beat Team Blue 3 to 1.", "Team Blue beat Team Red 3 to 1."),
    ],
    "step": [
        (
            "en",
            "1. Download the installer\n2. Verify the checksum\n3. Run the installer",
            "1. Download the installer\n2. Run the installer",
        ),
        (
            "en",
            "First, log out. Then clear your browser cache. Finally, log back in.",
            "First, log out. Finally, log back in.",
        ),
    ],
    "claim": [
        (
            "en",
            "The package was delivered.",
            "The package was delivered and the courier left a signed receipt with your neighbour.",
        ),
        (
            "en",
            "The API returns JSON.",
            "The API returns JSON. It also supports XML responses for legacy clients.",
        ),
    ],
    "conclusion": [
        (
            "en",
            "Based on the numbers, option A is cheaper.",
            "Based on the numbers, option B is cheaper.",
        ),
        (
            "en",
            "So the bug is fixed in the latest release.",
            "So the bug is still present in the latest release.",
        ),
    ],
}


def _build_fresh() -> tuple[Case, ...]:
    out = []
    for category, items in _FRESH.items():
        same = category in PASS_CATEGORIES
        for index, (lang, golden, new) in enumerate(items):
            out.append(Case(f"fresh-{category}-{index:02d}", category, lang, golden, new, same))
    return tuple(out)


FRESH: tuple[Case, ...] = _build_fresh()
