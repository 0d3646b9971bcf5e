"""The workspace in a real browser: the four failures a compliance officer met.

1. Leaving the Anonymize page and coming back kept the controls and the release, and ran
   nothing again.
2. With a second release made, the report names and assesses the release chosen in its
   picker, and its download is named after it.
3. A release made here and shuffled on download is not given a row-order condition.
4. A shuffled release from a colleague is measured for everything that needs no pairing.
And: the Privacy level, Attack and Report pages each name the release they assess.
"""

from __future__ import annotations

import re

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from privcore import history
from tests.e2e.conftest import ROOT

from .test_browser import choose_sample, open_page, wait_idle

pytestmark = pytest.mark.e2e

NAME = re.compile(r"^(Mondrian|Datafly) k=5 · \d\d:\d\d$")


def start_on_hospital(page: Page, base: str) -> None:
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    choose_sample(page, "Hospital (9 patients, the textbook example)")


def choose(page: Page, label: str, option: str) -> None:
    """Pick ``option`` in the select box labelled ``label``. Retried: a rerun that lands
    just after the click draws the box again, closed."""
    choice = page.get_by_role("option", name=option, exact=True)
    for _attempt in range(3):
        wait_idle(page)
        page.get_by_role("combobox", name=label, exact=True).click()
        try:
            choice.wait_for(timeout=5_000)
            break
        except Exception:  # noqa: BLE001 - closed by a rerun: open it again
            continue
    choice.click()
    wait_idle(page)


def press_anonymize(page: Page) -> None:
    """Press Anonymize: the first release of the page is made only when asked."""
    page.get_by_role("button", name="Anonymize", exact=True).click()
    wait_idle(page)


def picker(page: Page):
    """The release picker at the top of an assessing page (its value: the name)."""
    return page.get_by_role("combobox", name="Release under review", exact=True)


def anonymize_runs(history_db) -> int:
    return len(history.list_runs(path=history_db, kind="anonymize"))


def release_name(page: Page) -> str:
    box = page.get_by_label("Name", exact=True)
    expect(box).to_have_value(NAME, timeout=30_000)
    return box.input_value()


def test_leaving_and_coming_back_keeps_controls_and_release(page: Page, app_server):
    base, history_db = app_server
    start_on_hospital(page, base)
    before = anonymize_runs(history_db)
    open_page(page, base, "Anonymize")
    expect(page.get_by_text("Press Anonymize to make a release")).to_be_visible(timeout=30_000)
    assert anonymize_runs(history_db) == before  # opening the page ran nothing
    shelf = page.get_by_text(re.compile(r"^Releases of this session \(\d+\)$"))
    on_shelf = int(re.findall(r"\d+", shelf.inner_text())[0])
    choose(page, "Algorithm", "Mondrian")  # a change before the first run runs nothing
    assert anonymize_runs(history_db) == before
    press_anonymize(page)
    name = release_name(page)
    assert name.startswith("Mondrian k=5 · ")
    assert anonymize_runs(history_db) == before + 1
    # the shelf counts the new release at once (the run reran only its fragment)
    expect(page.get_by_text(f"Releases of this session ({on_shelf + 1})")).to_be_visible()
    for other in ("Privacy level", "Release report", "History"):
        open_page(page, base, other)
    open_page(page, base, "Anonymize")
    expect(page.get_by_role("combobox", name="Algorithm", exact=True)).to_have_value("Mondrian")
    expect(page.get_by_label("Name", exact=True)).to_have_value(name)
    expect(page.get_by_text("Press Anonymize to make a release")).to_have_count(0)
    page.wait_for_timeout(1_000)
    assert anonymize_runs(history_db) == before + 1  # nothing ran again
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_the_report_assesses_and_names_the_release_of_its_picker(
    page: Page, app_server, tmp_path, artifacts
):
    base, history_db = app_server
    start_on_hospital(page, base)
    open_page(page, base, "Anonymize")
    choose(page, "Algorithm", "Mondrian")
    press_anonymize(page)
    first = release_name(page)
    choose(page, "Algorithm", "Datafly")  # quick on nine rows: once a release is shown, live
    expect(page.get_by_label("Name", exact=True)).to_have_value(
        re.compile("^Datafly"), timeout=30_000
    )
    second = release_name(page)
    assert first != second
    # the report page: pick the first release explicitly
    open_page(page, base, "Release report")
    choose(page, "Release under review", first)
    expect(picker(page)).to_have_value(first)
    page.get_by_role("button", name="Generate the report").click()
    wait_idle(page)
    expect(page.get_by_text(f"Computed for «{first}»")).to_be_visible(timeout=60_000)
    page.screenshot(path=str(artifacts / "workspace_report.png"), full_page=True)
    with page.expect_download() as info:
        page.get_by_role("button", name="Download the report (HTML)").click()
    stem = re.sub(r"[^\w.=-]+", "_", first).strip("._")
    assert info.value.suggested_filename == f"{stem}_readiness_report.html"
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    assert first in html and second not in html
    report = history.list_runs(path=history_db, kind="report")[0]
    assert report["params"]["release"] == first
    # a release made here, shuffled on download: no row-order condition
    assert not any(c["condition"].startswith("row_order") for c in report["results"]["conditions"])
    # every assessing page names the same release in its picker
    for name in ("Privacy level", "Attack simulator", "Release report"):
        open_page(page, base, name)
        expect(picker(page)).to_have_value(first)
    # the picker changed to the second release: the first's report is not shown
    choose(page, "Release under review", second)
    expect(page.get_by_text(f"Computed for «{first}»")).to_have_count(0)
    expect(page.get_by_role("button", name="Download the report (HTML)")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_a_shuffled_release_from_a_colleague_is_measured(page: Page, app_server, tmp_path):
    base, history_db = app_server
    textbook = pd.read_csv(ROOT / "assets" / "hospital" / "hospital_release.csv", dtype=str)
    path = tmp_path / "colleague.csv"
    textbook.iloc[[4, 0, 8, 2, 6, 1, 7, 3, 5]].to_csv(path, index=False)
    start_on_hospital(page, base)
    open_page(page, base, "Privacy level")
    page.get_by_text("Add a released file").click()
    page.locator("[data-testid=stExpander] input[type=file]").first.set_input_files(str(path))
    wait_idle(page)
    expect(picker(page)).to_have_value("colleague.csv", timeout=30_000)
    page.get_by_role("button", name="Measure").click()
    wait_idle(page)
    expect(page.get_by_text("not paired with the original's")).to_be_visible(timeout=30_000)
    k = page.get_by_test_id("stMetric").filter(has_text="k achieved").first
    expect(k).to_contain_text("3")
    expect(page.get_by_test_id("stMetric").filter(has_text="DR").first).to_contain_text("0.500")
    expect(
        page.get_by_test_id("stMetric").filter(has_text="Highest record risk").first
    ).to_contain_text("0.333")
    expect(page.get_by_test_id("stAlert").filter(has_text="do not line up")).to_have_count(0)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    measured = history.list_runs(path=history_db, kind="measure")[0]
    assert measured["status"] == "ok" and measured["params"]["release"] == "colleague.csv"
    assert measured["results"]["k"] == 3 and measured["results"]["pl"] is None
