"""The large-table flow in a real browser, end to end and without a dead end: a Parquet
file opened in DuckDB, its roles confirmed; anonymized shuffled (the file to publish and
its copy in the table's order) and again in order; measured, its risks assessed,
attacked and reported from the copy; the report downloaded; the file in order reported
with the way to a shuffled file named."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pandas as pd
import pytest
from playwright.sync_api import Page, expect

from privcore.data import load_sample

from .test_browser import open_page, wait_idle

pytestmark = pytest.mark.e2e

ROWS = 600


def keyed(page: Page, key: str):
    """The element whose widget key starts with ``key`` (Streamlit marks each keyed
    element with the class ``st-key-<key>``, characters other than letters, digits, _
    and - written as -)."""
    return page.locator(f"[class*='st-key-{key}']").first


def click(page: Page, key: str) -> None:
    keyed(page, key).locator("button").first.click()
    wait_idle(page)


def fill(page: Page, key: str, text: str) -> None:
    field = keyed(page, key).locator("input").first
    field.fill(text)
    field.press("Enter")
    wait_idle(page)


def switch_on(page: Page, key: str) -> None:
    box = keyed(page, key).locator("input[type=checkbox]").first
    if not box.is_checked():
        keyed(page, key).locator("label").first.click()
        wait_idle(page)
    expect(box).to_be_checked()


def no_errors(page: Page) -> None:
    expect(page.get_by_test_id("stException")).to_have_count(0)
    errors = page.get_by_test_id("stAlert").filter(
        has=page.get_by_test_id("stIconMaterial").filter(has_text=re.compile("^error$"))
    )
    expect(errors).to_have_count(0)


def written(path: Path, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while not path.exists() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert path.exists(), path


def test_the_large_table_flow_has_no_dead_end(page: Page, app_server, tmp_path, artifacts):
    base, _ = app_server
    table = tmp_path / "adult_600.parquet"
    load_sample("adult")[0].frame.head(ROWS).to_parquet(table, index=False)
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)

    # open the file in DuckDB, take the suggested hierarchies, confirm the roles
    open_page(page, base, "Data & roles")
    page.get_by_text("Open a large table").first.click()
    fill(page, "lt_path", str(table))
    click(page, "lt_open")
    expect(page.get_by_role("heading", name="adult_600.parquet · DuckDB")).to_be_visible(
        timeout=60_000
    )
    page.get_by_role("tab", name="Hierarchies").click()
    click(page, "lt_use_all--")
    page.get_by_role("tab", name="Roles").click()
    click(page, "confirm--")
    no_errors(page)

    # anonymize, shuffled by default: the file to publish and its copy in order
    open_page(page, base, "Anonymize")
    published = tmp_path / "published.parquet"
    copy = tmp_path / "published_kept_order.parquet"
    fill(page, "an_out--", str(published))
    expect(page.get_by_text("“Anonymize”").first).to_be_visible()
    click(page, "an_run")
    written(copy)
    expect(page.get_by_text(str(copy)).first).to_be_visible(timeout=60_000)
    no_errors(page)
    assert len(pd.read_parquet(published)) == len(pd.read_parquet(copy)) == ROWS

    # Privacy level: the file to publish is offered; its copy is measured and assessed
    open_page(page, base, "Privacy level")
    expect(keyed(page, "pl_release_file--").locator("input")).to_have_value(str(published))
    switch_on(page, "pl_use_copy--")
    click(page, "pl_measure")
    expect(keyed(page, "pl_table_view")).to_be_visible(timeout=120_000)
    click(page, "pl_risk_assess")
    no_errors(page)

    # Attack simulator: the linkage attack on the copy
    open_page(page, base, "Attack simulator")
    switch_on(page, "at_use_copy--")
    click(page, "at_run")
    no_errors(page)

    # Release report on the copy, judged as the file published shuffled; downloaded
    open_page(page, base, "Release report")
    switch_on(page, "rp_use_copy--")
    click(page, "rp_go")
    expect(keyed(page, "rp_download")).to_be_visible(timeout=120_000)
    no_errors(page)
    with page.expect_download() as info:
        keyed(page, "rp_download").locator("button").click()
    saved = tmp_path / info.value.suggested_filename
    info.value.save_as(saved)
    html = saved.read_text(encoding="utf-8")
    assert html.lstrip().lower().startswith("<!doctype html>") and "<script" not in html.lower()

    # again in the table's order: the report says how to get a file to publish
    open_page(page, base, "Anonymize")
    kept = tmp_path / "kept.parquet"
    fill(page, "an_out--", str(kept))
    switch_on(page, "an_keep_order--")
    click(page, "an_run")
    written(kept)
    no_errors(page)
    open_page(page, base, "Release report")
    expect(keyed(page, "rp_release_file--").locator("input")).to_have_value(str(kept))
    click(page, "rp_go")
    expect(page.get_by_text(re.compile("untick")).first).to_be_visible(timeout=120_000)
    no_errors(page)
    page.screenshot(path=str(artifacts / "large_table_flow.png"), full_page=True)
