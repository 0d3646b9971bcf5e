"""A notebook downloaded from a result page reproduces the page's figures: the Privacy
level of the worked example measured in the browser, its "Reproduce in Python" ZIP
downloaded, unzipped and its notebook run from top to bottom in a fresh Python."""

from __future__ import annotations

import json
import zipfile

import pytest
from playwright.sync_api import Page, expect

from tests.app.test_reproduce_in_python import run_in

from .test_browser import choose_sample, open_page, wait_idle

pytestmark = pytest.mark.e2e


def test_the_downloaded_notebook_gets_the_figures_the_page_shows(page: Page, app_server, tmp_path):
    base, _ = app_server
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    choose_sample(page, "Hospital (9 patients, the textbook example)")
    open_page(page, base, "Privacy level")
    page.get_by_role("button", name="Measure").click()
    wait_idle(page)
    metric = page.get_by_test_id("stMetric").filter(has_text="PL").first
    expect(metric).to_contain_text("0.500", timeout=30_000)
    shown_pl = metric.get_by_test_id("stMetricValue").inner_text().strip()

    panel = page.get_by_test_id("stExpander").filter(has_text="Reproduce in Python").first
    panel.get_by_text("Reproduce in Python").click()
    expect(panel.get_by_text("MeasureRequest.from_dict")).to_be_visible(timeout=30_000)
    button = panel.get_by_role("button", name="Download the notebook and its files (.zip)")
    expect(button).to_be_enabled(timeout=30_000)
    # the bundle is built on click: a loaded machine may take a while
    with page.expect_download(timeout=90_000) as info:
        button.click()
    archive = tmp_path / info.value.suggested_filename
    info.value.save_as(archive)
    assert archive.name == "reproduce_measure.zip"
    zipfile.ZipFile(archive).extractall(tmp_path)
    folder = tmp_path / "reproduce"

    done = run_in(folder)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Every figure is the same as the page's." in done.stdout
    recorded = json.loads((folder / "run.json").read_text(encoding="utf-8"))["expected"]
    assert f"{recorded['pl']['all']:.3f}" == shown_pl
