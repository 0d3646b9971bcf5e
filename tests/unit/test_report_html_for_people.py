"""The readiness report's HTML is written for people and never contradicts itself: every
algorithm's release, of every kind (made here, described by the command line's anonymize
report, a file paired by key, a table read by an engine, a report rebuilt from the
history), in English and Chinese, shows no key, no Python value, no JSON, no exponent
and — in Chinese — no English beyond proper names; a statement about a single value names
the table that has it; the columns a loss figure covers and the columns the notes say it
leaves out come from one source; a synthetic release's ``satisfied`` and ``verdicts``
speak of the same groups."""

from __future__ import annotations

import html
import json
import re

import numpy as np
import pandas as pd
import pytest

from privcore.anonymize import ALGORITHMS, anonymize
from privcore.cli import main
from privcore.core.jsonsafe import plain
from privcore.data import Schema, load
from privcore.data.hierarchy_suggestions import suggest_hierarchies
from privcore.engines import engine
from privcore.models import KAnonymity
from privcore.report import Thresholds, readiness, readiness_from_history
from privcore.report.checks import loss_coverage
from privcore.runs import Inputs, ReportRequest, run
from privcore.runs.tables import readiness_tables
from privcore.words.catalog import figure, limit, short, texts_of
from privcore.words.report_html import render_html

ROWS = 80
COLUMNS = ("age", "city", "weight", "income", "disease", "pid")
SA = ["disease"]
# numeric QIs for the methods that average, synthesize, perturb or code numbers
NUMERIC_QI = ["weight", "income", "city"]
LATTICE_QI = ["age", "city", "weight"]
# every check; the Article 29 risks (the same section for every release) cost the most,
# so the per-algorithm reports leave them to the reports of the other kinds
LIMITS = {"min_k": 3, "max_t": 0.6, "min_ul": 0.5, "max_journalist": 0.1}
ARTICLE_29 = {"max_singling_out": 0.5, "max_linkability": 0.5, "max_inference": 0.5}
THRESHOLDS = Thresholds(**LIMITS, **ARTICLE_29)
LANGS = ("en", "zh")

#: Latin words a Chinese report may hold: acronyms and symbols of the figures, proper
#: names (the product, the algorithms' names, Sweeney's precision), the time zone.
PROPER = {
    "PL",
    "DR",
    "UL",
    "GCP",
    "NCP",
    "WHD",
    "DM",
    "C_avg",
    "SHA",
    "UTC",
    "privcore",
    "Sweeney",
    "Datafly",
    "Samarati",
    "Incognito",
    "Mondrian",
    "KACA",
    "MDAV",
    "PRAM",
}
SNAKE = re.compile(r"\b[a-z][a-z0-9]*(?:_[a-z0-9]+)+\b")
REPR = re.compile(r"\b(?:True|False|None)\b(?! [a-z])|\bnp\.|[{}]|\[\s*[\"'\d\[]|[\"'\d]\s*\]")
EXPONENT = re.compile(r"\b\d+(?:\.\d+)?[eE][+-]?\d+\b")
UNSEPARATED = re.compile(r"(?<![\d.,])\d{4,}")
HEX = re.compile(r"\b[0-9a-f]{64}\b")
TIME = re.compile(r"\b\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\b")
#: Top and bottom codes are released cells, shown as the file holds them (">=39988.84").
CODE = re.compile(r"[<>]=-?[\d.]+")
WORD = re.compile(r"\b[A-Za-z]+(?:_[A-Za-z]+)*")


def visible(page: str) -> str:
    """What a reader sees: the document without its style, script and tags."""
    page = re.sub(r"<(style|script)\b.*?</\1>", " ", page, flags=re.S | re.I)
    page = re.sub(r"<title>.*?</title>", " ", page, flags=re.S)  # said again in the page
    return html.unescape(re.sub(r"<[^>]+>", "\n", page))


def faults(page: str, lang: str, names: tuple[str, ...] = ()) -> list[str]:
    """Everything in the visible text that is not written for people."""
    shown = visible(page)
    for name in names:  # file names, as given
        shown = shown.replace(name, " ")
    shown = CODE.sub(" ", TIME.sub(" ", HEX.sub(" ", shown)))
    found = [f"key {m}" for m in SNAKE.findall(shown) if m not in COLUMNS]
    found += [f"repr {m!r}" for m in REPR.findall(shown)]
    found += [f"exponent {m}" for m in EXPONENT.findall(shown)]
    found += [f"unseparated {m}" for m in UNSEPARATED.findall(shown)]
    if lang == "zh":
        words = [w for w in WORD.findall(shown) if len(w) > 1]  # k, l, t, s are symbols
        found += [f"English {w}" for w in words if w not in PROPER | set(COLUMNS)]
    return sorted(set(found))


def table(rows: int = ROWS, seed: int = 5) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    frame = pd.DataFrame(
        {
            "pid": rng.permutation(rows) * 7 + 1000,
            "age": rng.integers(17, 96, rows),
            "city": rng.choice(["Gary", "Lafayette", "Muncie", "Marion"], rows),
            "weight": np.round(rng.normal(70, 12, rows), 1),
            "income": np.round(rng.normal(28000, 9000, rows), 2),
            "disease": rng.choice(["flu", "cold", "asthma"], rows),
        }
    )
    return load(frame).frame


def schema_of(frame: pd.DataFrame, qi: list[str]) -> Schema:
    hierarchies = {c: s.hierarchy for c, s in suggest_hierarchies(frame, qi).items()}
    roles = {**dict.fromkeys(qi, "quasi_identifier"), "disease": "sensitive", "pid": "identifier"}
    return Schema(roles, hierarchies)


@pytest.fixture(scope="module")
def original() -> pd.DataFrame:
    return table()


@pytest.fixture(scope="module")
def made(original):
    """Every algorithm's release of the table (k = 3) and its readiness report, with the
    algorithm as the Report page gives it."""
    out = {}
    for name in ALGORITHMS:
        qi = (
            NUMERIC_QI
            if name in ("condensation", "mdav", "noise", "rank_swap", "top_bottom")
            else LATTICE_QI
        )
        schema = schema_of(original, qi)
        release = anonymize(original, schema, [KAnonymity(3)], algorithm=name, seed=1)
        report = readiness(
            original.drop(columns=["pid"]),
            release.frame,
            qi=qi,
            sa=SA,
            thresholds=Thresholds(**LIMITS),
            hierarchies=schema.hierarchies,
            algorithm={"algorithm": release.algorithm, **release.params},
            roll_size=1200,
            aligned=True,
            gdpr=False,
        )
        out[name] = (release, report)
    return out


# --------------------------------------------------------------------------- numbers


def test_figures_are_written_for_people():
    """Whole numbers with thousands separators; others to 4 (table) or 3 (sentence)
    significant digits in positional notation up to 10¹⁵; booleans in words; a
    threshold with every digit it was given."""
    assert figure(28134.7) == "28,135"  # 2.813e+04 before
    assert figure(1234567) == "1,234,567" and figure(1234567.0) == "1,234,567"
    assert figure(0.74251) == "0.7425" and figure(0.0001234) == "0.0001234"
    assert figure(0.00001234567) == "0.00001235"  # 1.235e-05 before
    assert figure(-0.5) == "-0.5" and figure(0.0) == "0"
    assert figure(2.5e15) == "2.5e+15"  # an exponent only from 10¹⁵
    assert figure(float("nan")) == "—" and figure(None) == "—"
    assert figure(True) == "yes" and figure(False, lang="zh") == "否"
    assert short(12345.6) == "12,346" and short(0.000123456) == "0.000123"
    assert short(30162) == "30,162" and short(True, "zh") == "是"
    assert limit(1e-05) == "0.00001" and limit(0.333333) == "0.333333"
    assert limit(5.0) == "5" and limit(100000) == "100,000" and limit(1 / 3) == "0.333333"


# --------------------------------------------------------------------------- every kind


@pytest.mark.parametrize("name", list(ALGORITHMS))
def test_every_algorithm_release_reads_for_people(made, name):
    """Made here (the page's form of the algorithm) and described by the command line
    (``{"algorithm", "params", "node", "synthetic"}``), in both languages."""
    release, report = made[name]
    cli = {k: release.to_dict().get(k) for k in ("algorithm", "params", "node", "synthetic")}
    as_cli = {**report.to_dict(), "algorithm": plain(cli)}
    for lang in LANGS:
        for form in (report, as_cli):
            page = render_html(form, lang)
            assert faults(page, lang) == [], (name, lang)
            assert "1,200" in visible(page)  # the roll's size, separated


def test_a_file_paired_by_key_reads_for_people(original):
    """A release file (no algorithm) paired by key, with its own row order and the key
    left in it."""
    schema = schema_of(original, LATTICE_QI)
    release = anonymize(original, schema, [KAnonymity(4)], algorithm="mondrian", seed=2)
    published = release.frame.assign(pid=original["pid"]).sample(frac=1.0, random_state=1)
    report = readiness(
        original,
        published,
        qi=LATTICE_QI,
        sa=SA,
        key="pid",
        thresholds=THRESHOLDS,
        hierarchies=schema.hierarchies,
        original_name="people.csv",
        release_name="people-release.csv",
    )
    for lang in LANGS:
        assert faults(render_html(report, lang), lang, ("people.csv", "people-release.csv")) == []


def test_an_engine_report_and_a_rebuilt_one_read_for_people(original, tmp_path):
    schema = schema_of(original, LATTICE_QI)
    release = anonymize(original, schema, [KAnonymity(3)], algorithm="mondrian", seed=3)
    files = {}
    for which, frame in (("people", original), ("people-release", release.frame)):
        files[which] = str(tmp_path / f"{which}.parquet")
        frame.to_parquet(files[which], index=False)
    run_on = engine("pandas")
    on_engine, _ = readiness_tables(
        run_on,
        run_on.scan(files["people"]),
        run_on.scan(files["people-release"]),
        qi=LATTICE_QI,
        sa=SA,
        thresholds=THRESHOLDS,
        hierarchies=schema.hierarchies,
        original_name="people.parquet",
        release_name="people-release.parquet",
    )
    inputs = Inputs(
        original=load(original, filename="people.csv"),
        schema=schema,
        release=release.frame,
        release_name="people-release.csv",
        algorithm={"algorithm": release.algorithm, **release.params},
    )
    outcome = run(ReportRequest(qi=LATTICE_QI, sa=SA, thresholds=THRESHOLDS.to_dict()), inputs)
    rebuilt = readiness_from_history(outcome.run_id)
    names = ("people-release.parquet", "people.parquet", "people-release.csv", "people.csv")
    for lang in LANGS:
        for report in (on_engine, rebuilt):
            assert faults(render_html(report, lang), lang, names) == []


def test_the_checker_finds_what_the_old_document_showed():
    """The faults the checks look for, as the document showed them before."""
    old = (
        "<td><code>min_k</code></td><td>True</td><td>2.813e+04</td><td>30162</td>"
        '<td>{"k": 1}</td><td>["age", "diag"]</td><td>equal</td>'
    )
    assert faults(old, "zh") == [
        "English True",
        "English diag",
        "English equal",
        "English min_k",
        "exponent 2.813e+04",
        "key min_k",
        "repr '\"]'",
        "repr 'True'",
        "repr '[\"'",
        "repr '{'",
        "repr '}'",
        "unseparated 30162",
    ]
    assert (
        faults(old.replace("equal", "等距离").replace("diag", "age"), "en")[0]
        == "exponent 2.813e+04"
    )


# --------------------------------------------------------------------------- one truth


def single_value_table() -> pd.DataFrame:
    """Ages 17 to 95 and one country for everybody."""
    frame = table(60, seed=9)[["age", "city", "disease"]]
    frame.loc[[0, 1], "age"] = [17, 95]
    return frame.assign(country="Freedonia")


def test_a_single_value_is_said_of_the_table_that_has_it(tmp_path):
    """The release writes every age as "*": age has a single value in the release, not in
    the original (17–95); the country has one in both. In memory and on an engine the
    notes place each in its table, and the words say so in both languages."""
    original = single_value_table()
    assert (original["age"].min(), original["age"].max()) == (17, 95)
    release = original.assign(age="*")
    qi = ["age", "city", "country"]
    expected = {"original": ["country"], "release": ["age"]}
    memory = readiness(original, release, qi=qi, sa=SA, aligned=True, gdpr=False)
    for which, frame in (("original", original), ("release", release)):
        frame.to_parquet(tmp_path / f"{which}.parquet", index=False)
    run_on = engine("pandas")
    on_engine, _ = readiness_tables(
        run_on,
        run_on.scan(str(tmp_path / "original.parquet")),
        run_on.scan(str(tmp_path / "release.parquet")),
        qi=qi,
        sa=SA,
        gdpr=False,
    )
    for report in (memory, on_engine):
        assert report.findings["constant"] == expected
        assert [n["params"] for n in report.notes if n["note"] == "pl_note"] == [
            {"attribute": "age", "note": "constant_release"},
            {"attribute": "country", "note": "constant_original"},
        ]
        en, zh = texts_of(report, "en").notes, texts_of(report, "zh").notes
        assert en[:2] == [
            "The release gives the quasi-identifier age a single value where the original "
            "has several: its privacy level is 0.",
            "The quasi-identifier country has a single value in the original: its privacy "
            "level is 0.",
        ]
        assert zh[:2] == [
            "发布表中准标识符 age 只有一个取值（原始表中有多个）：其隐私水平为 0。",
            "准标识符 country 在原始表中只有一个取值：其隐私水平为 0。",
        ]
        assert "age has a single value in the original" not in render_html(report)


def test_a_sensitive_attribute_made_constant_by_the_release_is_a_condition():
    original = single_value_table()
    release = original.assign(disease="*")
    report = readiness(original, release, qi=["age", "city"], sa=SA, aligned=True, gdpr=False)
    conditions = [c["params"] for c in report.conditions if c["condition"] == "pl_note"]
    assert conditions == [
        {"attribute": "all", "note": "constant_release"},
        {"attribute": "disease", "note": "constant_release"},
    ]
    tail = (
        " a single value where the original has several, so its privacy level is 0: the "
        "release keeps nothing of it. Check that the release still serves its purpose."
    )
    said = [c.sentence for c in texts_of(report, "en").conditions if "gives" in c.sentence]
    assert said == [
        "The release gives all sensitive attributes" + tail,
        "The release gives disease" + tail,
    ]
    said = [c.sentence for c in texts_of(report, "zh").conditions if "隐私水平" in c.sentence]
    assert said[1] == (
        "发布表中 disease 只有一个取值（原始表中有多个），因此其隐私水平为 0：发布表没有保留它"
        "的任何信息。请确认发布表仍能满足用途。"
    )


def test_loss_columns_and_the_words_about_them_agree(original):
    """Mondrian releases age and weight as ranges (no hierarchy for them), city as labels
    of its hierarchy: WHD and precision cover city alone, GCP all three (it reads the
    ranges). The note names age and weight as left out of WHD and precision only, and the
    loss table lists the same columns."""
    hierarchies = {c: s.hierarchy for c, s in suggest_hierarchies(original, ["city"]).items()}
    roles = {**dict.fromkeys(LATTICE_QI, "quasi_identifier"), "disease": "sensitive"}
    schema = Schema(roles, hierarchies)
    release = anonymize(
        original.drop(columns=["pid"]), schema, [KAnonymity(3)], algorithm="mondrian"
    )
    report = readiness(
        original.drop(columns=["pid"]),
        release.frame,
        qi=LATTICE_QI,
        sa=SA,
        hierarchies=hierarchies,
        aligned=True,
        gdpr=False,
    )
    loss = report.measurement["loss"]
    assert (loss["loss_columns"], loss["gcp_columns"]) == (["city"], ["age", "city", "weight"])
    assert loss_coverage(report.measurement) == {
        "qi": LATTICE_QI,
        "hierarchy": ["city"],
        "gcp": ["age", "city", "weight"],
    }
    loss_notes = [n for n in report.notes if n["note"].startswith("loss_columns")]
    assert loss_notes == [{"note": "loss_columns_cells", "params": {"columns": ["age", "weight"]}}]
    page = render_html(report)
    assert "WHD, GCP and precision leave out" not in page
    assert (
        "WHD and precision leave out &#x27;age&#x27;, &#x27;weight&#x27; (no hierarchy given, "
        "or released values that are not labels of it); GCP covers them" in page
    )
    rows = dict(re.findall(r"<tr><td>([^<]+)</td><td[^>]*>[^<]*</td><td>([^<]*)</td></tr>", page))
    assert rows["Global certainty penalty (GCP)"] == "age, city, weight"
    assert rows["Precision (Sweeney)"] == "city"
    assert rows["Weighted hierarchical distance, total (WHD)"] == "city"
    assert "gcp_columns" not in page and "loss_columns" not in page


# --------------------------------------------------------------------------- satisfied


def test_satisfied_and_verdicts_speak_of_the_same_partition(made):
    """For every algorithm ``satisfied`` is every verdict passing; a synthetic release
    (condensation) is judged on its groups, and its records' own verdicts (k = 1: every
    synthetic record is distinct) are ``record_verdicts``."""
    for name, (release, _) in made.items():
        data = json.loads(json.dumps(plain(release.to_dict())))
        assert data["satisfied"] == all(v["passed"] for v in data["verdicts"]), name
        assert data["satisfied_on"] == ("groups" if name == "condensation" else "classes")
        assert ("record_verdicts" in data) == (name == "condensation")
    data = plain(made["condensation"][0].to_dict())
    assert data["satisfied"] is True
    assert [(v["achieved"]["k"] >= 3, v["passed"]) for v in data["verdicts"]] == [(True, True)]
    assert [(v["achieved"], v["passed"]) for v in data["record_verdicts"]] == [({"k": 1}, False)]
    assert data["k"] == 1  # the released records' smallest class


def test_the_command_line_written_check_is_the_written_file(tmp_path, capsys):
    """``engine.written_satisfied`` is the models checked on the written records, as every
    engine checks them: false for condensation's distinct synthetic records (k = 1),
    while ``satisfied`` (on the groups) is true."""
    path = tmp_path / "people.csv"
    table(60, seed=4)[["weight", "income", "disease"]].to_csv(path, index=False)
    code = main(
        [
            "anonymize",
            str(path),
            "--qi",
            "weight,income",
            "--sa",
            "disease",
            "--algorithm",
            "condensation",
            "--k",
            "4",
            "--out",
            str(tmp_path / "release.csv"),
            "--json",
            "--quiet",
        ]
    )
    assert code == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["satisfied"], data["satisfied_on"]) == (True, "groups")
    assert data["engine"]["written_satisfied"] is False and data["engine"]["written_k"] == 1
