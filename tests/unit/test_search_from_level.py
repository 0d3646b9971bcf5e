"""The full-domain search on a table above PRIVCORE_ENGINE_MAX_GROUPS starts from the
first generalization that fits (privcore.runs.first_level): the raising path is known
from each QI's distinct labels alone, and a release counted from the start does not
claim real records it cannot count."""

from __future__ import annotations

import pandas as pd

from privcore.runs.first_level import raising_path


class Maps:
    """A stand-in for LevelMaps: the QIs and their distinct labels per level."""

    def __init__(self, distinct):
        self.qi = tuple(f"q{i}" for i in range(len(distinct)))
        self.distinct = distinct

    @property
    def heights(self):
        return tuple(len(d) - 1 for d in self.distinct)


def test_the_raising_path_raises_the_qi_with_the_most_labels_first():
    # q0: 80 → 16 → 1 labels; q1: 100 → 10 → 1; q2: 2 → 1.
    # From (0,0,0): q1 has 100 > 80 → (0,1,0); now q0 80 > 10 → (1,1,0); q0 16 > 10 →
    # (2,1,0); q0 at its top, q1 10 > 2 → (2,2,0); then q2 → (2,2,1), the top.
    maps = Maps(((80, 16, 1), (100, 10, 1), (2, 1)))
    assert raising_path(maps) == [(0, 1, 0), (1, 1, 0), (2, 1, 0), (2, 2, 0), (2, 2, 1)]


def test_a_tie_raises_the_first_qi_and_a_flat_lattice_has_no_path():
    assert raising_path(Maps(((5, 1), (5, 1)))) == [(1, 0), (1, 1)]
    assert raising_path(Maps(((3,), (7,)))) == []


def test_a_release_searched_from_a_start_counts_no_real_records(tmp_path, monkeypatch):
    """Adult at k = 10 with the limit at 4,000 combinations: the search starts above
    level 0, so a released row that equals its row of the generalized table is no raw
    record — real records are left out, and the note says so."""
    from privcore.data import Role, Schema, load_sample
    from privcore.engines.duckdb_engine import DuckDBEngine
    from privcore.models import KAnonymity
    from privcore.runs.tables import anonymize_table

    dataset, sample = load_sample("adult")
    qi = ["age", "sex", "race", "marital-status", "education"]
    path = tmp_path / "adult.parquet"
    dataset.frame.to_parquet(path)
    roles = {**dict.fromkeys(qi, Role.QUASI_IDENTIFIER), "occupation": Role.SENSITIVE}
    schema = Schema(roles, {c: sample.hierarchies[c] for c in qi})
    monkeypatch.setenv("PRIVCORE_ENGINE_MAX_GROUPS", "4000")
    engine = DuckDBEngine()
    made = anonymize_table(
        engine, engine.scan(path), schema, [KAnonymity(10)], tmp_path / "r.parquet",
        algorithm="optimal", max_suppression=0.01, shuffle=False,
    )  # fmt: skip
    assert sum(made.release.params["start_levels"].values()) >= 1
    report = made.to_dict()
    assert report["real_records"] == {}
    [note] = [n for n in made.release.notes if n.code == "engines.search_from_level"]
    assert "real records are not counted" in str(note)
    assert len(pd.read_parquet(tmp_path / "r.parquet")) == len(dataset.frame)
