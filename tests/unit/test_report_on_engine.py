"""The readiness report of a table read by an engine (:func:`privcore.runs.tables.
readiness_tables`): the same report as :func:`privcore.report.readiness` on the tables in
memory, the rows' order by key computed in the engine (:meth:`Engine.key_order`), and
the report recorded as its measure, attack and report runs."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.data import load, load_sample
from privcore.engines import engine
from privcore.engines.spark_engine import spark_available
from privcore.report import Thresholds, readiness
from privcore.report import risk as risk_module
from privcore.report.checks import evaluate_checks
from privcore.runs import Inputs, ReportRequest, run
from privcore.runs import tables as engine_tables
from privcore.runs.runners import report_parts
from privcore.runs.tables import ScannedDataset, attack_tables, readiness_tables

SPARK_MISSING = spark_available()
KEY_ENGINES = ["pandas", "duckdb"] + (["spark"] if SPARK_MISSING is None else [])
QI = ["age", "sex", "race"]
SA = ["occupation"]
#: A journalist limit of 0.1: the two rolls' journalist risks (1/7 on an engine, 1/2 in
#: memory) both fail it, so that both reports give the same reasons.
THRESHOLDS = Thresholds(min_k=3, min_l=1.5, max_journalist=0.1)
ROWS = 400


@pytest.fixture(scope="module", autouse=True)
def stop_spark():
    yield
    if SPARK_MISSING is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


def write(frame: pd.DataFrame, path) -> str:
    frame.to_parquet(path, index=False)
    return str(path)


# --------------------------------------------------------------------------- key_order


@pytest.mark.parametrize("name", KEY_ENGINES)
def test_key_order_of_a_reversed_and_of_a_rotated_release(name, tmp_path):
    """5 rows, keys "8" … "12" (text that reads as numbers). Reversed release: original
    row i is released at 4 − i, d = 2i − 4 = −4, −2, 0, 2, 4, Σd² = 40,
    ρ = 1 − 6·40 / (5·24) = −1, one row (the middle one) in place. Release rows
    (2, 0, 1, 3, 4) of the original: rows 0…4 are released at 1, 2, 0, 3, 4, d = −1, −1,
    2, 0, 0, Σd² = 6, ρ = 1 − 36/120 = 0.7, two rows in place. The key's own ρ with the
    row position: as numbers 8 < 9 < … < 12, ρ = 1 (as text "10" < "11" < "12" < "8" <
    "9" it would be 1 − 6·30/120 = −0.5)."""
    run_on = engine(name)
    keys = ["8", "9", "10", "11", "12"]
    original = pd.DataFrame({"id": keys, "age": [30, 31, 32, 33, 34]})
    scanned = run_on.scan(write(original, tmp_path / "original.parquet"))
    reversed_release = run_on.scan(write(original.iloc[::-1], tmp_path / "reversed.parquet"))
    figures = run_on.key_order(scanned, reversed_release, "id")
    assert figures == {
        "n": 5,
        "spearman": -1.0,
        "rows_in_place": 1,
        "original_rows": 5,
        "key_spearman": pytest.approx(1.0),
    }
    rotated = run_on.scan(write(original.iloc[[2, 0, 1, 3, 4]], tmp_path / "rotated.parquet"))
    figures = run_on.key_order(scanned, rotated, "id")
    assert figures["spearman"] == pytest.approx(0.7) and figures["rows_in_place"] == 2


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_key_order_ranks_a_text_key_as_text_with_ties_averaged(name, tmp_path):
    """Text keys p8 … p12 rank "p10" < "p11" < "p12" < "p8" < "p9": ranks 4, 5, 1, 2, 3
    against positions 1…5, Σd² = 9 + 9 + 4 + 4 + 4 = 30, ρ = 1 − 180/120 = −0.5. Keys
    3, 1, 4, 5, 2 (numbers): Σd² = 4 + 1 + 1 + 1 + 9 = 16, ρ = 1 − 96/120 = 0.2."""
    run_on = engine(name)
    text = pd.DataFrame({"id": ["p8", "p9", "p10", "p11", "p12"]})
    table = run_on.scan(write(text, tmp_path / "text.parquet"))
    assert run_on.key_order(table, table, "id")["key_spearman"] == pytest.approx(-0.5)
    numbers = pd.DataFrame({"id": [3, 1, 4, 5, 2]})
    table = run_on.scan(write(numbers, tmp_path / "numbers.parquet"))
    figures = run_on.key_order(table, table, "id")
    assert figures["key_spearman"] == pytest.approx(0.2)
    assert figures["spearman"] == 1.0 and figures["rows_in_place"] == 5


def test_key_order_refuses_a_key_that_repeats(tmp_path):
    from privcore.errors import DataFormatError

    run_on = engine("duckdb")
    table = run_on.scan(write(pd.DataFrame({"id": [1, 1, 2]}), tmp_path / "twice.parquet"))
    with pytest.raises(DataFormatError) as caught:
        run_on.key_order(table, table, "id")
    assert caught.value.code == "measure.key_not_unique"


# --------------------------------------------------------------------------- the report


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """400 rows of Adult with a key, and a release made by hand: age in decades, the key
    and two columns outside the analysis kept; one copy in the original order, one with
    its rows shuffled (for pairing by key)."""
    folder = tmp_path_factory.mktemp("report_on_engine")
    frame = load_sample("adult")[0].frame.head(ROWS).reset_index(drop=True)
    frame = frame[[*QI, *SA, "education", "native-country"]].copy()
    frame.insert(0, "person", [f"P-{i:05d}" for i in range(ROWS)])
    release = frame.copy()
    decade = (release["age"] // 10 * 10).astype(int)
    release["age"] = decade.astype(str) + "-" + (decade + 9).astype(str)
    shuffled = release.sample(frac=1.0, random_state=3).reset_index(drop=True)
    return {
        "original": write(frame, folder / "original.parquet"),
        "release": write(release, folder / "release.parquet"),
        "shuffled": write(shuffled, folder / "shuffled.parquet"),
    }


def without_timings(value):
    if isinstance(value, dict):
        return {k: without_timings(v) for k, v in value.items() if k not in ("seconds",)}
    if isinstance(value, list):
        return [without_timings(v) for v in value]
    return value


def approx_floats(value):
    """``value`` with every float compared to 1e-12: a sum over a frequency set's rows
    adds the same terms in another order than a sum over the table's."""
    if isinstance(value, dict):
        return {k: approx_floats(v) for k, v in value.items()}
    if isinstance(value, list):
        return [approx_floats(v) for v in value]
    if isinstance(value, float):
        return pytest.approx(value, rel=1e-12, abs=1e-12)
    return value


def in_memory_and_on_engine(name: str, files, release: str, key: str | None):
    run_on = engine(name)
    original, released = run_on.scan(files["original"]), run_on.scan(files[release])
    report, dataset = readiness_tables(
        run_on,
        original,
        released,
        qi=QI,
        sa=SA,
        thresholds=THRESHOLDS,
        key=key,
        seed=4,
        original_name="original.parquet",
        release_name=f"{release}.parquet",
    )
    memory = readiness(
        load(files["original"]).frame,
        load(files[release]).frame,
        qi=QI,
        sa=SA,
        thresholds=THRESHOLDS,
        key=key,
        seed=4,
    )
    return run_on, original, released, report, dataset, memory


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_the_report_on_an_engine_is_the_report_in_memory(name, files):
    """Paired by position: measurement and findings equal the in-memory report's; the
    attack figures equal :func:`attack_tables` (the engine's roll is a roll frequency
    set: not the in-memory roll); verdict, reasons, conditions and checks equal those
    the checks give on the in-memory measurement and findings with those attack
    figures."""
    run_on, original, released, report, dataset, memory = in_memory_and_on_engine(
        name, files, "release", None
    )
    assert without_timings(report.measurement) == approx_floats(without_timings(memory.measurement))
    assert report.findings == approx_floats(memory.findings)
    assert report.findings["other_columns"] == ["person", "education", "native-country"]
    assert report.findings["identifiers"] == ["person"]
    assert report.findings["order"]["kept"] and report.findings["order"]["spearman"] == 1.0
    assert report.notes == memory.notes  # 400 rows: no sample
    attacked, _ = attack_tables(
        run_on,
        original,
        released,
        qi=QI,
        sa=SA,
        seed=4,
        risk_threshold=THRESHOLDS.max_prosecutor,
    )
    assert without_timings(report.attacks) == without_timings(attacked.to_dict())
    checks, reasons, conditions, verdict = evaluate_checks(
        memory.measurement,
        report.attacks,
        memory.findings,
        THRESHOLDS,
        gdpr_risks=report.gdpr_risks,
    )
    assert [report.checks, report.reasons, report.conditions] == approx_floats(
        [checks, reasons, conditions]
    )
    assert report.verdict == verdict
    # the two reports differ only where the rolls do: the same verdict here
    assert report.verdict == memory.verdict == "not_ready"
    assert [r["check"] for r in report.reasons] == [r["check"] for r in memory.reasons]
    # the fingerprints are those of the frequency sets read
    assert report.fingerprint == {**dataset.summary(), "name": "original.parquet"}
    assert report.fingerprint["rows"] == report.release_fingerprint["rows"] == ROWS
    assert report.release_fingerprint["name"] == "release.parquet"
    assert report.release_fingerprint["fingerprint_of"] == "frequency_set"
    assert report.roles == {"qi": QI, "sa": SA, "key": None}


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_paired_by_key_the_order_and_the_key_are_found_in_the_engine(name, files):
    """A release shuffled and paired by its key "person": ρ ≈ 0 and the order is not
    kept, as in memory; "P-00000" … looks like an identifier (a value pattern) and runs
    with the row position (ρ = 1): the key leaks."""
    _, _, _, report, _, memory = in_memory_and_on_engine(name, files, "shuffled", "person")
    assert without_timings(report.measurement) == approx_floats(without_timings(memory.measurement))
    assert report.findings == approx_floats(memory.findings)
    order, key = report.findings["order"], report.findings["key"]
    assert order["matched_by"] == "key" and not order["kept"]
    assert abs(order["spearman"]) < 0.2 and order["rows_in_place"] < 5
    assert key["sequential"] and key["spearman_with_row"] == pytest.approx(1.0)
    assert key["leaks"]
    assert report.notes == memory.notes


def test_a_table_larger_than_the_sample_says_so_in_a_note(files, monkeypatch):
    monkeypatch.setattr(engine_tables, "SAMPLE_ROWS", 50)
    run_on = engine("duckdb")
    report, _ = readiness_tables(
        run_on,
        run_on.scan(files["original"]),
        run_on.scan(files["shuffled"]),
        qi=QI,
        sa=SA,
        key="person",
        thresholds=THRESHOLDS,
    )
    assert {"note": "columns_sampled", "params": {"rows": 50}} in report.notes
    # the sample still shows the other columns; the order is the whole tables'
    assert report.findings["other_columns"] == ["education", "native-country"]
    assert report.findings["key"]["sequential"] and not report.findings["order"]["kept"]


def test_the_report_is_recorded_as_its_measure_attack_and_report_runs(files):
    """``run`` with ``work`` returning (report, summary, parts): three runs, the report's
    results naming the other two, as for a report on tables in memory."""
    run_on = engine("duckdb")
    request = ReportRequest(qi=QI, sa=SA, thresholds=THRESHOLDS.to_dict(), seed=2)
    read: dict[str, ScannedDataset] = {}

    class Holder:
        n_rows = ROWS

        def summary(self):
            return read["dataset"].summary()

    def work(progress):
        report, read["dataset"] = readiness_tables(
            run_on,
            run_on.scan(files["original"]),
            run_on.scan(files["release"]),
            qi=request.qi,
            sa=request.sa,
            thresholds=request.thresholds,
            seed=request.seed,
            progress=progress,
        )
        return report, report.history_summary(), report_parts(request, report, inputs.describe())

    inputs = Inputs(original=Holder(), release_name="release.parquet", work=work)
    outcome = run(request, inputs)
    runs = {r["kind"]: r for r in history.list_runs()}
    assert sorted(runs) == ["attack", "measure", "report"]
    assert outcome.summary["measure_run"] == runs["measure"]["id"]
    assert outcome.summary["attack_run"] == runs["attack"]["id"]
    assert runs["report"]["results"]["verdict"] == outcome.result.verdict
    assert runs["measure"]["params"]["k"] == 3 and runs["attack"]["params"]["seed"] == 2
    assert runs["measure"]["params"]["release"] == "release.parquet"
    assert runs["attack"]["results"]["linkage"] == outcome.result.attacks["linkage"]
    assert all(r["dataset_rows"] == ROWS for r in runs.values())
    recorded = outcome.result.recorded(outcome.summary, outcome.run_id)
    assert recorded.run_ids == [runs["measure"]["id"], runs["attack"]["id"], outcome.run_id]
    assert np.isclose(runs["measure"]["results"]["k"], outcome.result.measurement["k"])


# ------------------------------------------------- singling out, linkability, inference


def test_pairs_as_records_expands_a_joint_frequency_set_or_samples_it():
    """Tuples (a, x) × 3 and (b, y) × 1 expand to 4 aligned rows; with a limit of 2, two
    distinct records of the 4 are drawn: never more of a tuple than it has."""
    original = pd.DataFrame({"c": ["a", "b"]})
    release = pd.DataFrame({"c": ["x", "y"]})
    left, right, sampled = risk_module.pairs_as_records(original, release, np.array([3, 1]))
    assert not sampled
    assert list(left["c"]) == ["a", "a", "a", "b"] and list(right["c"]) == ["x", "x", "x", "y"]
    for seed in range(20):
        left, right, sampled = risk_module.pairs_as_records(
            original, release, np.array([3, 1]), limit=2, seed=seed
        )
        assert sampled and len(left) == 2
        assert (left["c"].map({"a": "x", "b": "y"}) == right["c"]).all()
        assert (left["c"] == "b").sum() <= 1


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_the_three_risks_on_an_engine_are_those_of_its_record_pairs(name, files):
    """The report on an engine measures singling out, linkability and inference on the
    record pairs of the joint frequency set: exactly :func:`gdpr_risks` of those pairs
    (the rows in another order than the files', so the held-out control set differs
    from the in-memory report's and the figures agree within their intervals)."""
    from privcore.attacks.gdpr_risks import gdpr_risks

    run_on, original, released, report, _, memory = in_memory_and_on_engine(
        name, files, "release", None
    )
    parts = engine_tables._joint_parts(run_on, original, released, QI, SA, None)
    left, right, sampled = risk_module.pairs_as_records(*parts, seed=4)
    assert not sampled and len(left) == ROWS
    direct = gdpr_risks(left, right, QI, SA, seed=4).to_dict()
    assert report.gdpr_risks == approx_floats(direct)
    for attack in ("singling_out", "linkability"):
        ours, theirs = report.gdpr_risks[attack]["ci"], memory.gdpr_risks[attack]["ci"]
        assert ours[0] <= theirs[1] and theirs[0] <= ours[1]
    assert not any(n["note"].startswith("gdpr") for n in report.notes)


def test_a_table_larger_than_the_records_read_measures_the_risks_on_a_sample(files, monkeypatch):
    monkeypatch.setattr(engine_tables, "GDPR_RECORDS", 100)
    run_on = engine("duckdb")
    report, _ = readiness_tables(
        run_on,
        run_on.scan(files["original"]),
        run_on.scan(files["release"]),
        qi=QI,
        sa=SA,
        thresholds=THRESHOLDS,
    )
    assert {"note": "gdpr_sampled", "params": {"rows": 100, "records": ROWS}} in report.notes
    risks = report.gdpr_risks
    assert risks["training_rows"] + risks["control_rows"] == 100
    from privcore.words.catalog import texts_of

    said = texts_of(report, "en").notes[-1]
    assert "sample of 100 of the 400 record pairs" in said


def test_tables_published_with_a_release_on_an_engine_are_said_not_rebuilt(files):
    """An engine holds no records to rebuild: the reconstruction the context's published
    tables ask for is said to be not measured (the tables stayed in their engine)."""
    run_on = engine("duckdb")
    report, _ = readiness_tables(
        run_on,
        run_on.scan(files["original"]),
        run_on.scan(files["release"]),
        qi=QI,
        sa=SA,
        thresholds=THRESHOLDS,
        seed=4,
        published_tables=[["age", "sex"]],
    )
    assert report.findings["reconstruction"] == {
        "measured": False,
        "note": {"note": "not_in_memory"},
    }
