"""A keyboard-only walk of the main flow, as a visitor without a mouse does it: upload
a table → confirm its roles → anonymize → measure the privacy level → attack → generate
the release report → download it. Every step is reached with Tab (the focus moving
through the page in order, never trapped: every stop is recorded and the walk fails if
the focus circles the page without finding the control) and operated with Enter, Space,
the arrow keys and typing. No mouse event is sent."""

from __future__ import annotations

import re
import shutil

import pytest
from playwright.sync_api import Page, expect

from tests.conftest import ROOT

from .test_browser import cell, wait_idle

pytestmark = pytest.mark.e2e

#: The focused element: its tag, role, accessible label, text and value.
FOCUSED = """() => {
  const el = document.activeElement;
  if (!el || el === document.body) return null;
  return {
    tag: el.tagName.toLowerCase(),
    role: el.getAttribute("role") || "",
    label: el.getAttribute("aria-label") || "",
    text: (el.innerText || el.textContent || "").trim().slice(0, 300),
    value: el.value || "",
  };
}"""
#: Is the focus drawn on the focused element (WCAG 2.4.7): an outline or a ring (a box
#: shadow) on it or, for a field Streamlit wraps, its frame's border in the theme's
#: primary colour (rgb(9, 105, 218), .streamlit/config.toml)?
FOCUS_DRAWN = """() => {
  const drawn = (el) => {
    if (!el) return false;
    const s = getComputedStyle(el);
    const outline = s.outlineStyle !== "none" && parseFloat(s.outlineWidth) > 0;
    const ring = s.boxShadow && s.boxShadow !== "none";
    return outline || ring || s.borderTopColor === "rgb(9, 105, 218)";
  };
  const el = document.activeElement;
  const frame = el.closest("[data-baseweb]");
  return [el, el.parentElement, frame, frame && frame.firstElementChild].some(drawn);
}"""
#: The most Tab presses one step may take (a page with a result has ~150 stops).
MOST_STOPS = 400
#: Tab presses on one element that make a trap: a data grid takes one per cell (its Tab
#: moves to the next cell, and out after the last), so a few dozen are no trap.
TRAPPED = 120


def control(tag: str, name: str | re.Pattern):
    """A test of the focused element: a ``tag`` whose label or last line of text is
    ``name`` (a string: exactly; a pattern: searched)."""

    def matches(focused: dict) -> bool:
        if focused is None or focused["tag"] != tag:
            return False
        texts = [focused["label"], focused["text"].split("\n")[-1].strip(), focused["text"]]
        if isinstance(name, re.Pattern):
            return any(name.search(text) for text in texts)
        return name in texts[:2]

    return matches


def tab_named(name: str):
    """A test of the focused element: the tab ``name`` of a tab list."""
    return lambda focused: bool(focused) and focused["role"] == "tab" and focused["text"] == name


def open_tab(page: Page, name: str) -> None:
    """Reach the page's tab list (its selected tab is the one stop of the list, before
    the focus), then move along it with the arrow keys to ``name`` and open it."""
    tab_to(page, lambda f: bool(f) and f["role"] == "tab", backwards=True)
    for arrow in ("ArrowRight", "ArrowLeft"):
        for _ in range(12):
            if tab_named(name)(page.evaluate(FOCUSED)):
                press(page)
                return
            page.keyboard.press(arrow)
    raise AssertionError(f"no tab {name!r} along the arrow keys")


def tab_to(page: Page, wanted, *, backwards: bool = False) -> list[dict]:
    """Press Tab (Shift+Tab with ``backwards``) until the focused element passes the
    test ``wanted`` (:func:`control`); the stops passed. Fails when the focus stays on
    one element (a trap) or the page's stops run out."""
    trail: list[dict] = []
    for _ in range(MOST_STOPS):
        page.keyboard.press("Shift+Tab" if backwards else "Tab")
        here = page.evaluate(FOCUSED)
        trail.append(here)
        if wanted(here):
            assert page.evaluate(FOCUS_DRAWN), f"no visible focus on {here!r}"
            return trail
        if len(trail) >= TRAPPED and here is not None and all(s == here for s in trail[-TRAPPED:]):
            raise AssertionError(f"the focus is trapped on {here!r}")
    last = [(s or {}).get("tag", "") + ":" + (s or {}).get("text", "")[:40] for s in trail[-15:]]
    raise AssertionError(f"the control was not reached with the keyboard; last stops: {last}")


def press(page: Page, key: str = "Enter") -> None:
    page.keyboard.press(key)
    wait_idle(page)


def choose_file(page: Page, path) -> None:
    """Open the file chooser of the focused upload button with the keyboard and give it
    ``path``. A rerun that redraws the button as the key arrives swallows the key: the
    key is pressed again (Enter, then Space), a few times, before failing."""
    for key in ("Enter", "Space", "Enter"):
        try:
            with page.expect_file_chooser(timeout=10_000) as chooser:
                page.keyboard.press(key)
        except Exception:  # noqa: BLE001 - no chooser yet: the key was lost
            wait_idle(page)
            continue
        chooser.value.set_files(str(path))
        return
    raise AssertionError("the upload button did not open the file chooser")


def go_to_page(page: Page, name: str) -> None:
    """Reach the sidebar's link ``name`` and follow it."""
    tab_to(page, control("a", name), backwards=True)  # the sidebar comes first
    press(page)
    expect(page.get_by_role("heading", level=1).first).to_be_visible(timeout=30_000)


def test_the_main_flow_with_the_keyboard_only(page: Page, app_server, tmp_path):
    base, _ = app_server
    table = tmp_path / "clinic.csv"
    shutil.copy(ROOT / "assets" / "hospital" / "hospital.csv", table)
    page.goto(base)
    expect(page.get_by_role("heading", name="Privacy Workbench")).to_be_visible(timeout=30_000)
    wait_idle(page)

    # upload: the uploader's button opens the file chooser with Enter
    go_to_page(page, "Data & roles")
    tab_to(page, control("button", re.compile(r"^(Upload|Browse files)$")))
    choose_file(page, table)
    expect(page.get_by_role("heading", name="clinic.csv")).to_be_visible(timeout=60_000)
    wait_idle(page)
    page.screenshot(path=str(tmp_path / "1.png"))

    # roles: the lists beside the grid (an expander opened with Enter, a select box
    # operated by typing), then the suggested hierarchies, then Confirm
    tab_to(page, control("summary", re.compile("^Change a role with lists")))
    press(page)
    tab_to(page, control("input", re.compile("")))  # the column's select box
    page.keyboard.type("Salary")
    press(page)
    tab_to(page, control("input", re.compile("")))  # the role's select box
    page.keyboard.type("insensitive")
    press(page)
    tab_to(page, control("button", "Set this role"))
    press(page)
    expect(cell(page.get_by_test_id("stDataFrame").first, "insensitive")).to_have_count(1)
    open_tab(page, "Hierarchies")
    tab_to(page, control("button", "Use suggested hierarchies"))
    press(page)
    expect(page.get_by_text("Suggested hierarchies added for")).to_be_visible()
    open_tab(page, "Roles")
    tab_to(page, control("button", "Confirm roles"))
    press(page)
    expect(page.get_by_text("These roles are confirmed")).to_be_visible(timeout=30_000)

    # anonymize at the default k = 5
    go_to_page(page, "Anonymize")
    tab_to(page, control("button", "Anonymize"))
    press(page)
    expect(page.get_by_text("k ≥ 5").first).to_be_visible(timeout=60_000)

    # the privacy level of that release
    go_to_page(page, "Privacy level")
    tab_to(page, control("button", "Measure"))
    press(page)
    expect(page.get_by_test_id("stMetric").filter(has_text="PL").first).to_be_visible(
        timeout=60_000
    )

    # the linkage attack: the voter roll first
    go_to_page(page, "Attack simulator")
    tab_to(page, control("button", "Build the voter roll"))
    press(page)
    tab_to(page, control("button", "Run the linkage attack"))
    press(page)
    expect(page.get_by_text("Example victims")).to_be_visible(timeout=60_000)

    # the release report, then its download
    go_to_page(page, "Release report")
    tab_to(page, control("button", "Generate the report"))
    press(page)
    tab_to(page, control("button", "Download the report (HTML)"))
    with page.expect_download() as download:
        page.keyboard.press("Enter")
    saved = tmp_path / download.value.suggested_filename
    download.value.save_as(saved)
    assert saved.name.endswith("_readiness_report.html")
    assert "<html" in saved.read_text(encoding="utf-8")[:500].lower()
    expect(page.get_by_test_id("stException")).to_have_count(0)


def test_a_single_letter_reruns_nothing(page: Page, app_server):
    """WCAG 2.1, 2.1.4: Streamlit reruns the page on the key R; the app turns that
    shortcut off, so a stray key press (speech input, a slip) starts nothing."""
    base, _ = app_server
    page.goto(f"{base}/data")
    page.wait_for_selector("[data-testid=stSidebar]", timeout=60_000)
    wait_idle(page)
    page.evaluate("document.activeElement && document.activeElement.blur()")
    states = set()
    page.keyboard.press("r")
    for _ in range(20):
        states.add(page.locator("[data-testid=stApp]").get_attribute("data-test-script-state"))
        page.wait_for_timeout(50)
    assert states == {"notRunning"}, states
