"""Words, not keys, in both languages (a walk over every page after its main action).

- No raw key or Python repr reaches a page: a table's column named like a key
  (``candidate_records``, ``c_avg``, ``ab_lo``), a cell that is a repr (``None``, a dict
  or list as text), a metric labelled with a key.
- In the Chinese interface every visible word is Chinese, a name (an algorithm, a
  mechanism, a column or value of the data, a file), a number or a unit.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest

from privcore.data import load_sample
from tests.app.conftest import ROOT, new_app, no_exceptions, shown_tables
from ui.common.i18n import catalogue

KEY = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)+$")
#: An unbounded number as the browser writes a float's infinity (say ∞, or why).
INFINITE = re.compile(r"^-?(inf|Infinity)$", re.IGNORECASE)
REPR = re.compile(r"^(None|nan|NaN|NaT|<NA>|\{'.*|\[.*\]|\{\s*\}|np\.\w+\(.*)$")
ENGLISH = re.compile(r"[A-Za-z][A-Za-z'’-]{2,}")
#: Names that stay as they are in Chinese: algorithms, mechanisms, tools, formats, units.
NAMES = {
    "Datafly", "Samarati", "Incognito", "Mondrian", "KACA", "ARX", "Adult", "UCI", "Sweeney",
    "Laplace", "Duchi", "Piecewise", "Hybrid", "Square", "Wave", "RAPPOR", "Clopper",
    "Pearson", "PyTorch", "CUDA", "CPU", "GPU", "KDE", "SQLite", "Streamlit", "Excel",
    "Parquet", "JSON", "CSV", "TSV", "HTML", "UTF", "GBK", "GB18030", "Latin", "Faker",
    "Shannon", "Li", "Venkatasubramanian", "Machanavajjhala", "El", "Emam", "Dankar",
    "Aggarwal", "Yu", "LeFevre", "DeWitt", "Ramakrishnan", "Kohlmayer", "Flash", "Wang",
    "Kairouz", "USENIX", "Security", "Arcolezi", "Gambs", "Fu", "Pei", "Wong",
    "et", "al", "privcore", "pycanon", "anjana", "pure", "ldp",
    "min", "max", "log", "exp", "ln", "int",
    "English", "utf", "avg", "sup", "Agrawal", "Srikant",
    "csv", "tsv", "xlsx", "parquet", "jsonl", "sha", "DuckDB", "Spark",
    "Mironov", "Ghosh", "Roughgarden", "Sundararajan", "Balle", "Canonne", "Kamath",
    "Steinke", "numpy",
    "Anonymeter", "SUDA", "SUDA2", "Zayatz", "Pitman", "SNB", "MDAV", "PRAM",
    "Benedetti", "Franconi", "Hoshino", "Chen", "McNulty", "Nergiz", "sdcMicro", "Giomi",
    "Wilson", "Moore", "Gouweleeuw", "Domingo", "Ferrer", "Mateo", "Sanz", "GDPR", "WP29",
    "DIS", "MSU", "MSUs",
}  # fmt: skip
#: Markup and machine text that is no word: Markdown icons and colours, paths, hashes,
#: timestamps, file names.
NOT_WORDS = re.compile(
    r":material/[a-z_]+:|:[a-z]+\[|\S*/\S*|\b[0-9a-f]{8,}\b|\d{4}-\d\d-\d\dT\S+|\S+\.(?:csv|json|html|db)\b"
)


def _data_words(*frames: pd.DataFrame) -> set[str]:
    words: set[str] = set()
    for frame in frames:
        for column in frame.columns:
            words.update(ENGLISH.findall(str(column)))
            if frame[column].dtype == object or str(frame[column].dtype).startswith("str"):
                for value in frame[column].dropna().astype(str).unique()[:500]:
                    words.update(ENGLISH.findall(value))
    return words


def _texts(at) -> list[tuple[str, str]]:
    """(where, text) of what the page shows as text."""
    out: list[tuple[str, str]] = []
    for kind in ("markdown", "caption", "title", "header", "subheader", "info", "warning",
                 "error", "success"):  # fmt: skip
        out += [(kind, e.value) for e in getattr(at, kind)]
    for m in at.metric:
        out += [("metric label", m.label), ("metric", str(m.value))]
    for kind in ("button", "checkbox", "toggle", "number_input", "slider", "text_input",
                 "selectbox", "multiselect", "radio", "select_slider", "text_area"):  # fmt: skip
        for widget in getattr(at, kind, []):
            out.append((f"{kind} label", widget.label))
            for option in getattr(widget, "options", None) or []:
                out.append((f"{kind} option", str(option)))
    for tab in at.tabs:
        out.append(("tab", tab.label))
    for exp in at.expander:
        out.append(("expander", exp.label))
    return [(w, t.replace("\\", "")) for w, t in out if isinstance(t, str)]


#: The result views whose tabs are drawn only when open: their widget key and tabs.
RESULT_VIEW = {"anonymize.py": "an_view", "privacy_level.py": "pl_view"}
TABS = {
    "anonymize.py": ("tab.classes", "tab.charts", "an.tab_lattice", "tab.download"),
    "privacy_level.py": ("tab.classes", "tab.charts", "tab.download", "tab.summary"),
}


def _walk(lang: str):
    """Every page after its main action, on the hospital table (and Adult's Anonymize)."""
    at = new_app()
    at.session_state["lang"] = lang
    at.session_state["workbench"].active = "hospital"
    at.run()
    yield "home", at
    steps = [
        ("learn.py", None),
        ("data_roles.py", None),
        ("anonymize.py", "an_run"),
        ("privacy_level.py", "pl_measure"),
        ("attack.py", "at_run"),
        ("ldp_auditor.py", "ldp_run"),
        ("report.py", "rp_go"),
        ("differential_privacy.py", "dp_play"),  # the dinner story: the newest run
        ("history.py", None),
    ]
    for page, button in steps:
        at.switch_page(str(ROOT / "pages" / page))
        at.run()
        if button is not None:
            for candidate in at.button:
                if candidate.key == button and not candidate.disabled:
                    candidate.click().run()
                    break
        no_exceptions(at)
        yield page, at
        for tab_key in TABS.get(page, ()):  # a result's tabs, each drawn when open
            at.session_state[RESULT_VIEW[page]] = catalogue(lang)[tab_key]
            at.run()
            no_exceptions(at)
            yield f"{page} [{tab_key}]", at
    # the History page with two runs selected: their details and comparison
    at.session_state["history_table"] = {"selection": {"rows": [0, 1], "columns": [], "cells": []}}
    at.run()
    no_exceptions(at)
    yield "history (selected)", at


@pytest.mark.slow
def test_no_page_shows_a_key_or_a_repr():
    found = []
    for page, at in _walk("en"):
        for frame in shown_tables(at):
            for column in map(str, frame.columns):
                if KEY.match(column):
                    found.append((page, "column", column))
            for column in frame.columns:
                cells = frame[column]
                if cells.dtype == object or str(cells.dtype).startswith("str"):
                    for cell in cells.dropna().astype(str).unique()[:200]:
                        if REPR.match(cell) or KEY.match(cell) or INFINITE.match(cell):
                            found.append((page, f"cell of {column}", cell))
                elif pd.api.types.is_float_dtype(cells) and np.isinf(cells.to_numpy()).any():
                    found.append((page, f"cell of {column}", "inf (shown as Infinity)"))
        for where, text in _texts(at):
            if where.startswith("metric") and KEY.match(text.strip()):
                found.append((page, where, text))
        for element in getattr(at, "json", []):  # raw JSON shown to the user
            found.append((page, "raw JSON", str(element.value)[:60]))
    for item in sorted(set(found)):
        print("FOUND", item)
    assert not found, sorted(set(found))


@pytest.mark.slow
def test_the_chinese_interface_speaks_chinese():
    hospital, _ = load_sample("hospital")
    allowed = {w.lower() for w in NAMES | _data_words(hospital.frame)}
    found = []
    for page, at in _walk("zh"):
        texts = _texts(at)
        for frame in shown_tables(at):
            texts += [("table column", str(c)) for c in frame.columns]
            for column in frame.columns:
                cells = frame[column]
                if cells.dtype == object or str(cells.dtype).startswith("str"):
                    texts += [
                        (f"cell of {column}", c) for c in cells.dropna().astype(str).unique()[:200]
                    ]
        for where, text in texts:
            for word in ENGLISH.findall(NOT_WORDS.sub(" ", text)):
                word = word.strip("-'’")
                if (
                    word.lower() in allowed
                    or word.isupper()
                    or (word[:1].isupper() and word[1:].isupper())
                ):
                    continue
                found.append((page, where, word, text[:80]))
    for item in found:
        print("FOUND", item)
    assert not found, found[:30]


def test_results_computed_before_a_language_switch_are_shown_in_the_new_language():
    """The Privacy level page measured in English, then the language switched: the
    verdict cards and the parameters of the same result are in Chinese (worded from
    codes when shown, not stored as English sentences); so is the loader's note."""
    at = new_app()
    at.session_state["workbench"].active = "hospital"
    at.run()
    at.switch_page(str(ROOT / "pages" / "privacy_level.py"))
    at.run()
    next(b for b in at.button if b.key == "pl_measure").click().run()
    no_exceptions(at)
    english = [c.value.replace("\\", "") for c in at.caption]
    assert "k-anonymity" in english
    assert any("quasi-identifiers = ZIP, Age" in c for c in english)
    at.radio(key="lang").set_value("zh").run()
    no_exceptions(at)
    chinese = [c.value.replace("\\", "") for c in at.caption]
    assert "k-匿名" in chinese and "k-anonymity" not in chinese
    assert any("准标识符 = ZIP, Age" in c for c in chinese)
    assert not any("quasi-identifiers" in c for c in chinese)
    at.switch_page(str(ROOT / "pages" / "data_roles.py"))
    at.run()
    notes = [c.value for c in at.caption]
    assert "按 utf-8 文本读取，逗号分隔。" in notes
    assert not any(n.startswith("Read as") for n in notes)
