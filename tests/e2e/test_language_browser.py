"""The language survives a reload and a deep link, follows the browser on a first
visit, and is declared on the document (``<html lang>``)."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from .test_browser import wait_idle

pytestmark = pytest.mark.e2e


def _sidebar_says(page: Page, label: str) -> None:
    expect(page.get_by_test_id("stSidebar").get_by_text(label, exact=True)).to_be_visible(
        timeout=60_000
    )
    wait_idle(page)


def test_a_reload_and_a_deep_link_keep_the_language(page: Page, app_server, artifacts):
    base, _ = app_server
    page.goto(f"{base}/learn?lesson=7&lang=zh")  # a teacher's deep link, in Chinese
    _sidebar_says(page, "语言")
    expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
    assert "lesson=7" in page.url and "lang=zh" in page.url
    page.reload()  # a new session: the URL keeps the language
    _sidebar_says(page, "语言")
    assert "lesson=7" in page.url
    # another page through the navigation: the language stays in its URL
    page.get_by_test_id("stSidebarNav").get_by_role("link", name="首页").click()
    wait_idle(page)
    expect(page).to_have_url(f"{base}/?lang=zh", timeout=30_000)
    page.reload()
    _sidebar_says(page, "语言")
    # the visitor chooses English: the URL follows, and a reload keeps it
    page.get_by_test_id("stSidebar").get_by_text("English", exact=True).click()
    _sidebar_says(page, "Language")
    expect(page).to_have_url(f"{base}/?lang=en", timeout=30_000)
    expect(page.locator("html")).to_have_attribute("lang", "en")
    page.reload()
    _sidebar_says(page, "Language")
    page.screenshot(path=str(artifacts / "language_reload.png"))


def test_a_first_visit_follows_the_browsers_language(browser: Browser, app_server):
    base, _ = app_server
    context = browser.new_context(locale="zh-CN", viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        page.goto(base)
        _sidebar_says(page, "语言")
        expect(page.locator("html")).to_have_attribute("lang", "zh-Hans")
        page.reload()  # the browser still prefers Chinese: the plain URL stays Chinese
        _sidebar_says(page, "语言")
    finally:
        context.close()
