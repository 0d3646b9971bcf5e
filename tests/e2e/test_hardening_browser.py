"""The hosted demo in a real browser: no HTML injection, sessions isolated."""

from __future__ import annotations

import pytest
from playwright.sync_api import Browser, Page, expect

from tests.e2e.test_browser import open_page, upload, wait_idle

pytestmark = pytest.mark.e2e

EVIL_HEADER = "<img src=x onerror=alert(1)>"
# Markdown in column names and values: an image that would call another host, bold, a
# formula (KaTeX), a link; bare URLs and an e-mail address (links once rendered), Streamlit's
# colour directives and icons.
MD_IMAGE = "![leak](http://127.0.0.1:9/leak.png)"
BOLD_COL = "**boldcol** :red[redcol] www.evil.example"
FORMULA_COL = "$evil_x$ http://evil.example/x :material/home:"
BOLD_VALUE = "**boldval** :blue-background[bluebg] a@b.example"
FORMULA_VALUE = "$zq^2$ HTTPS://a.b :streamlit:"
EVIL_CSV = (
    f'age,zip,"{EVIL_HEADER}",disease,"{MD_IMAGE}",{BOLD_COL},{FORMULA_COL}\n'
    f'34,47677,"<script>alert(2)</script>",flu,1,{BOLD_VALUE},{FORMULA_VALUE}\n'
    '29,47602,"<b onmouseover=alert(3)>bold</b>",cold,2,a,b\n'
    f'41,47905,"[click](javascript:alert(4))",flu,1,{BOLD_VALUE},{FORMULA_VALUE}\n'
    "52,47909,plain,cold,2,a,b\n"
)


def _no_markdown_from_data(page: Page, where: str) -> None:
    """No image, bold text, formula or link that the data's Markdown would make."""
    assert page.locator("img[src*='leak']").count() == 0, where
    for word in ("boldcol", "boldval"):
        assert page.locator("strong", has_text=word).count() == 0, (where, word)
    for word in ("evil", "zq"):
        assert page.locator(".katex", has_text=word).count() == 0, (where, word)
    assert page.locator("a[href*='127.0.0.1:9']").count() == 0, where
    for host in ("evil.example", "//a.b", "mailto:"):
        assert page.locator(f"a[href*='{host}' i]").count() == 0, (where, host)
    coloured = page.locator(".stMarkdownColoredText, .stMarkdownColoredBackground")
    for word in ("redcol", "bluebg"):
        assert coloured.filter(has_text=word).count() == 0, (where, word)
    assert page.locator("span.stMarkdownColoredText:empty").count() == 0, where  # `:red` alone
    assert page.locator("span.stMarkdownColoredBackground:empty").count() == 0, where
    markdown = page.get_by_test_id("stMarkdownContainer")
    assert markdown.locator("span[role=img][aria-label='home icon']").count() == 0, where
    assert markdown.locator("img[alt='Streamlit logo']").count() == 0, where


def test_user_strings_are_shown_as_text_everywhere(page: Page, app_server, tmp_path, artifacts):
    base, _ = app_server
    dialogs: list[str] = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    evil = tmp_path / "x<img src=y onerror=alert(5)>.csv"
    evil.write_text(EVIL_CSV, encoding="utf-8")
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    open_page(page, base, "Data & roles")
    upload(page, evil, page.get_by_text("4 rows · 7 columns").first)
    wait_idle(page)
    for tab in ("Column profile", "Preview", "Hierarchies", "Schema file", "Roles"):
        page.get_by_role("tab", name=tab).click()
        wait_idle(page)
        _no_markdown_from_data(page, tab)
    page.get_by_role("button", name="Confirm roles").click()
    wait_idle(page)
    for name in (
        "Anonymize",
        "Privacy level",
        "Attack simulator",
        "Release report",
        "History",
        "Learn",
    ):
        open_page(page, base, name)
        _no_markdown_from_data(page, name)
    # logged LDP samples whose column names and values are markup, audited on the page
    samples = tmp_path / "samples<img src=y onerror=alert(6)>.csv"
    rows = "\n".join(f"{i % 3},{(i * 7) % 3}" for i in range(600))
    samples.write_text(f'"{EVIL_HEADER}","<b onmouseover=alert(7)>y</b>"\n{rows}\n')
    open_page(page, base, "LDP auditor")
    page.get_by_role("tab", name="Audit logged samples").click()
    page.locator("[role=tabpanel]:visible input[type=file]").set_input_files(str(samples))
    wait_idle(page)
    chosen = page.locator("[role=tabpanel]:visible [data-testid=stSelectbox]")
    expect(chosen.first.locator("input")).to_have_value(EVIL_HEADER, timeout=30_000)  # text
    page.get_by_role("button", name="Audit the samples").click()
    wait_idle(page)
    expect(page.get_by_test_id("stMetric").first).to_be_visible(timeout=60_000)
    expect(page.get_by_test_id("stException")).to_have_count(0)
    page.screenshot(path=str(artifacts / "xss.png"), full_page=True)
    assert dialogs == []
    assert page.locator("img[src=x], img[src=y]").count() == 0
    assert page.locator("script:text('alert(2)')").count() == 0
    assert page.locator("b[onmouseover]").count() == 0
    assert page.locator("a[href^='javascript']").count() == 0


def test_two_visitors_do_not_share_uploads(browser: Browser, app_server, tmp_path):
    base, _ = app_server
    private = tmp_path / "private_patients.csv"
    private.write_text("name,age,disease\nAlice,34,flu\nBob,29,cold\nCarol,41,flu\n")
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    second = browser.new_context(viewport={"width": 1400, "height": 1000})
    try:
        a, b = first.new_page(), second.new_page()
        a.goto(base)
        expect(a.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
        open_page(a, base, "Data & roles")
        upload(a, private, a.get_by_role("heading", name="private_patients.csv"))
        b.goto(base)
        expect(b.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
        open_page(b, base, "Data & roles")
        b.get_by_test_id("stSidebar").get_by_test_id("stSelectbox").first.click()
        b.get_by_role("option").first.wait_for(timeout=30_000)
        options = b.get_by_role("option").all_inner_texts()
        assert options and not any("private_patients" in o for o in options)
        expect(b.get_by_role("heading", name="private_patients.csv")).to_have_count(0)
    finally:
        first.close()
        second.close()
