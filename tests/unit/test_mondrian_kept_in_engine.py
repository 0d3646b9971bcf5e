"""Mondrian in fragments beyond memory: when the fragments together have more
combinations than PRIVCORE_MAX_ROWS, DuckDB keeps each fragment's release inside the
engine, writes the release from them and measures it there by its classes. The file is
the one the fragments held in memory write, cell for cell, and every figure both paths
compute is the same."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.cli import main
from privcore.data import Role, Schema, load_sample
from privcore.engines.duckdb_engine import DuckDBEngine
from privcore.errors import InfeasibleError, ParameterError
from privcore.models import DistinctLDiversity, KAnonymity
from privcore.runs.tables import anonymize_table
from tests.conftest import ASSETS

QI = ["age", "sex", "race", "marital-status", "education"]
SA = "occupation"


@pytest.fixture(scope="module")
def adult(tmp_path_factory):
    """Adult as Parquet with a row key, and its schema (the key an identifier)."""
    dataset, sample = load_sample("adult")
    frame = dataset.frame.copy()
    frame.insert(0, "person", [f"p{i}" for i in range(len(frame))])
    path = tmp_path_factory.mktemp("kept") / "adult.parquet"
    frame.to_parquet(path)
    roles = {
        **dict.fromkeys(QI, Role.QUASI_IDENTIFIER),
        SA: Role.SENSITIVE,
        "person": Role.IDENTIFIER,
    }
    return path, Schema(roles, {c: sample.hierarchies[c] for c in QI})


def made(adult, out, monkeypatch, held_limit=None, **options):
    """The release of Mondrian in fragments of at most 4,000 combinations (13,733 in
    all), the fragments held in memory or, with ``held_limit``, kept in the engine."""
    path, schema = adult
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    if held_limit is None:
        monkeypatch.delenv("PRIVCORE_MAX_ROWS", raising=False)
    else:
        monkeypatch.setenv("PRIVCORE_MAX_ROWS", str(held_limit))
    engine = DuckDBEngine()
    models = [KAnonymity(10), DistinctLDiversity(2)]
    return anonymize_table(
        engine, engine.scan(path), schema, models, out, algorithm="mondrian", **options
    )


def test_fragments_kept_in_the_engine_write_the_same_file_and_figures(adult, tmp_path, monkeypatch):
    held = made(adult, tmp_path / "held.parquet", monkeypatch)
    kept = made(adult, tmp_path / "kept.parquet", monkeypatch, held_limit=10_000)
    assert held.release.engine_records is None
    assert kept.release.engine_records == (30_162, 0)
    written = pd.read_parquet(tmp_path / "kept.parquet")
    pd.testing.assert_frame_equal(written, pd.read_parquet(tmp_path / "held.parquet"))
    assert "person" not in written.columns and len(written) == 30_162
    h, k = held.to_dict(), kept.to_dict()
    for figure in ("k", "classes", "rows", "suppressed_rows", "satisfied", "l_distinct"):
        assert k[figure] == h[figure], figure
    assert k["dr"] == pytest.approx(h["dr"], abs=1e-12)
    assert k["verdicts"] == h["verdicts"]
    assert k["params"]["fragments"] == h["params"]["fragments"] >= 4
    assert k["engine"] == h["engine"]
    # Mondrian's own NCP over the whole table's domains, the fragments' mean by records,
    # against the GCP measured on the whole release's cells
    assert k["loss"]["ncp"] == pytest.approx(h["loss"]["gcp"], abs=0.002)
    assert k["loss"]["discernibility"] == h["loss"]["discernibility"]
    assert k["pl"] is None and k["ul"] is None and "gcp" not in k["loss"]
    assert any("fragments whose combinations" in note for note in k["notes"])
    assert any("measured inside the engine" in note for note in k["notes"])
    assert kept.release.n_records == 30_162 and kept.release.n_suppressed == 0
    with pytest.raises(ParameterError) as refused:
        kept.release.export()
    assert refused.value.code == "anonymize.weighted_release"
    with pytest.raises(ParameterError) as no_spec:
        kept.release.spec_json()
    assert no_spec.value.code == "anonymize.release_in_engine"


def test_a_shuffled_release_and_its_ordered_copy_from_kept_fragments(adult, tmp_path, monkeypatch):
    files = {}
    for label, limit in (("held", None), ("kept", 10_000)):
        result = made(
            adult,
            tmp_path / f"{label}.csv",
            monkeypatch,
            held_limit=limit,
            shuffle=True,
            seed=3,
            order_copy=tmp_path / f"{label}_order.csv",
        )
        assert result.rows_written == result.order_copy_rows == 30_162
        files[label] = [(tmp_path / f"{label}{s}.csv").read_bytes() for s in ("", "_order")]
    assert files["kept"] == files["held"]
    assert files["kept"][0] != files["kept"][1]  # shuffled, and in the table's order


def test_an_engine_that_cannot_keep_fragments_says_so(adult, monkeypatch):
    from privcore.engines.base import Regrouped
    from privcore.runs.mondrian_fragments import _keep_in_engine

    class NoKeeping:
        pass

    held: list[tuple[Regrouped, pd.DataFrame]] = []
    with pytest.raises(InfeasibleError) as refused:
        _keep_in_engine(NoKeeping(), None, held, 10_000)
    assert refused.value.code == "engines.fragments_too_many"
    assert "DuckDB" in str(refused.value) and refused.value.params["limit"] == 10_000


def test_the_command_says_which_figures_a_kept_release_has(adult, tmp_path, monkeypatch, capsys):
    path, _ = adult
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "10000")
    hierarchies = [
        arg
        for column in QI
        for arg in ("--hierarchy", f"{column}={ASSETS / 'adult' / f'adult_hierarchy_{column}.csv'}")
    ]
    code = main(
        [
            "anonymize", str(path), "--qi", ",".join(QI), "--sa", SA, "--identifiers",
            "person", *hierarchies, "--algorithm", "mondrian", "--k", "10", "--engine",
            "duckdb", "--out", str(tmp_path / "r.parquet"), "--quiet",
        ]
    )  # fmt: skip
    out = capsys.readouterr().out
    assert code == 0
    assert "k = 10" in out and "ncp = " in out
    assert "PL and UL compare each row with its original: not computed" in out


def test_a_run_stopped_while_fragments_are_kept_leaves_nothing_in_the_engine(
    adult, tmp_path, monkeypatch
):
    from privcore.engines.duckdb_engine import KEPT

    class Stopped(Exception):
        pass

    def progress(share, message):
        if message == "Mondrian on fragment 4":  # the fragments are kept from the 2nd on
            raise Stopped

    path, schema = adult
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    monkeypatch.setenv("PRIVCORE_MAX_ROWS", "5000")
    engine = DuckDBEngine()
    with pytest.raises(Stopped):
        anonymize_table(
            engine, engine.scan(path), schema, [KAnonymity(10)], tmp_path / "r.parquet",
            algorithm="mondrian", progress=progress,
        )  # fmt: skip
    left = engine.connection.execute(
        "SELECT count(*) FROM duckdb_tables() WHERE table_name = ?", [KEPT]
    ).fetchall()[0][0]
    assert left == 0
