"""What the server does around the pages (serve.py, ui/common/hosting.py): nothing is fetched
from another host, the metrics route is hidden, downloads do not outlive the visit."""

from __future__ import annotations

import time
import urllib.error
import urllib.request

import pytest
from playwright.sync_api import Browser, Page, expect

from privcore import history
from tests.e2e.conftest import running_app
from tests.e2e.test_browser import open_page, wait_idle

pytestmark = pytest.mark.e2e

PAGES = (
    "Learn",
    "Data & roles",
    "Anonymize",
    "Privacy level",
    "Attack simulator",
    "LDP auditor",
    "Differential privacy",
    "Release report",
    "History",
)


def _status(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as response:
            return response.status
    except urllib.error.HTTPError as exc:
        return exc.code


def test_pages_fetch_nothing_from_another_host_and_metrics_are_hidden(page: Page, app_server):
    base, _ = app_server
    elsewhere: list[str] = []

    def note(request) -> None:
        if not request.url.startswith((base, "data:", "blob:")):
            elsewhere.append(request.url)

    page.on("request", note)
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    for name in PAGES:
        open_page(page, base, name)
    wait_idle(page)
    assert elsewhere == []  # no font, icon or image from another host: works offline
    assert _status(f"{base}/_stcore/metrics") == 404
    assert _status(f"{base}/_stcore/health") == 200
    with urllib.request.urlopen(base, timeout=10) as response:
        policy = response.headers["Content-Security-Policy"]
        assert "img-src 'self'" in policy and "font-src 'self'" in policy
        assert response.headers["Referrer-Policy"] == "no-referrer"


def test_a_history_export_is_built_on_click_and_gone_soon_after(browser: Browser, tmp_path):
    with running_app(tmp_path, {"PRIVCORE_HOUSEKEEPING_SECONDS": "1"}) as (base, db):
        history.record_run("measure", params={"k": 5}, dataset={"name": "t.csv"}, path=db)
        context = browser.new_context(viewport={"width": 1400, "height": 1000})
        visitor = context.new_page()
        visitor.goto(base)
        expect(visitor.get_by_role("heading", name="Privacy Workbench")).to_be_visible(
            timeout=30_000
        )
        open_page(visitor, base, "History")
        with visitor.expect_download() as info:
            visitor.get_by_role("button", name="Export CSV").click()
        download = info.value
        assert "t.csv" in download.path().read_text(encoding="utf-8")
        url = download.url
        context.close()  # the visitor leaves
        deadline = time.monotonic() + 20
        while _status(url) == 200 and time.monotonic() < deadline:
            time.sleep(0.5)
        assert _status(url) == 404


def test_a_deep_link_is_the_first_visit_of_a_fresh_server(page: Page, fresh_app_server):
    """The first visitor of a just-started server who follows a link to a page (here
    /data, whose file is pages/data_roles.py) gets that page, with no "Page not found"
    dialog: serve.py tells Streamlit that the app declares its pages itself."""
    base, _ = fresh_app_server
    page.goto(f"{base}/data")
    page.wait_for_selector("[data-testid=stSidebar]", timeout=60_000)
    wait_idle(page)
    expect(page.get_by_role("heading", name="Data & roles", level=1)).to_be_visible()
    expect(page.get_by_role("dialog")).to_have_count(0)
