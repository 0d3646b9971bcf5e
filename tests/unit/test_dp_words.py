"""Words for differential privacy: every error the DP library and requests raise, the
parameters of a DP result, and the DP runs of the History page, in both languages.

The raise sites are read from the source (``ast``): for every ``code="dp.…"`` the
catalogues hold ``error.<code>`` (or its variants), each wording asks only for values a
raise passes, and every raise site finds a wording in Chinese that it fills completely.
"""

from __future__ import annotations

import ast
import re
import string
from pathlib import Path

import pandas as pd
import pytest

from privcore.dp import queries
from privcore.dp.audit import AUDIT_MECHANISMS, REASONS, VERDICTS, audit_outputs
from privcore.dp.dinner import DIFFERENCING_MECHANISMS, differencing, dinner_story, dinner_table
from privcore.dp.release import dp_release
from privcore.errors import PrivcoreError
from privcore.runs import DpQueryRequest, DpReleaseRequest
from privcore.words.catalog import catalogue, format_text
from privcore.words.labels import describe_params, param_label, param_value
from ui import history as view

ROOT = Path(__file__).resolve().parents[2]
#: Where DP errors are raised: the library, the requests, the DP page's own view.
SOURCES = (*sorted((ROOT / "privcore").rglob("*.py")), *sorted((ROOT / "ui" / "dp").rglob("*.py")))
#: Raised by the command line only, worded there (exit 2 with the English line).
CLI_ONLY = frozenset({"cli.dp_query_kind", "cli.where_option", "cli.clamp_option"})
CHINESE = re.compile(r"[\u4e00-\u9fff]")
LANGS = ("en", "zh")


def raise_sites() -> list[tuple[str, frozenset[str], str]]:
    """(code, names of the params, where) of every ``code="dp.…"`` call in the sources."""
    sites = []
    for path in SOURCES:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            keywords = {k.arg: k.value for k in node.keywords if k.arg}
            code = keywords.get("code")
            if not (isinstance(code, ast.Constant) and str(code.value).startswith("dp.")):
                continue
            assert not any(k.arg is None for k in node.keywords), (path, node.lineno)
            params = frozenset(keywords) - {"code"}
            sites.append((code.value, params, f"{path.relative_to(ROOT)}:{node.lineno}"))
    return sites


def placeholders(template: str) -> set[str]:
    return {name for _, name, _, _ in string.Formatter().parse(template) if name}


def wordings(code: str, lang: str) -> dict[str, str]:
    """``error.<code>`` and its variants ``error.<code>.<variant>``."""
    base = f"error.{code}"
    return {k: v for k, v in catalogue(lang).items() if k == base or k.startswith(base + ".")}


def chosen(code: str, params: frozenset[str], lang: str) -> str | None:
    """The wording :func:`ui.i18n.error_text` picks for an error with these params."""
    fitting = [
        (len(placeholders(v)), k, v) for k, v in wordings(code, lang).items()
        if placeholders(v) <= params
    ]  # fmt: skip
    return max(fitting)[2] if fitting else None


SITES = raise_sites()
CODES = sorted({code for code, _, _ in SITES})


def test_the_raise_sites_are_found():
    assert {"dp.too_many_cells", "dp.bad_outputs", "dp.needs_clamp", "dp.one_sa"} <= set(CODES)
    assert len(SITES) >= 45, len(SITES)
    assert not CLI_ONLY & set(CODES)


@pytest.mark.parametrize("lang", LANGS)
def test_every_dp_error_code_has_words(lang):
    missing = [code for code in CODES if not wordings(code, lang)]
    assert not missing, missing


@pytest.mark.parametrize("lang", LANGS)
def test_every_wording_asks_only_for_values_a_raise_passes(lang):
    unfillable = []
    for code in CODES:
        sites = [params for c, params, _ in SITES if c == code]
        for key, template in wordings(code, lang).items():
            if not any(placeholders(template) <= params for params in sites):
                unfillable.append((key, sorted(placeholders(template))))
    assert not unfillable, unfillable


@pytest.mark.parametrize("lang", LANGS)
def test_every_raise_site_is_worded_completely(lang):
    """No raise falls back to the English message, and the wording it gets is filled."""
    for code, params, where in SITES:
        template = chosen(code, params, lang)
        assert template is not None, (code, where)
        shown = format_text(template, {name: "7" for name in params})
        assert "{" not in shown, (code, where, shown)
        if lang == "zh":
            assert CHINESE.search(shown), (code, where, shown)


def test_variants_are_picked_by_the_values_the_error_carries():
    """One code raised with different params gets the wording those params fit."""
    sizes = chosen("dp.bad_outputs", frozenset({"data_set", "count", "minimum", "maximum"}), "en")
    assert sizes == catalogue("en")["error.dp.bad_outputs.size"]
    assert (
        chosen("dp.bad_outputs", frozenset({"data_set"}), "en")
        == catalogue("en")["error.dp.bad_outputs"]
    )
    row = chosen("dp.bad_target", frozenset({"target_row", "rows"}), "zh")
    assert row == catalogue("zh")["error.dp.bad_target.row"]
    name = chosen("dp.bad_target", frozenset({"target"}), "zh")
    assert name == catalogue("zh")["error.dp.bad_target"]


def test_the_draws_limit_in_the_words_is_the_library_s():
    """The number of draws is checked against MAX_DRAWS, which the raise does not pass:
    the catalogue names it, and must name the same number."""
    limit = f"{queries.MAX_DRAWS:,}"
    for lang in LANGS:
        assert limit in catalogue(lang)["error.dp.bad_draws"], lang


def _raised(call) -> PrivcoreError:
    with pytest.raises(PrivcoreError) as caught:
        call()
    return caught.value


def _error_text(exc: PrivcoreError, lang: str, monkeypatch) -> str:
    from ui.common import i18n

    monkeypatch.setattr(i18n, "current_language", lambda: lang)
    return i18n.error_text(exc)


def test_real_errors_in_chinese_carry_their_figures(monkeypatch):
    wide = pd.DataFrame({"zip": range(200), "age": range(200), "disease": range(200)})
    cells = _raised(lambda: dp_release(wide, ["zip", "age"], "disease", epsilon=1.0))
    assert cells.code == "dp.too_many_cells"
    zh = _error_text(cells, "zh", monkeypatch)
    # 200 zip codes × 200 diseases = 40,000 cells, above the limit of 10,000
    assert "40000" in zh and "10000" in zh and "zip" in zh and "泛化" in zh, zh
    en = _error_text(cells, "en", monkeypatch)
    assert en.startswith("The marginal of zip with disease would have 40000 cells"), en

    outputs = _raised(lambda: audit_outputs([0.0] * 5, [1.0] * 500, 1.0))
    zh = _error_text(outputs, "zh", monkeypatch)
    assert "D" in zh and "5" in zh and "100" in zh and "{" not in zh and CHINESE.search(zh), zh

    frame = pd.DataFrame({"status": ["a", "b"]})
    target = _raised(lambda: differencing(frame, 5, {"status": "a"}, epsilon=1.0))
    zh = _error_text(target, "zh", monkeypatch)
    assert "2" in zh and "5" in zh and "行" in zh, zh

    leaver = _raised(lambda: dinner_story(1.0, leaver="Nobody"))
    assert "Nobody" in _error_text(leaver, "zh", monkeypatch)

    mean = queries.mean(frame.assign(x=[1.0, 2.0]), "x", 0, 10)
    real = _raised(lambda: queries.answer(mean, "geometric", epsilon=1.0))
    assert real.code == "dp.not_integer"
    zh = _error_text(real, "zh", monkeypatch)
    assert "x" in zh and "Laplace" in zh and "{" not in zh, zh

    needs = _raised(lambda: DpQueryRequest(query="sum", column="x"))
    assert "截断" in _error_text(needs, "zh", monkeypatch)
    one = _raised(lambda: DpReleaseRequest(qi=("a",), sa=()))
    assert "敏感属性" in _error_text(one, "zh", monkeypatch)


# --------------------------------------------------------------------------- parameters

DP_PARAMS = (
    "audited", "delta", "noise", "relation", "leaver", "row", "column", "value", "query",
    "where", "clamp", "columns", "draws", "k", "prior",
)  # fmt: skip


@pytest.mark.parametrize("lang", LANGS)
def test_every_dp_parameter_has_a_name(lang):
    for name in DP_PARAMS:
        assert f"param.{name}" in catalogue(lang), name
    assert param_label("noise", "zh") == "噪声机制"
    assert param_label("relation", "en") == "neighbouring data sets"


def test_dp_choices_are_worded():
    for noise in (*queries.MECHANISMS, *DIFFERENCING_MECHANISMS):
        for lang in LANGS:
            assert param_value("noise", noise, lang) == catalogue(lang)[f"dp.noise_{noise}"]
    assert param_value("noise", "geometric", "en") == "Geometric (discrete Laplace)"
    assert param_value("relation", "add_remove", "en") == "Add or remove one record"
    assert param_value("relation", "replace", "zh") == "替换一条记录"
    for query in ("count", "sum", "mean", "histogram"):
        assert param_value("query", query, "zh") == catalogue("zh")[f"dp.query_{query}"]
    for name in (*AUDIT_MECHANISMS, "uploaded"):
        for lang in LANGS:
            worded = param_value("audited", name, lang)
            assert worded == catalogue(lang)[f"dp.audited_{name}"], (name, lang)
            assert "_" not in worded
    assert param_value("leaver", "Zhang San", "zh") == "张三"
    assert param_value("leaver", "Chen Er", "en") == "Chen Er"


def test_a_dp_result_s_caption_is_in_words():
    params = {"epsilon": 1.0, "prior": 0.5, "leaver": "Li Si", "noise": "geometric"}
    assert (
        describe_params(params, "zh")
        == "ε = 1 · 先验 = 0.5 · 离席者 = 李四 · 噪声机制 = 几何机制（离散 Laplace）"
    )
    audit = {"audited": "broken_scale_eps", "epsilon": 1.0, "delta": None, "samples": 100000}
    assert describe_params(audit, "en") == (
        "audited mechanism = Broken: noise scale ε·Δ instead of Δ/ε · ε = 1 · samples = 100000"
    )


# --------------------------------------------------------------------------- history


@pytest.mark.parametrize("lang", LANGS)
def test_dp_runs_have_kind_and_page_words(lang):
    for kind in ("dp_query", "dp_dinner", "dp_release", "dp_audit", "dp_differencing"):
        label = view.kind_label(kind, lang)
        assert label == catalogue(lang)[f"kind.{kind}"], kind
    assert view.page_label("dp", lang) == catalogue(lang)["nav.dp"]


def test_dp_audit_codes_are_worded():
    for verdict in VERDICTS:
        for lang in LANGS:
            worded = view.value_text("verdict", verdict, lang, kind="dp_audit")
            assert worded == catalogue(lang)[f"ldp.verdict_{verdict}"]
    for reason in REASONS:
        for lang in LANGS:
            worded = view.value_text("reason", reason, lang, kind="dp_audit")
            assert worded == catalogue(lang)[f"history.value.reason.{reason}"], reason
    for kind in ("at_least", "at_most", "low_bits", "point", "points", "bin", "bins"):
        assert view.value_text("kind", kind, "zh") == catalogue("zh")[f"history.value.kind.{kind}"]
    assert view.value_text("order", "D′ over D", "en") == "more likely on D′ than on D"
    assert view.value_text("mechanism", "broken_no_clamp", "en") == (
        "Broken: a sum that forgets to clamp"
    )
    assert view.value_text("mechanism", "geometric", "zh") == "几何机制（离散 Laplace）"
    assert view.value_text("mechanism", "laplace", "en") == "Laplace mechanism"


@pytest.mark.parametrize("lang", LANGS)
def test_an_uploaded_audit_in_the_history_finds_no_violation_and_clears_nothing(lang):
    """600 of 4,000 outputs on D are exactly 2.5, none on D′: the point event is found;
    at a claim of 10 there is no violation, and the words say so without "consistent"."""
    import numpy as np

    rng = np.random.default_rng(0)
    d = np.r_[np.full(600, 2.5), rng.uniform(0, 10, 3_400)]
    report = audit_outputs(d, rng.uniform(0, 10, 4_000), 10.0)
    lines = {line.label: line.value for line in view.describe(report.to_dict(), lang, "dp_audit")}
    words = catalogue(lang)

    def label(key: str, parent: str | None = None) -> str:
        return view.field_label(key, parent, lang)

    assert lines[label("reason")] == words["history.value.reason.no_violation_found"]
    assert lines[label("verdict")] == words["ldp.verdict_inconclusive"]
    assert (
        lines[f"{label('event')} · {label('kind', 'event')}"] == (words["history.value.kind.point"])
    )
    params = f"{label('event')} · {label('params', 'event')}"
    assert lines[f"{params} · {words['history.field.params.value']}"] == "2.5"
    interval = lines[words["history.field.loss_interval"]]
    assert interval == f"{view.value_text('epsilon_lb', report.epsilon_lb, lang)} – ∞"
    shown = " ".join([*lines, *lines.values()])
    assert "onsistent" not in shown and "一致" not in shown


def test_the_dp_page_words_the_new_events_and_the_upload_verdict():
    from ui.dp import audit_view as dp_view

    order = {"order": "D′ over D"}
    assert dp_view.event_text({"kind": "point", "params": {"value": 0.1}, **order}) == (
        "the output equals 0.1 exactly (a point), more likely on D′ than on D"
    )
    points = {"kind": "points", "params": {"values": [float(v) for v in range(10)]}}
    assert dp_view.event_text(points) == (
        "the output is exactly one of 10 values (0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, …)"
    )
    assert dp_view.event_text({"kind": "bin", "params": {"interval": [0.5, 0.75]}}) == (
        "the output lies in the bin [0.5, 0.75) of its histogram"
    )
    bins = {"kind": "bins", "params": {"intervals": [[None, 1.0], [2.0, float("inf")]]}}
    assert dp_view.event_text(bins) == (
        "the output lies in (−∞, 1) ∪ [2, ∞) (bins of its histogram)"
    )
    for lang in LANGS:
        words = catalogue(lang)
        assert "onsistent" not in words["dp.reason_no_violation_found"]
        assert "一致" not in words["dp.reason_no_violation_found"]
        filled = format_text(
            words["dp.reason_no_violation_found"],
            {
                "samples": "100,000",
                "lb": "0.966",
                "claimed": "1.000",
                "low": "0.966",
                "high": "1.1",
            },
        )
        assert "{" not in filled and "100,000" in filled and "0.966" in filled


def test_a_dp_audit_in_the_history():
    """The audit's decision tolerance is an ε (0.0001), not a share of a value, and its
    intervals read "a – b"; the event is its kind and parameters."""
    results = {
        "mechanism": "laplace_count",
        "epsilon": 1.0,
        "samples": 2000,
        "verdict": "consistent",
        "reason": "bound_near_claim",
        "event": {
            "kind": "low_bits",
            "params": {"radius": 0.5, "bits": 53},
            "text": "|x| ≤ 0.5 and x is not a multiple of 2^-53",
            "order": "D over D′",
            "counts": {"D": [12, 1000], "D′": [0, 1000]},
        },
        "p_d": [0.25, 0.5],
        "tolerance": 0.0001,
        "consistent_share": 0.5,
    }
    lines = {line.label: line.value for line in view.describe(results, "en", "dp_audit")}
    assert lines == {
        "Mechanism": "Laplace mechanism on a count",
        "Claimed ε": "1",
        "Draws per data set": "2,000",
        "Verdict": "Consistent with its claim",
        "Why": "the bound is near the claim, not above it",
        "Event found · Kind": "the output's low-order bits",
        "Event found · Parameters · Radius (|output| ≤)": "0.5",
        "Event found · Parameters · Low-order bits": "53",
        "Event found · Direction": "more likely on D than on D′",
        "Event found · Outputs in the event, draws · D": "12, 1000",
        "Event found · Outputs in the event, draws · D′": "0, 1000",
        "P[M(D) ∈ E]: the event's probability on D": "0.25 – 0.5",
        "Decision tolerance on ε": "0.0001",
        "Share of the claim a consistent bound reaches": "50%",
    }
    # elsewhere a tolerance stays a share of the value (the linkage attack's)
    assert view.describe({"tolerance": 0.1}, "en", "attack")[0].value == "10%"


def test_the_dinner_in_the_history():
    story = dinner_story(1.0, leaver="Zhang San", seed=0).to_dict()
    lines = {line.label: line.value for line in view.describe(story, "zh", "dp_dinner")}
    assert lines["谁离席"] == "张三"
    assert lines["离席者的状态"] == "单身"
    assert lines["ε-DP 下的最大后验"] == "0.7311"  # e/(e + 1) at ε = 1, prior 1/2
    assert lines["攻击 · 测试的条件 · 状态"] == "单身"
    assert all(CHINESE.search(label) for label in lines), list(lines)
    table = dinner_table()
    for name in table["name"]:
        assert (
            view.value_text("leaver", name, "zh")
            == catalogue("zh")["dp.diner_" + "_".join(name.lower().split())]
        )


def test_a_dp_audits_neighbours_read_in_chinese_on_the_history_page():
    """Stored as the library's English, worded by the mechanism that has those data sets;
    text the catalogue does not know stays as it is."""
    from privcore.dp.audit import AUDIT_MECHANISMS
    from ui.history.words import value_text

    stored = AUDIT_MECHANISMS["laplace_count"].neighbours
    worded = value_text("neighbours", stored, "zh", kind="dp_audit")
    assert worded != stored and "计数 0" in worded
    assert value_text("neighbours", stored, "en", kind="dp_audit")
    assert value_text("neighbours", "other data sets", "zh") == "other data sets"
