"""A lesson reached by an instructor's deep link, and the release report downloaded."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from privcore import history

from .test_browser import choose_sample, open_page, wait_idle

pytestmark = pytest.mark.e2e

LESSON_3 = "3 · Homogeneity and background knowledge: l-diversity"


def test_deep_link_to_a_lesson_on_a_fresh_server(page: Page, fresh_app_server, artifacts):
    """The very first request a new server sees is the lesson link: it must open the
    lesson inside the full app (sidebar and navigation included), then check an answer."""
    base, _ = fresh_app_server
    page.goto(f"{base}/learn?lesson=3")
    expect(page.get_by_role("heading", name=LESSON_3)).to_be_visible(timeout=60_000)
    sidebar = page.get_by_test_id("stSidebar")
    expect(sidebar.get_by_text("Language")).to_be_visible()
    expect(page.get_by_test_id("stSidebarNav").get_by_role("link", name="Learn")).to_be_visible()
    wait_idle(page)

    answer = page.get_by_label("Entropy l")
    answer.scroll_into_view_if_needed()
    answer.fill("2.10")
    page.get_by_role("button", name="Check").click()
    wait_idle(page)
    expect(page.get_by_text("2.10 is not it.")).to_be_visible(timeout=30_000)

    # exp(−(0.6 ln 0.6 + 2 · 0.2 ln 0.2)) = exp(0.950) = 2.59
    answer.fill("2.59")
    page.get_by_role("button", name="Check").click()
    wait_idle(page)
    expect(page.get_by_text("Right: shares 0.6, 0.2, 0.2")).to_be_visible(timeout=30_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(artifacts / "learn_lesson3.png"), full_page=True)


def test_release_report_download(page: Page, app_server, tmp_path, artifacts):
    base, history_db = app_server
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    choose_sample(page, "Hospital (9 patients, the textbook example)")
    open_page(page, base, "Release report")
    expect(page.get_by_role("heading", name="Release-readiness report")).to_be_visible()

    page.get_by_role("button", name="Generate the report").click()
    wait_idle(page)
    # the 3-anonymous hospital release fails the default k ≥ 5
    expect(page.get_by_role("heading", name="Not ready")).to_be_visible(timeout=60_000)

    with page.expect_download() as info:
        page.get_by_role("button", name="Download the report (HTML)").click()
    download = info.value  # named after the release the report assesses
    assert download.suggested_filename == "Hospital_release_worked_example_readiness_report.html"
    saved = tmp_path / download.suggested_filename
    download.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>")
    assert "Not ready" in html
    assert "<script" not in html.lower()  # self-contained and inert

    reports = [r for r in history.list_runs(path=history_db) if r["kind"] == "report"]
    assert reports and reports[0]["results"]["verdict"] == "not_ready"
    page.screenshot(path=str(artifacts / "report.png"), full_page=True)

    # the same report, rebuilt from the history: on the History page, keep the report
    # runs only (one), then select that row
    open_page(page, base, "History")
    page.get_by_label("Kind").click()
    page.get_by_role("option", name="report", exact=True).click()
    page.locator("h1").first.click()  # close the list
    wait_idle(page)
    grid = page.get_by_test_id("stDataFrame").first
    expect(grid).to_be_visible(timeout=30_000)
    again = page.get_by_role(
        "button", name="Download this report again (HTML, rebuilt from the history)"
    )
    for _attempt in range(3):
        box = grid.bounding_box()
        page.mouse.click(box["x"] + 18, box["y"] + 35 + 17)  # the first row's selection box
        wait_idle(page)
        try:
            expect(again).to_be_visible(timeout=15_000)
            break
        except AssertionError:
            continue
    with page.expect_download() as info:
        again.click()
    rebuilt = tmp_path / "again.html"
    info.value.save_as(rebuilt)
    text = rebuilt.read_text(encoding="utf-8")
    assert "Not ready" in text and f"Rebuilt from history run #{reports[0]['id']}." in text
