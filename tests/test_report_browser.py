"""The HTML report in a real browser: headless Chromium renders it, runs its script, and we check what it shows.

The page comes from a real run (see :func:`tests.test_report_html.drift_run`):
two snapshots drifted (a changed tool argument; an inserted tool call and an
answer that contains a ``<script>`` element) and one is pending. Chromium's
``--dump-dom`` prints the DOM after the page's scripts ran, so the assertions
see what a reader's browser has: the failed rows, the highlighted argument, our
own script's mark (``data-js="ready"``: the Content Security Policy let it
run) and no trace of the injected script (it would have set
``document.title`` and a ``data-injected`` attribute). ``--screenshot`` saves
the page as a PNG, kept as a test artefact in the test's tmp folder and copied
to ``$AGENTSNAP_TEST_ARTIFACTS`` (default: ``<system tmp>/agentsnap-artifacts``).

Chromium is Debian's ``chromium`` package (``.ci/install-chromium`` installs
it); the tests skip, saying so, only where it is not installed.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import tempfile
from pathlib import Path

import pytest

from tests.test_report_html import (
    GREETING,
    INJECTED,
    TRIP,
    WEATHER,
    DriftRun,
    drift_run,
    parse,
)

# the flags known to work on this kind of machine: no sandbox as root, no GPU, and no
# background traffic (the network is closed; Chromium would keep trying otherwise)
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
)


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if os.access("/usr/bin/chromium", os.X_OK) else None


CHROMIUM = _chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed here (no `chromium` on PATH, no /usr/bin/chromium); "
    "`.ci/install-chromium` installs Debian's chromium package",
)


def chromium(page: Path, profile: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """Run headless Chromium on ``page`` with a fresh profile folder; ``args`` say what to produce."""
    assert CHROMIUM is not None
    cmd = [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *args, page.as_uri()]
    result = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    assert result.returncode == 0, f"{cmd}\n{result.stderr[-2000:]}"
    return result


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> tuple[DriftRun, str, Path]:
    """The drift run's report, its DOM after the scripts ran, and a full-page screenshot."""
    run = drift_run(tmp_path_factory.mktemp("browser-drift"))
    work = tmp_path_factory.mktemp("chromium")
    dom = chromium(run.report, work / "profile-dom", "--dump-dom").stdout
    shot = work / "report.png"
    chromium(run.report, work / "profile-shot", "--window-size=1280,4400", f"--screenshot={shot}")
    artifacts = Path(
        os.environ.get("AGENTSNAP_TEST_ARTIFACTS")
        or Path(tempfile.gettempdir()) / "agentsnap-artifacts"
    )
    artifacts.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, artifacts / "report-browser.png")
    shutil.copyfile(run.report, artifacts / "report-browser.html")
    return run, dom, shot


def test_our_script_ran_and_the_injected_one_did_not(rendered: tuple[DriftRun, str, Path]) -> None:
    _, dom, _ = rendered
    doc = parse(dom)
    body = doc.find_all("body")[0]
    assert body.attrs.get("data-js") == "ready"  # the page's own script ran (its CSP hash matched)
    assert "data-injected" not in body.attrs  # the model's <script> did not
    assert [t.text() for t in doc.find_all("title")] == [
        "agentsnap report"
    ]  # nor did it rename the page
    assert len(doc.find_all("script")) == 1
    # the injected element is on the page as text, in the marked-up new answer
    trip = next(
        s for s in doc.find_all("section", cls="snap") if s.find_all("h2")[0].text() == TRIP
    )
    assert INJECTED in "".join(i.text() for i in trip.find_all("ins"))


def test_summary_shows_two_failed_rows_and_one_pending(
    rendered: tuple[DriftRun, str, Path],
) -> None:
    _, dom, _ = rendered
    doc = parse(dom)
    failed = doc.find_all("tr", cls="row-failed")
    pending = doc.find_all("tr", cls="row-pending")
    assert len(failed) == 2 and len(pending) == 1
    assert sorted(r.find_all("td")[0].text().strip() for r in failed) == sorted([TRIP, WEATHER])
    assert pending[0].find_all("td")[0].text().strip() == GREETING
    # each row links to its section, and the filter buttons count the states
    for row in failed + pending:
        href = row.find_all("a")[0].attrs["href"]
        assert doc.find_all(id=href[1:])
    counts = {
        b.attrs["data-state"]: b.find_all(cls="n")[0].text()
        for b in doc.find_all("button", cls="filter")
    }
    assert counts == {"failed": "2", "pending": "1", "new": "0", "recorded": "0", "passed": "0"}


def test_changed_argument_is_highlighted(rendered: tuple[DriftRun, str, Path]) -> None:
    _, dom, _ = rendered
    doc = parse(dom)
    weather = next(
        s for s in doc.find_all("section", cls="snap") if s.find_all("h2")[0].text() == WEATHER
    )
    changed_rows = [
        r for r in weather.find_all(cls="tl-row") if r.attrs.get("data-op") == "changed"
    ]
    tool_row = next(r for r in changed_rows if r.find_all(cls="step-tool_call"))
    assert [c.text() for c in tool_row.find_all("td", cls="arg-path")] == ["args.city"]
    assert [c.text() for c in tool_row.find_all("td", cls="arg-old")] == ['"Paris"']
    assert [c.text() for c in tool_row.find_all("td", cls="arg-new")] == ['"Rome"']
    assert [d.text() for d in tool_row.find_all("dd", cls="kv-changed")] == ['"Paris"', '"Rome"']


def test_screenshot_is_a_full_width_png(rendered: tuple[DriftRun, str, Path]) -> None:
    _, _, shot = rendered
    data = shot.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    assert (width, height) == (1280, 4400)
    assert len(data) > 50_000  # a rendered page, not a blank one
