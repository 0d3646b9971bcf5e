"""The file uploader's own words (the button, the size line, the text shown while a file
is dragged over it) are the page's: Chinese in the Chinese interface, for the eye and for
a screen reader (Chromium's accessibility tree), and the field still opens the file
chooser and takes the file; Streamlit's English words in the English interface."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest
from playwright.sync_api import Locator, Page, expect

from privcore.words.catalog import text

from .test_browser import wait_idle

pytestmark = pytest.mark.e2e

ROOT = Path(__file__).resolve().parents[2]

#: Streamlit's English words in an uploader (1.67 and earlier versions).
STREAMLIT_WORDS = ("200MB per file", "per file", "Drag and drop", "Browse files", "Upload")
LIMIT_MB = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())["server"][
    "maxUploadSize"
]
HOSPITAL = ROOT / "assets" / "hospital" / "hospital.csv"

#: What the field paints as text: the text of its elements that are shown (not hidden,
#: not zero-sized type), and the generated content of their ``::before`` and ``::after``;
#: the Material icons' ligatures (an icon drawn from a word such as "upload") left out.
PAINTED = """zone => {
  const out = [];
  const shown = s => s.display !== "none" && s.visibility === "visible"
    && parseFloat(s.fontSize) > 0 && s.content !== "none";
  const walk = el => {
    if (el.closest('[data-testid="stIconMaterial"]')) return;
    const style = getComputedStyle(el);
    if (style.display === "none") return;
    for (const where of ["::before", "::after"]) {
      const pseudo = getComputedStyle(el, where);
      if (shown(pseudo) && pseudo.content.startsWith('"')) out.push(JSON.parse(pseudo.content));
    }
    for (const node of el.childNodes) {
      if (node.nodeType === Node.TEXT_NODE) {
        if (style.visibility === "visible" && parseFloat(style.fontSize) > 0
            && node.textContent.trim()) out.push(node.textContent.trim());
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        walk(node);
      }
    }
  };
  walk(zone);
  return out;
}"""


def _spoken(page: Page, zone: Locator) -> list[str]:
    """The names of the nodes of Chromium's accessibility tree inside ``zone``: what a
    screen reader reads there (buttons, text)."""
    cdp = page.context.new_cdp_session(page)
    try:
        handle = zone.element_handle()
        marker = "data-spoken-zone"
        handle.evaluate(f"e => e.setAttribute('{marker}', '')")
        root = cdp.send("DOM.getDocument", {"depth": 0})["root"]["nodeId"]
        node_id = cdp.send("DOM.querySelector", {"nodeId": root, "selector": f"[{marker}]"})
        backend = cdp.send("DOM.describeNode", {"nodeId": node_id["nodeId"]})["node"]
        nodes = cdp.send("Accessibility.getFullAXTree")["nodes"]
    finally:
        cdp.detach()
    by_id = {n["nodeId"]: n for n in nodes}
    start = [n for n in nodes if n.get("backendDOMNodeId") == backend["backendNodeId"]]
    names, todo = [], [c for n in start for c in n.get("childIds", [])]
    while todo:
        node = by_id.get(todo.pop(0))
        if node is None:
            continue
        todo.extend(node.get("childIds", []))
        name = (node.get("name") or {}).get("value")
        if not node.get("ignored") and name and node["role"]["value"] != "InlineTextBox":
            names.append(name)
    return names


def _uploader(page: Page, base: str, lang: str) -> tuple[Locator, Locator]:
    """The Data & roles page in ``lang``: its table uploader and the field's drop zone."""
    page.goto(f"{base}/data?lang={lang}")
    uploader = page.get_by_test_id("stFileUploader").first
    expect(uploader).to_be_visible(timeout=60_000)
    wait_idle(page)
    return uploader, uploader.get_by_test_id("stFileUploaderDropzone")


def _drag_over(page: Page, zone: Locator) -> None:
    """A file dragged over the field (the browser's drag events, with a file in them)."""
    transfer = page.evaluate_handle(
        "() => { const t = new DataTransfer();"
        " t.items.add(new File(['a,b'], 'a.csv', {type: 'text/csv'})); return t; }"
    )
    zone.dispatch_event("dragenter", {"dataTransfer": transfer})
    expect(zone.locator("> div:not([data-testid]) > span")).to_have_count(1)


def _no_streamlit_words(words: list[str]) -> None:
    assert not [w for w in words if any(s in w for s in STREAMLIT_WORDS)], words


def test_the_chinese_uploader_speaks_chinese(page: Page, app_server, artifacts):
    base, _ = app_server
    page.goto(base)  # a first visit, then the link to the page
    wait_idle(page)
    uploader, zone = _uploader(page, base, "zh")
    button = text("layout.uploader_button", "zh")
    limit = text("layout.uploader_limit", "zh", size=f"{LIMIT_MB:,}")
    assert button == "上传" and "MB" in limit
    painted = zone.evaluate(PAINTED)
    assert painted == [button, limit], painted
    spoken = _spoken(page, zone)
    _no_streamlit_words(spoken)
    assert button in spoken and limit in spoken, spoken
    assert "file upload" not in spoken  # the hidden input is no second, English button
    expect(zone.get_by_role("button", name=button, exact=True)).to_be_visible()
    uploader.screenshot(path=str(artifacts / "uploader_zh.png"))

    _drag_over(page, zone)
    painted = zone.evaluate(PAINTED)
    assert text("layout.uploader_drop", "zh") in painted, painted
    _no_streamlit_words(painted)
    _no_streamlit_words(_spoken(page, zone))
    zone.dispatch_event("dragleave")

    # the Chinese button still opens the file chooser, and the file chosen is read
    with page.expect_file_chooser() as chooser:
        zone.get_by_role("button", name=button, exact=True).click()
    chooser.value.set_files(str(HOSPITAL))
    expect(uploader.get_by_test_id("stFileChipName")).to_have_text("hospital.csv")
    wait_idle(page)


def test_the_english_uploader_keeps_streamlits_words(page: Page, app_server):
    base, _ = app_server
    page.goto(base)
    wait_idle(page)
    _, zone = _uploader(page, base, "en")
    painted = zone.evaluate(PAINTED)
    assert "Upload" in painted and any(w.startswith(f"{LIMIT_MB}MB per file") for w in painted)
    spoken = _spoken(page, zone)
    assert "Upload" in spoken and any("per file" in w for w in spoken), spoken
    _drag_over(page, zone)
    assert "Drag and drop a file here" in zone.evaluate(PAINTED)
    zone.dispatch_event("dragleave")
    # the visitor switches to Chinese: the same field speaks Chinese
    page.get_by_test_id("stSidebar").get_by_text("简体中文", exact=True).click()
    expect(page.get_by_test_id("stSidebar").get_by_text("语言", exact=True)).to_be_visible()
    wait_idle(page)
    expect(zone.get_by_role("button", name="上传", exact=True)).to_be_visible()
    painted = zone.evaluate(PAINTED)
    _no_streamlit_words(painted)
    assert text("layout.uploader_limit", "zh", size=f"{LIMIT_MB:,}") in painted, painted
