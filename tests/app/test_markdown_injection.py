"""A data file's words never act as Markdown on any page.

Column names and values written as Markdown — an image that would make the browser call
another host, bold text, a formula, a link — must reach every page as the same
characters, escaped, wherever the page renders Markdown (messages, captions, labels,
help, verdict cards, tabs, metrics). Tables, charts and select boxes show text as text
and may hold them raw. Bare URLs and e-mail addresses (which Streamlit's renderer links
even when escaped with backslashes), Streamlit's colour directives (``:red[…]``) and
icons (``:material/home:``, ``:streamlit:``) must not act either: what the renderer
would make of each text is modelled in :mod:`tests.markdown_effects`.
"""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import pytest
from google.protobuf.json_format import MessageToDict

from privcore.data import Schema, load
from tests.app.conftest import ROOT, new_app, no_exceptions
from tests.markdown_effects import directives, icons, links

IMAGE = "![leak](http://127.0.0.1:9/leak.png) HTTPS://a.b"
BOLD = "**boldcol** :red[redcol]"
FORMULA = "$evil_{x}$ www.evil.example"
LINK = "[clickme](http://127.0.0.1:9/x) http://evil.example/x :material/home:"
BOLD_VALUE = "**boldval** :blue-background[bluebg] :streamlit:"
FORMULA_VALUE = "$x^2$ a@b.example"
RAW = (IMAGE, BOLD, FORMULA, LINK, BOLD_VALUE, FORMULA_VALUE)
# what the data's bare URLs, directives and icons would make: links, coloured spans, icons
HOSTILE_LINKS = ("https://a.b", "www.evil.example", "http://evil.example/x", "a@b.example")
HOSTILE_WORDS = ("redcol", "bluebg")  # inside a directive
HOSTILE_ICONS = ("material/home", "streamlit")
# proto fields that hold plain text or data, never rendered as Markdown
PLAIN_FIELDS = {
    "options",
    "default",
    "value",
    "defaultValue",
    "data",
    "spec",
    "datasets",
    "id",
    "formId",
}


def _table() -> pd.DataFrame:
    rows = 60
    return pd.DataFrame(
        {
            IMAGE: [20 + (i % 40) for i in range(rows)],
            BOLD: [BOLD_VALUE if i % 3 else "plain" for i in range(rows)],
            FORMULA: [FORMULA_VALUE if i % 2 else "flu" for i in range(rows)],
            LINK: [f"n{i}" for i in range(rows)],
        }
    )


def _strings(value, key=""):
    if isinstance(value, dict):
        for k, v in value.items():
            if k not in PLAIN_FIELDS:
                yield from _strings(v, k)
    elif isinstance(value, list):
        for v in value:
            yield from _strings(v, key)
    elif isinstance(value, str):
        yield value


def _rendered(node) -> list[str]:
    out = []
    proto = getattr(node, "proto", None)
    if proto is not None:
        out.extend(_strings(MessageToDict(proto)))
    for child in getattr(node, "children", {}).values():
        out.extend(_rendered(child))
    return out


def _effects_from_data(text: str) -> list[str]:
    """The links, coloured spans and icons the data's words would make in ``text`` (the
    app's own Markdown — its colours and icons — is not counted)."""
    found = [x for x in links(text) if any(h in x.lower() for h in HOSTILE_LINKS)]
    found += [x for x in directives(text) if any(w in x for w in HOSTILE_WORDS)]
    found += [x for x in icons(text) if x in HOSTILE_ICONS]
    return found


def _assert_escaped(at, page: str) -> None:
    no_exceptions(at)
    texts = _rendered(at._tree)
    leaks = [(raw, text) for text in texts for raw in RAW if raw in text]
    assert not leaks, f"{page}: {leaks[:3]}"
    acting = [(effect, text) for text in texts for effect in _effects_from_data(text)]
    assert not acting, f"{page}: {acting[:3]}"


@pytest.fixture
def evil_app(tmp_path):
    path = tmp_path / "**evil** $f$ ![f](f.png).csv"
    _table().to_csv(path, index=False)
    dataset = replace(load(path), name=path.name)
    at = new_app()
    wb = at.session_state["workbench"]
    key = wb.add_upload(path.name, dataset)
    wb.confirmed[key] = Schema(
        roles={
            IMAGE: "quasi_identifier",
            BOLD: "quasi_identifier",
            FORMULA: "sensitive",
            LINK: "insensitive",
        }
    )
    at.run()
    return at


@pytest.mark.parametrize(
    "page",
    [
        "home.py",
        "data_roles.py",
        "anonymize.py",
        "privacy_level.py",
        "attack.py",
        "differential_privacy.py",
        "report.py",
        "history.py",
    ],
)
def test_no_page_renders_markdown_from_the_data(evil_app, page):
    at = evil_app
    at.switch_page(str(ROOT / "pages" / page))
    at.run()
    _assert_escaped(at, page)
    for button in at.button:  # the page's main actions, once each
        wanted = button.key and any(w in button.key for w in ("run", "go", "build", "generate"))
        if wanted and not button.disabled:
            button.click().run()
            _assert_escaped(at, f"{page} after {button.key}")


def test_the_check_sees_the_names_where_pages_show_them(evil_app):
    """The pages do show the names in rendered text (escaped): the test above is not
    vacuous."""
    at = evil_app
    at.switch_page(str(ROOT / "pages" / "data_roles.py"))
    at.run()
    texts = " ".join(_rendered(at._tree))
    assert "\\*\\*boldcol\\*\\*" in texts and "!\\[leak\\]" in texts
    assert "\\:red\\[redcol\\]" in texts and "www\u2060.evil.example" in texts
    assert "http:\u2060//evil.example/x" in texts and "HTTPS:\u2060//a.b" in texts


def test_a_release_of_the_table_is_assessed_without_markdown_from_it(evil_app):
    """Mondrian releases the table (no hierarchy needed); the Anonymize, Privacy level,
    Attack and Report pages then show verdict cards and figures named after its
    columns."""
    at = evil_app
    at.switch_page(str(ROOT / "pages" / "anonymize.py"))
    at.run()
    at.selectbox(key="an_algorithm").set_value("mondrian").run()
    at.checkbox(key="an_use_t").check().run()
    at.button(key="an_run").click().run()
    _assert_escaped(at, "anonymize (mondrian)")
    texts = " ".join(_rendered(at._tree))
    assert "\\$evil\\_{x}\\$" in texts  # the verdict card names the sensitive column
    for page in ("privacy_level.py", "attack.py", "report.py"):
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
        _assert_escaped(at, page)
        for button in at.button:
            wanted = button.key and any(w in button.key for w in ("run", "go", "build"))
            if wanted and not button.disabled:
                button.click().run()
                _assert_escaped(at, f"{page} after {button.key}")
