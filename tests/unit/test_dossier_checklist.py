"""docs/dossier-checklist.md: each item of ICO's motivated intruder test, WP29's three
criteria, ISO/IEC 27559's steps and HHS's documentation items points at a section every
dossier has, in both languages."""

from __future__ import annotations

import re
from collections import defaultdict
from pathlib import Path

import pytest

from privcore.report.context import ReleaseContext, context_thresholds
from privcore.report.dossier import build_dossier
from privcore.words.dossier_html import SECTIONS, render_dossier_html
from tests.unit.test_report_dossier import CONTEXT, _report

CHECKLIST = Path(__file__).resolve().parents[2] / "docs" / "dossier-checklist.md"
ROW = re.compile(r"^\| (?P<framework>[^|]+?) \| (?P<item>[^|]+?) \| `#(?P<section>[\w-]+)` \|$")


def _items() -> dict[str, list[tuple[str, str]]]:
    found = defaultdict(list)
    for line in CHECKLIST.read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            found[match["framework"]].append((match["item"], match["section"]))
    return found


def test_the_checklist_covers_each_framework():
    items = _items()
    assert {"ICO", "WP29", "ISO/IEC 27559", "HHS"} <= set(items)
    wp29 = dict(items["WP29"])
    assert wp29["Singling out: is it still possible to isolate an individual?"] == (
        "evidence-singling_out"
    )
    assert {s for _, s in items["WP29"]} >= {
        "evidence-singling_out",
        "evidence-linkability",
        "evidence-inference",
    }
    ico = " ".join(item for item, _ in items["ICO"]).lower()
    assert "motivated intruder" in ico and "review" in ico
    iso = " ".join(item for item, _ in items["ISO/IEC 27559"]).lower()
    for step in ("context assessment", "data assessment", "identifiability", "governance"):
        assert step in iso, step
    hhs = " ".join(item for item, _ in items["HHS"]).lower()
    assert "methods" in hhs and "results" in hhs and "reproduce" in hhs


def test_every_dossier_section_answers_some_item():
    cited = {s for rows in _items().values() for _, s in rows}
    assert set(SECTIONS) - {"evidence"} <= cited


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_every_section_the_checklist_names_is_in_the_dossier(lang):
    context = ReleaseContext.from_mapping(CONTEXT)
    page = render_dossier_html(build_dossier(_report(), context, context_thresholds(context)), lang)
    for framework, rows in _items().items():
        for item, section in rows:
            assert f'id="{section}"' in page, (framework, item, section)
