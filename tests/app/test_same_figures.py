"""Same figures everywhere: for the nine-row table and for Adult, the Report page, the
command line's ``report --json`` and the HTML report give the same verdict, the same
reasons and the same numbers, in both languages."""

from __future__ import annotations

import json
import re
from html import escape

import pytest

from privcore.cli import main
from privcore.data import load, load_sample
from privcore.words.catalog import texts_of
from privcore.words.report_html import render_html
from tests.app.conftest import ROOT, new_app, no_exceptions
from ui.common.state import ShelfRelease

ASSETS = ROOT / "assets"


def _adult_release(tmp_path):
    """A Datafly k = 5 release of Adult written by the command line, in row order."""
    schema = load_sample("adult")[1]
    hierarchies = [
        f"--hierarchy={q}={ASSETS}/adult/adult_hierarchy_{q}.csv" for q in schema.quasi_identifiers
    ]
    out = tmp_path / "adult_release.csv"
    qi, sa = ",".join(schema.quasi_identifiers), ",".join(schema.sensitive)
    args = ["anonymize", str(ASSETS / "adult" / "adult.csv"), "--qi", qi, "--sa", sa,
            *hierarchies, "--algorithm", "datafly", "--k", "5", "--keep-order",
            "--identifiers", "", "--out", str(out)]  # fmt: skip
    assert main(args) == 0
    return out, hierarchies


def _page_report(data: str, release_path, tmp_path):
    """The Report page assessing the release file ``release_path`` of data set ``data``."""
    at = new_app()
    wb = at.session_state["workbench"]
    wb.active = data
    schema = load_sample(data)[1]
    loaded = load(release_path)
    entry, _ = wb.add_release(
        lambda rid: ShelfRelease(
            id=rid,
            name=release_path.name,
            data=data,
            source="file",
            frame=loaded.frame,
            qi=tuple(schema.quasi_identifiers),
            sa=tuple(schema.sensitive),
            fingerprint=loaded.fingerprint.sha256,
            made_at="",
            shuffled=False,
            origin=release_path.name,
        )
    )
    wb.under_review[data] = entry.id
    at.switch_page(str(ROOT / "pages" / "report.py"))
    at.run()
    at.button(key="rp_go").click().run()
    no_exceptions(at)
    stored = at.session_state["_results"][("report", entry.id)]["value"]["report"]
    shown = " ".join(
        e.value.replace("\\", "") for e in [*at.error, *at.warning, *at.markdown, *at.caption]
    )
    return stored, shown, schema


def _numbers(items):
    return [
        (i["check"], i.get("attribute"), i.get("value"), i.get("threshold"), i.get("status"))
        for i in items
    ]


@pytest.mark.slow
@pytest.mark.parametrize("data", ["hospital", "adult"])
def test_page_cli_and_html_say_the_same(data, tmp_path, capsys):
    if data == "hospital":
        release = ASSETS / "hospital" / "hospital_release.csv"
        original = ASSETS / "hospital" / "hospital.csv"
        hierarchies = [
            f"--hierarchy={q}={ASSETS}/hospital/hospital_hierarchy_{q}.csv" for q in ("ZIP", "Age")
        ]
    else:
        release, hierarchies = _adult_release(tmp_path)
        original = ASSETS / "adult" / "adult.csv"
    page, shown, schema = _page_report(data, release, tmp_path)
    html_path = tmp_path / "report.html"
    capsys.readouterr()
    code = main(
        ["report", "--original", str(original), "--release", str(release),
         "--qi", ",".join(schema.quasi_identifiers), "--sa", ",".join(schema.sensitive),
         *hierarchies, "--out", str(html_path), "--json"]
    )  # fmt: skip
    cli = json.loads(capsys.readouterr().out)
    assert code == (0 if page.verdict != "not_ready" else 1)
    page_dict = page.to_dict()
    # the same verdict, reasons and checks, figure for figure
    assert cli["verdict"] == page.verdict
    assert _numbers(cli["reasons"]) == _numbers(page_dict["reasons"])
    assert _numbers(cli["checks"]) == _numbers(page_dict["checks"])
    assert [c["condition"] for c in cli["conditions"]] == [
        c["condition"] for c in page_dict["conditions"]
    ]
    # the same words: the page shows, and both HTML documents hold, every reason
    # (as HTML writes them: a naive attacker's baseline holds a quote, &#x27;)
    words = texts_of(page, "en")
    cli_html = html_path.read_text(encoding="utf-8")
    page_html = render_html(page, "en")
    plain = lambda s: re.sub(r"\s+", " ", s)  # noqa: E731
    for reason, sent in zip(words.reasons, cli["reasons"], strict=True):
        assert reason.sentence == sent["message"]
        assert reason.sentence in shown
        assert escape(reason.sentence) in plain(cli_html)
        assert escape(reason.sentence) in plain(page_html)
    assert words.verdict in plain(cli_html) and words.verdict in plain(page_html)
    # and in Chinese the two documents agree too
    zh = texts_of(page, "zh")
    zh_html = render_html(page, "zh")
    for reason in zh.reasons:
        assert escape(reason.sentence) in plain(zh_html)
