"""Anything a page can compute, the command line can: every kind of request a page runs
has a command, and the command prints the figures the request computes from the same
inputs (the page runs the request through the same :func:`privcore.runs.run`). The kinds
that read a table an engine can hold give the figures of the table in memory on DuckDB
and on Spark too."""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.data import Role, Schema, load
from privcore.runs import (
    AnonymizeRequest,
    AttackRequest,
    AuditRequest,
    BackgroundRequest,
    ComplementaryRequest,
    DatabaseReconstructionRequest,
    DifferencingRequest,
    DinnerRequest,
    DpAccuracyRequest,
    DpAuditRequest,
    DpQueryRequest,
    DpReleaseRequest,
    EngineTable,
    Inputs,
    MeasureRequest,
    OrderingRequest,
    ReconstructionRequest,
    ReplayRequest,
    ReportRequest,
    RiskRequest,
    RollRequest,
    SweepRequest,
    run,
)

ROOT = Path(__file__).resolve().parents[2]
HOSPITAL = ROOT / "assets" / "hospital"
ORIGINAL, RELEASE = str(HOSPITAL / "hospital.csv"), str(HOSPITAL / "hospital_release.csv")
QI, SA = ("ZIP", "Age"), ("Disease",)


def plain(value):
    """JSON as the command line prints it (numpy and tuples as JSON types), without
    timings."""
    data = json.loads(history.to_json(value))
    return _without_timings(data)


def _without_timings(value):
    if isinstance(value, dict):
        return {k: _without_timings(v) for k, v in value.items() if k not in ("seconds",)}
    if isinstance(value, list):
        return [_without_timings(v) for v in value]
    return value


def cli(capsys, *argv) -> dict:
    code = main([*map(str, argv), "--json"])
    out = capsys.readouterr()
    assert code == 0, out.err
    return _without_timings(json.loads(out.out))


def pair() -> Inputs:
    return Inputs(original=load(ORIGINAL), release=load(RELEASE).frame)


# --------------------------------------------------------------------------- each kind


def anonymize(capsys, tmp_path):
    original = load(ORIGINAL)
    roles = {c: Role.INSENSITIVE for c in original.frame.columns}
    roles.update(dict.fromkeys(QI, Role.QUASI_IDENTIFIER))
    roles.update(dict.fromkeys(SA, Role.SENSITIVE))
    request = AnonymizeRequest(algorithm="mondrian", qi=QI, sa=SA, k=3, max_suppression=0.0)
    made = run(request, Inputs(original=original, schema=Schema(roles)), record=False)
    printed = cli(
        capsys, "anonymize", ORIGINAL, "--qi", "ZIP,Age", "--sa", "Disease", "--k", "3",
        "--algorithm", "mondrian", "--max-suppression", "0", "--out", tmp_path / "r.csv",
    )  # fmt: skip
    printed.pop("engine")  # where the command wrote the release
    assert printed == plain(made.result.to_dict())


def replay(capsys, tmp_path):
    spec = tmp_path / "spec.json"
    cli(
        capsys, "anonymize", ORIGINAL, "--qi", "ZIP,Age", "--sa", "Disease", "--k", "3",
        "--algorithm", "mondrian", "--out", tmp_path / "a.csv", "--spec-out", spec,
    )  # fmt: skip
    request = ReplayRequest(spec=json.loads(spec.read_text(encoding="utf-8")))
    again = run(request, Inputs(original=load(ORIGINAL)), record=False)
    printed = cli(capsys, "anonymize", ORIGINAL, "--from-spec", spec, "--out", tmp_path / "b.csv")
    printed.pop("engine", None)
    assert printed == plain(again.result.to_dict())


def measure(capsys, tmp_path):
    measured = run(MeasureRequest(qi=QI, sa=SA, k=3), pair(), record=False)
    printed = cli(
        capsys, "measure", "--original", ORIGINAL, "--release", RELEASE,
        "--qi", "ZIP,Age", "--sa", "Disease", "--k", "3",
    )  # fmt: skip
    printed.pop("engine")
    assert printed == plain(measured.result.to_dict())


def risk(capsys, tmp_path):
    assessed = run(RiskRequest(qi=QI, sa=SA), pair(), record=False)
    printed = cli(
        capsys, "risk", "--original", ORIGINAL, "--release", RELEASE,
        "--qi", "ZIP,Age", "--sa", "Disease",
    )  # fmt: skip
    printed.pop("engine")
    assert printed == plain(assessed.result.to_dict())


def attack(capsys, tmp_path):
    attacked = run(AttackRequest(qi=QI, sa=SA, roll_size=50, seed=3), pair(), record=False)
    printed = cli(
        capsys, "attack", "--original", ORIGINAL, "--release", RELEASE,
        "--qi", "ZIP,Age", "--sa", "Disease", "--roll-size", "50", "--seed", "3",
    )  # fmt: skip
    printed.pop("engine")
    assert printed == plain(attacked.result.to_dict())


def roll(capsys, tmp_path):
    """The Attack page builds its roll as a run of its own; the command line's attack
    builds the same roll (its size and seed in the attack's JSON)."""
    built = run(RollRequest(qi=QI, roll_size=50, seed=3), pair(), record=False)
    printed = cli(
        capsys, "attack", "--original", ORIGINAL, "--release", RELEASE,
        "--qi", "ZIP,Age", "--sa", "Disease", "--roll-size", "50", "--seed", "3",
    )  # fmt: skip
    assert printed["roll"]["size"] == built.summary["size"] == 50
    assert printed["roll"]["seed"] == 3


def report(capsys, tmp_path):
    made = run(ReportRequest(qi=QI, sa=SA, roll_size=50), pair(), record=False)
    code = main(
        ["report", "--original", ORIGINAL, "--release", RELEASE, "--qi", "ZIP,Age",
         "--sa", "Disease", "--roll-size", "50", "--out", str(tmp_path / "r.html"), "--json"]
    )  # fmt: skip
    printed = json.loads(capsys.readouterr().out)
    assert code == (0 if made.result.verdict == "ready" else 1)
    expected = plain(made.result.to_dict())
    for check in printed["checks"]:
        check.pop("message")  # the command line words each check
    for key in ("verdict", "checks", "measurement", "attacks", "gdpr_risks", "roles"):
        assert _without_timings(printed[key]) == expected[key], key


def background(capsys, tmp_path):
    done = run(BackgroundRequest(qi=QI, sa=SA, m=1, tau=0.6), pair(), record=False)
    printed = cli(
        capsys, "background", "--original", ORIGINAL, "--release", RELEASE,
        "--qi", "ZIP,Age", "--sa", "Disease", "--posterior-tau", "0.6",
    )  # fmt: skip
    assert [printed["before"], printed["after"]] == plain(
        [done.summary["before"], done.summary["after"]]
    )


def ordering(capsys, tmp_path):
    original = pd.DataFrame({"id": range(6), "age": [30, 31, 40, 41, 50, 51]})
    original.to_csv(tmp_path / "o.csv", index=False)
    release = original.iloc[[1, 0, 2, 3, 5, 4]]
    release.to_csv(tmp_path / "r.csv", index=False)
    inputs = Inputs(original=load(original), release=release.reset_index(drop=True))
    done = run(OrderingRequest(key="id"), inputs, record=False)
    printed = cli(
        capsys, "ordering", "--original", tmp_path / "o.csv", "--release", tmp_path / "r.csv",
        "--key", "id",
    )  # fmt: skip
    assert {k: printed[k] for k in done.summary} == plain(done.summary)


def complementary(capsys, tmp_path):
    inputs = Inputs(release=load(RELEASE).frame, second_release=load(ORIGINAL).frame)
    done = run(ComplementaryRequest(qi=QI, sa=SA), inputs, record=False)
    printed = cli(
        capsys, "complementary", "--release", RELEASE, "--second-release", ORIGINAL,
        "--qi", "ZIP,Age", "--sa", "Disease",
    )  # fmt: skip
    assert {k: printed[k] for k in done.summary} == plain(done.summary)


def ldp_audit(capsys, tmp_path):
    request = AuditRequest(mechanism="grr", epsilon=1.0, domain=2, methods=("ab",), samples=5000)
    done = run(request, Inputs(), record=False)
    printed = cli(
        capsys, "audit", "--mechanism", "grr", "--epsilon", "1", "--domain", "2",
        "--method", "ab", "--samples", "5000", "--quiet",
    )  # fmt: skip
    assert printed == plain(done.summary["ab"])


def sweep(capsys, tmp_path):
    done = run(SweepRequest(mechanism="grr", epsilons=(1.0,), domain=2), Inputs(), record=False)
    printed = cli(capsys, "sweep", "--mechanism", "grr", "--epsilons", "1", "--domain", "2")
    assert printed["rows"] == plain(done.summary["rows"])


def reconstruction(capsys, tmp_path):
    done = run(ReconstructionRequest(values=5000), Inputs(), record=False)
    printed = cli(capsys, "reconstruct", "--values", "5000")
    assert {k: printed[k] for k in done.summary} == plain(done.summary)


def database_reconstruction(capsys, tmp_path):
    table = Inputs(original=load(ORIGINAL))
    done = run(DatabaseReconstructionRequest(publish="Age,Disease"), table, record=False)
    printed = cli(capsys, "reconstruct", ORIGINAL, "--publish", "Age,Disease")
    figures = plain(done.summary)
    assert {k: printed[k] for k in figures} == figures
    assert printed["records"] == plain(done.result.records(None).to_dict("records"))


def dp_query(capsys, tmp_path):
    done = run(DpQueryRequest(query="count", epsilon=1.0, seed=5), pair(), record=False)
    printed = cli(capsys, "dp", "query", ORIGINAL, "--count", "--epsilon", "1", "--seed", "5")
    assert printed["answer"] == plain(done.result.to_dict())["answer"]


def dp_accuracy(capsys, tmp_path):
    request = DpAccuracyRequest(query="count", draws=20, grid=(1.0,))
    done = run(request, pair(), record=False)
    printed = cli(capsys, "dp", "accuracy", ORIGINAL, "--count", "--draws", "20", "--grid", "1")
    assert printed["rows"] == plain(done.result.to_dict("records"))


def dinner(capsys, tmp_path):
    done = run(DinnerRequest(epsilon=1.0), Inputs(), record=False)
    printed = cli(capsys, "dp", "dinner", "--epsilon", "1")
    assert printed == plain(done.result.to_dict())


def differencing(capsys, tmp_path):
    request = DifferencingRequest(row=0, where={"Disease": "gastritis"}, epsilon=1.0, seed=2)
    done = run(request, pair(), record=False)
    printed = cli(
        capsys, "dp", "person", ORIGINAL, "--row", "0", "--where", "Disease=gastritis",
        "--epsilon", "1", "--seed", "2",
    )  # fmt: skip
    assert printed == plain(done.result.to_dict())


def dp_release(capsys, tmp_path):
    request = DpReleaseRequest(qi=QI, sa=SA, epsilon=2.0, seed=1)
    done = run(request, pair(), record=False)
    printed = cli(
        capsys, "dp", "release", ORIGINAL, "--qi", "ZIP,Age", "--sa", "Disease",
        "--epsilon", "2", "--seed", "1", "--out", tmp_path / "dp.csv",
    )  # fmt: skip
    assert printed["marginals"] == plain(done.result.dp.to_dict())["marginals"]


def dp_audit(capsys, tmp_path):
    rng = np.random.default_rng(1)
    outputs = pd.DataFrame({"d": rng.integers(0, 3, 400), "d2": rng.integers(0, 3, 400)})
    outputs.to_csv(tmp_path / "o.csv", index=False)
    request = DpAuditRequest(audited="uploaded", epsilon=1.0, output_columns=("d", "d2"))
    done = run(request, Inputs(samples=load(outputs)), record=False)
    printed = cli(
        capsys, "dp", "audit", "--outputs", tmp_path / "o.csv", "--columns", "d,d2",
        "--epsilon", "1",
    )  # fmt: skip
    assert printed == plain(done.result.to_dict())


PAGE_ANALYSES = {
    AnonymizeRequest: anonymize,
    ReplayRequest: replay,
    MeasureRequest: measure,
    RiskRequest: risk,
    AttackRequest: attack,
    RollRequest: roll,
    ReportRequest: report,
    BackgroundRequest: background,
    OrderingRequest: ordering,
    ComplementaryRequest: complementary,
    AuditRequest: ldp_audit,
    SweepRequest: sweep,
    ReconstructionRequest: reconstruction,
    DatabaseReconstructionRequest: database_reconstruction,
    DpQueryRequest: dp_query,
    DpAccuracyRequest: dp_accuracy,
    DinnerRequest: dinner,
    DifferencingRequest: differencing,
    DpReleaseRequest: dp_release,
    DpAuditRequest: dp_audit,
}


def test_every_kind_of_request_a_page_runs_has_a_command():
    used = set()
    for path in [*(ROOT / "ui").rglob("*.py"), *(ROOT / "pages").glob("*.py")]:
        used |= set(re.findall(r"\b([A-Z][A-Za-z]+Request)\b", path.read_text(encoding="utf-8")))
    # a front end's own step (confirming roles, opening a table) is not an analysis
    used -= {"TaskRequest", "OpenTableRequest", "ProfileRequest"}
    assert used, "no request found in the pages: the pattern is wrong"
    assert sorted(used - {cls.__name__ for cls in PAGE_ANALYSES}) == []


@pytest.mark.parametrize("kind", list(PAGE_ANALYSES), ids=lambda cls: cls.__name__)
def test_the_command_prints_the_figures_of_the_request(kind, capsys, tmp_path):
    PAGE_ANALYSES[kind](capsys, tmp_path)


# --------------------------------------------------------------------------- engines


@pytest.fixture(scope="module")
def engines():
    """The table in memory (pandas), on DuckDB and on Spark (when Java is here)."""
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.engines.pandas_engine import PandasEngine
    from privcore.engines.spark_engine import SparkEngine, spark_available

    made = [PandasEngine(), DuckDBEngine()]
    if spark_available() is None:
        made.append(SparkEngine(master="local[1]"))
    yield made
    if spark_available() is None:
        from pyspark.sql import SparkSession

        session = SparkSession.getActiveSession()
        if session is not None:
            session.stop()


ENGINE_KINDS = {
    MeasureRequest: MeasureRequest(qi=QI, sa=SA, k=3),
    AttackRequest: AttackRequest(qi=QI, sa=SA, roll_size=50, seed=3),
    RiskRequest: RiskRequest(qi=QI, sa=SA),
    ReportRequest: ReportRequest(qi=QI, sa=SA, roll_size=50),
}


def _comparable(summary) -> dict:
    data = plain(summary)
    for key in ("measure_run", "attack_run", "fingerprint", "release_fingerprint", "created"):
        data.pop(key, None)
    return data


@pytest.mark.parametrize("kind", list(ENGINE_KINDS), ids=lambda cls: cls.__name__)
def test_the_same_table_in_memory_on_duckdb_and_on_spark_gives_the_same_figures(kind, engines):
    request = ENGINE_KINDS[kind]
    figures = {}
    for engine in engines:
        original = EngineTable(engine, engine.scan(ORIGINAL), "hospital.csv")
        release = EngineTable(engine, engine.scan(RELEASE), "hospital_release.csv")
        done = run(request, Inputs(original=original, release=release), record=False)
        figures[engine.name] = _comparable(done.summary)
        assert original.read is not None and original.read.records == 9  # what the run read
    first = figures["pandas"]
    assert all(other == first for other in figures.values()), sorted(figures)


def test_a_measurement_on_an_engine_is_the_measurement_of_the_rows():
    """Measuring needs no roll and no sample: the figures of the frequency set on an
    engine are those of the rows in memory (to the last bits of a float)."""
    from privcore.engines.duckdb_engine import DuckDBEngine

    engine = DuckDBEngine()
    request = MeasureRequest(qi=QI, sa=SA, k=3)
    inputs = Inputs(
        original=EngineTable(engine, engine.scan(ORIGINAL), "hospital.csv"),
        release=EngineTable(engine, engine.scan(RELEASE), "hospital_release.csv"),
    )
    on_engine = plain(run(request, inputs, record=False).result.to_dict())
    in_memory = plain(run(request, pair(), record=False).result.to_dict())
    assert on_engine.pop("loss")["gcp"] == pytest.approx(in_memory.pop("loss")["gcp"])
    for key in in_memory:
        if key not in ("real_records",):
            assert (
                on_engine[key] == pytest.approx(in_memory[key])
                if isinstance(in_memory[key], float)
                else on_engine[key] == in_memory[key]
            ), key
