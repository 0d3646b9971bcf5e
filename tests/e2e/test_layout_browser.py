"""Every page fits the window: nothing cut off at 1,280 px, usable at 800 px, in English
and in Chinese.

One session per language walks every page in turn (Home, Learn, Data & roles, Anonymize
after a run, Privacy level measured, Attack, LDP auditor, Report, History) on the bundled
Adult table — its long column lists, algorithm names and six-digit figures are what got
cut — and at each width:

- no text is cut: no element that truncates its text (``text-overflow: ellipsis``, or
  hidden overflow with ``white-space: nowrap``) holds more than it shows, no label,
  metric label or value, multiselect tag, tab or button is wider inside than its box
  (``scrollWidth ≤ clientWidth + 1``), and the value of every select box (a one-line
  input) fits its box;
- the page does not scroll sideways (``document.documentElement.scrollWidth ≤
  innerWidth + 1``);
- at 800 px the Anonymize button lies inside the window once scrolled to, and works.

And once per language: one click on the language switches it (Streamlit used to drop the
first change of the radio in a session); the name of every data set on offer fits the
sidebar's select box; Home shows the active data set's name whole, on one line at
1,280 px; the Lattice tab of the release shows the chart zoomed to the chosen node's
heights, and ticking "Whole lattice" redraws it with the tab still open.

Screenshots of every page at both widths (and of the lattice) are saved under
``tests/e2e/artifacts`` (git-ignored).
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from privcore.words.catalog import LANGUAGES, text
from ui.common.layout import SIDEBAR_WIDTH_PX

from .test_browser import wait_idle

pytestmark = pytest.mark.e2e

WIDE, NARROW = 1280, 800
HEIGHT = 900

#: The pages in the order visited: (navigation key, file stem of the screenshots).
PAGES = [
    ("nav.home", "home"),
    ("nav.learn", "learn"),
    ("nav.data", "data_roles"),
    ("nav.anonymize", "anonymize"),
    ("nav.privacy", "privacy_level"),
    ("nav.attack", "attack"),
    ("nav.ldp", "ldp_auditor"),
    ("nav.dp", "differential_privacy"),
    ("nav.report", "report"),
    ("nav.history", "history"),
]

#: Every place on the page where text is cut, as "what: its text" lines. An element is
#: looked at when it is rendered (it has a size) and is not inside a chart or a data
#: grid (drawn on a canvas, scrolled on purpose).
CUT_TEXT_JS = """
() => {
  const WATCHED = [
    '[data-testid="stWidgetLabel"]',
    '[data-testid="stMetricLabel"]',
    '[data-testid="stMetricValue"]',
    '[data-testid="stMetricDelta"]',
    '[data-testid="stSelectbox"] [data-baseweb="select"]',
    '[data-testid="stMultiSelect"] [data-tag]',
    '[data-testid="stTab"]',
    '.stApp button',
  ].join(', ');
  const SKIP = '[data-testid="stDataFrame"], [data-testid="stVegaLiteChart"], '
    + '[data-testid="stTable"], [data-testid="stCode"], pre, textarea, input';
  const shown = (el) => {
    const box = el.getBoundingClientRect();
    return box.width > 2 && box.height > 2 && getComputedStyle(el).visibility !== 'hidden';
  };
  const what = (el) => {
    const own = el.closest('[data-testid]');
    const name = own ? own.getAttribute('data-testid') : el.tagName.toLowerCase();
    const words = (el.innerText || el.textContent || '').replace(/\\s+/g, ' ').trim();
    return `${name}: ${words.slice(0, 90)} (${el.scrollWidth} > ${el.clientWidth})`;
  };
  const wider = (el) => el.scrollWidth > el.clientWidth + 1;
  const cut = new Set();
  for (const el of document.querySelectorAll('.stApp *')) {
    if (el.closest(SKIP) || !shown(el)) continue;
    const style = getComputedStyle(el);
    const hides = style.overflowX === 'hidden' || style.overflowX === 'clip';
    const truncates = style.textOverflow === 'ellipsis'
      || (hides && style.whiteSpace === 'nowrap');
    if (truncates && wider(el) && (el.innerText || '').trim()) cut.add(what(el));
  }
  for (const root of document.querySelectorAll(WATCHED)) {
    if (root.closest(SKIP) || !shown(root)) continue;
    for (const el of [root, ...root.querySelectorAll('*')]) {
      if (!shown(el) || el.closest(SKIP) || !(el.innerText || '').trim()) continue;
      if (el.tagName === 'svg' || el.closest('svg')) continue;
      if (wider(el)) cut.add(what(el));
    }
  }
  // a select box shows its value in a one-line input: the text must fit its box
  const ruler = document.createElement('canvas').getContext('2d');
  for (const input of document.querySelectorAll('[data-testid="stSelectbox"] input')) {
    if (!shown(input) || !input.value) continue;
    const style = getComputedStyle(input);
    ruler.font = style.font;
    const room = input.clientWidth - parseFloat(style.paddingLeft)
      - parseFloat(style.paddingRight);
    const needed = ruler.measureText(input.value).width;
    if (needed > room + 1) {
      cut.add(`stSelectbox: ${input.value} (${Math.ceil(needed)} > ${Math.floor(room)})`);
    }
  }
  return [...cut];
}
"""

SIDEWAYS_JS = (
    "() => [document.documentElement.scrollWidth, window.innerWidth,"
    " document.querySelector('[data-testid=stMain]')?.scrollWidth ?? 0,"
    " document.querySelector('[data-testid=stMain]')?.clientWidth ?? 0]"
)


def switch_language(page: Page, lang: str) -> None:
    if lang != "en":
        # one click switches: the first change of a radio in a session is not lost
        page.get_by_test_id("stSidebar").get_by_text(LANGUAGES[lang], exact=True).click()
        wait_idle(page)
    expect(page.locator("h1").first).to_have_text(text("home.title", lang), timeout=30_000)


def go_to(page: Page, nav_key: str, lang: str) -> None:
    name = text(nav_key, lang)
    page.get_by_test_id("stSidebarNav").get_by_role("link", name=name, exact=True).click()
    wait_idle(page)


def fits(page: Page, where: str) -> list[str]:
    """What does not fit on the page now: cut text and sideways scrolling."""
    page.wait_for_timeout(400)  # charts and grids lay themselves out after a resize
    problems = [f"{where}: cut: {line}" for line in page.evaluate(CUT_TEXT_JS)]
    document, window, main, main_box = page.evaluate(SIDEWAYS_JS)
    if document > window + 1:
        problems.append(f"{where}: the page scrolls sideways ({document} > {window} px)")
    if main > main_box + 1:
        problems.append(f"{where}: the main area scrolls sideways ({main} > {main_box} px)")
    return problems


def resize(page: Page, width: int) -> None:
    page.set_viewport_size({"width": width, "height": HEIGHT})
    page.wait_for_timeout(300)


def snapshot(page: Page, path) -> None:
    """A screenshot of the whole page: the main area scrolls inside the window, so the
    window is made as tall as its content for the picture."""
    size = page.viewport_size
    tall = page.evaluate(
        "() => document.querySelector('[data-testid=stMain]')?.scrollHeight ?? innerHeight"
    )
    page.set_viewport_size({"width": size["width"], "height": max(min(tall, 8000), HEIGHT)})
    page.wait_for_timeout(200)
    page.screenshot(path=str(path))
    page.set_viewport_size(size)


def run_anonymize_at_800(page: Page, lang: str) -> None:
    """At 800 px: the Anonymize button can be scrolled to, lies inside the window, and
    makes a release."""
    resize(page, NARROW)
    button = page.get_by_role("button", name=text("an.run", lang), exact=True)
    button.scroll_into_view_if_needed()
    box = button.bounding_box()
    assert box is not None
    assert box["x"] >= 0 and box["x"] + box["width"] <= NARROW, box
    assert box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT, box
    button.click()
    wait_idle(page)
    expect(page.get_by_label(text("ws.name", lang), exact=True)).to_have_value(
        re.compile(r"k=5"), timeout=60_000
    )


def home_names_the_data_set_on_one_line(page: Page) -> None:
    """Home at 1,280 px: the active data set's whole name, on one line."""
    name = page.get_by_test_id("stSidebar").get_by_role("combobox").first.input_value()
    line = page.locator(".st-key-home_dataset p").first
    expect(line).to_contain_text(name)
    height, line_height = line.evaluate(
        "e => [e.getBoundingClientRect().height, parseFloat(getComputedStyle(e).lineHeight)]"
    )
    assert height < 1.5 * line_height, (name, height, line_height)


def every_data_set_name_fits_the_sidebar(page: Page) -> list[str]:
    """The name of every data set on offer fits the sidebar's select box, not only the
    one shown."""
    box = page.get_by_test_id("stSidebar").get_by_role("combobox").first
    box.click()
    names = page.get_by_role("option").all_inner_texts()
    page.keyboard.press("Escape")
    assert names
    too_long = box.evaluate(
        """(input, names) => {
          const style = getComputedStyle(input);
          const ruler = document.createElement('canvas').getContext('2d');
          ruler.font = style.font;
          const room = input.clientWidth - parseFloat(style.paddingLeft)
            - parseFloat(style.paddingRight);
          return names.filter(n => ruler.measureText(n).width > room + 1)
            .map(n => `${n} (${Math.ceil(ruler.measureText(n).width)} > ${Math.floor(room)})`);
        }""",
        [name.strip() for name in names],
    )
    return [f"sidebar data-set box cuts: {name}" for name in too_long]


def lattice_tab(page: Page, lang: str, artifacts) -> None:
    """The Lattice tab: zoomed to the chosen node's heights by default; ticking "Whole
    lattice" redraws the chart and keeps the tab open."""
    tab = page.get_by_role("tab", name=text("an.tab_lattice", lang), exact=True)
    tab.click()
    wait_idle(page)
    charts = page.get_by_test_id("stVegaLiteChart").filter(visible=True)
    expect(charts).to_have_count(1)
    hint = page.get_by_test_id("stCaptionContainer").filter(visible=True)
    expect(hint.filter(has_text=text("layout.whole_lattice", lang))).to_have_count(1)
    snapshot(page, artifacts / f"layout_lattice_{lang}.png")
    page.get_by_test_id("stCheckbox").filter(has_text=text("layout.whole_lattice", lang)).click()
    wait_idle(page)
    expect(
        page.get_by_role("tab", name=text("an.tab_lattice", lang), selected=True)
    ).to_be_visible()
    expect(charts).to_have_count(1)
    expect(hint.filter(has_text=text("layout.whole_lattice", lang))).to_have_count(0)
    snapshot(page, artifacts / f"layout_lattice_whole_{lang}.png")


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_page_fits_at_1280_and_800_px(page: Page, app_server, artifacts, lang):
    base, _ = app_server
    page.set_viewport_size({"width": WIDE, "height": HEIGHT})
    page.goto(base)
    expect(page.get_by_test_id("stSidebarNav")).to_be_visible(timeout=30_000)
    wait_idle(page)
    switch_language(page, lang)
    # the open sidebar widens to the layout's width (a transition)
    page.wait_for_function(
        "w => document.querySelector('[data-testid=stSidebar]').getBoundingClientRect()"
        ".width >= w - 1",
        arg=SIDEBAR_WIDTH_PX,
    )
    problems = every_data_set_name_fits_the_sidebar(page)
    for nav_key, stem in PAGES:
        resize(page, WIDE)
        go_to(page, nav_key, lang)
        if nav_key == "nav.home":
            home_names_the_data_set_on_one_line(page)
        elif nav_key == "nav.anonymize":
            run_anonymize_at_800(page, lang)
            resize(page, WIDE)
            lattice_tab(page, lang, artifacts)
        elif nav_key == "nav.privacy":
            page.get_by_role("button", name=text("pl.measure", lang), exact=True).click()
            wait_idle(page)
        for width in (WIDE, NARROW):
            resize(page, width)
            problems += fits(page, f"{stem} at {width} px ({lang})")
            snapshot(page, artifacts / f"layout_{stem}_{width}_{lang}.png")
        expect(page.get_by_test_id("stException")).to_have_count(0)
    assert not problems, "\n".join(problems)
