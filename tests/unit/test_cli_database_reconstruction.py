"""``privcore reconstruct INPUT``: the database-reconstruction attack on a table's own
published counts from the command line — the block of seven people of Garfinkel, Abowd
& Martindale rebuilt exactly from two of its tables, a census-like table of a few blocks,
suppressed cells, the curve over ε with its intervals, the randomization lab's output
unchanged without INPUT, and bad input refused in words. Expected values are worked out
by hand in the comments."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from privcore import history
from privcore.cli import main
from privcore.runs import Inputs, ReconstructionRequest, run
from tests.unit.test_database_reconstruction import CACM_TABLE


def _cli(capsys, *argv) -> tuple[int, dict | None, str]:
    code = main([*map(str, argv), "--json"])
    out = capsys.readouterr()
    return code, (json.loads(out.out) if code == 0 else None), out.err


def _json(capsys, *argv) -> dict:
    code, payload, err = _cli(capsys, *argv)
    assert code == 0, err
    return payload


def _sorted(records) -> list[tuple]:
    return sorted(tuple(r.values()) for r in records)


@pytest.fixture
def cacm(tmp_path):
    path = tmp_path / "block.csv"
    CACM_TABLE.to_csv(path, index=False)
    return path


def test_the_seven_people_are_rebuilt_exactly_from_two_of_their_tables(capsys, cacm):
    # The seven ages 8 18 24 30 36 66 84 are all different, so the count of each age ×
    # sex × race cell gives each person's sex and race, and the count of each age ×
    # marital cell their marital status: one table fits, the true one. Domains: age
    # 8..84 (77 values) × F, M × B, W × M, S = 616 record types.
    payload = _json(capsys, "reconstruct", cacm, "--publish", "age,sex,race;age,marital")
    assert payload["publish"] == [["age", "sex", "race"], ["age", "marital"]]
    assert payload["record_types"] == 77 * 2 * 2 * 2
    assert payload["blocks"] == 1 and payload["people"] == 7
    assert payload["solutions"] == {"all": "unique"} and payload["unique_blocks"] == 1
    assert payload["exact_share"] == 1.0 and payload["within_tolerance_share"] == 1.0
    assert payload["tolerance"] == {"age": 1.0}
    assert payload["certain"] == 7 and payload["records_shown"] == 7
    # one width for every numeric column published: age is the only one
    wider = ["reconstruct", cacm, "--publish", "age,sex,race;age,marital", "--tolerance", "3"]
    assert _json(capsys, *wider)["tolerance"] == {"age": 3.0}
    columns = ["age", "sex", "race", "marital"]
    rebuilt = [tuple(r[c] for c in columns) for r in payload["records"]]
    assert sorted(rebuilt) == sorted(CACM_TABLE[columns].itertuples(index=False, name=None))
    assert payload["curve"] == []
    # linked to a roll of the seven people on age and sex (what a roll lists): their ages
    # differ, so each rebuilt record matches one person, and every record is right
    assert payload["link_on"] == ["age", "sex"] and payload["roll_size"] == 7
    assert payload["putative"] == 7 and payload["reidentified"] == 7
    assert payload["reidentified_share"] == 1.0


def test_a_census_like_table_is_rebuilt_block_by_block(capsys, tmp_path):
    # three blocks of 6 to 12 people, columns of the redistricting tables' kind; the
    # tables: sex × age, race × ethnicity, age × race
    rng = np.random.default_rng(7)
    sizes = {"b1": 6, "b2": 9, "b3": 12}
    people = pd.DataFrame(
        {
            "block": np.repeat(list(sizes), list(sizes.values())),
            "sex": rng.choice(["F", "M"], 27),
            "age": rng.integers(0, 8, 27),
            "race": rng.choice(["A", "B", "W"], 27),
            "ethnicity": rng.choice(["H", "N"], 27),
        }
    )
    path = tmp_path / "census.csv"
    people.to_csv(path, index=False)
    tables = "sex,age;race,ethnicity;age,race"
    payload = _json(capsys, "reconstruct", path, "--publish", tables, "--block", "block")
    assert payload["blocks"] == 3 and payload["people"] == 27
    assert set(payload["solutions"]) == set(sizes)
    assert payload["records_rebuilt"] == 27 and payload["records_shown"] == 27
    # each block's rebuilt records are as many as its people (its total is published)
    counts = pd.Series([r["block"] for r in payload["records"]]).value_counts().to_dict()
    assert counts == sizes
    assert list(payload["records"][0]) == ["block", "sex", "age", "race", "ethnicity"]
    assert 0.0 <= payload["exact_share"] <= payload["within_tolerance_share"] <= 1.0
    assert payload["certain"] <= 27 and payload["timed_out_blocks"] == 0
    # the full cross table of the four columns is each block itself: rebuilt exactly
    full = _json(
        capsys, "reconstruct", path, "--publish", "sex,age,race,ethnicity", "--block", "block"
    )
    assert full["exact_share"] == 1.0 and full["unique_blocks"] == 3 and full["certain"] == 27


def test_suppressed_cells_are_known_only_to_be_small(capsys, tmp_path, cacm):
    # sex F F F M, suppressed below 2: the total 4 and F 3 are published, M (1) is
    # withheld as "fewer than 2" — yet 4 − 3 = 1 gives it back: one table, exact.
    path = tmp_path / "sex.csv"
    pd.DataFrame({"sex": ["F", "F", "F", "M"]}).to_csv(path, index=False)
    payload = _json(capsys, "reconstruct", path, "--publish", "sex", "--suppress-below", "2")
    assert payload["suppress_below"] == 2 and payload["solutions"] == {"all": "unique"}
    assert payload["exact_share"] == 1.0 and payload["tolerance"] == {}
    # the seven people each fill a cell of one: every cell is withheld, only the total
    # (7 ≥ 2) is left, and many tables fit (more than the 10 counted)
    hidden = _json(
        capsys, "reconstruct", cacm, "--publish", "age,sex,race;age,marital",
        "--suppress-below", "2",
    )  # fmt: skip
    assert hidden["solutions"] == {"all": "at least 11"} and hidden["records_rebuilt"] == 7
    assert hidden["exact_share"] < 1.0 and hidden["certain"] < 7


def test_two_epsilons_give_a_curve_with_intervals_over_the_seeds(capsys, tmp_path):
    # 40 people over sex × race (6 types), one table and the total: ε = 100 leaves each
    # count noise ε/2 = 50 per table, P(noise ≠ 0) = 2e^-50/(1 + e^-50): the tables are
    # exact and the people rebuilt; ε = 0.05 (scale 40 per cell) loses them
    rng = np.random.default_rng(3)
    path = tmp_path / "people.csv"
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], 40), "race": rng.choice(list("ABW"), 40)})
    frame.to_csv(path, index=False)
    argv = ["reconstruct", path, "--publish", "sex,race", "--seeds", "3", "--seed", "5"]
    payload = _json(capsys, *argv, "--epsilon", "0.05", "100")
    assert payload["epsilon"] == [0.05, 100.0] and payload["seeds"] == 3
    low, high = payload["curve"]
    assert [low["epsilon"], high["epsilon"]] == [0.05, 100.0]
    for point in (low, high):
        assert point["seeds"] == 3
        for share in (point["exact"], point["within_tolerance"]):
            assert 0.0 <= share["low"] <= share["mean"] <= share["high"] <= 1.0
    assert high["exact"] == {"mean": 1.0, "low": 1.0, "high": 1.0}
    assert low["exact"]["mean"] < 1.0
    # without noise the table is the published cross table itself
    assert payload["exact_share"] == 1.0
    # the same seeds, the ε written with a comma: the same curve
    assert _json(capsys, *argv, "--epsilon", "0.05,100")["curve"] == payload["curve"]


def test_one_seed_gives_no_interval(capsys, tmp_path):
    path = tmp_path / "people.csv"
    pd.DataFrame({"sex": ["F", "M", "M"]}).to_csv(path, index=False)
    payload = _json(capsys, "reconstruct", path, "--publish", "sex", "--epsilon", "1")
    (point,) = payload["curve"]
    assert point["exact"]["low"] is None and point["exact"]["high"] is None
    assert 0.0 <= point["exact"]["mean"] <= 1.0


def test_without_input_the_randomization_lab_prints_what_it_did(capsys):
    printed = _json(capsys, "reconstruct", "--values", "5000", "--reconstruction", "em")
    done = run(ReconstructionRequest(values=5000, reconstruction="em"), Inputs(), record=False)
    assert set(printed) == {
        "noise", "noise_scale", "values", "reconstruction", "tv", "tv_perturbed",
        "iterations", "edges", "truth", "perturbed", "estimate",
    }  # fmt: skip
    assert printed["tv"] == pytest.approx(done.summary["tv"])
    assert printed["noise"] == "uniform" and printed["noise_scale"] == 25.0
    assert main(["reconstruct", "--values", "5000"]) == 0
    line = capsys.readouterr().out
    assert line.startswith("total variation to the truth: rebuilt ")


def test_the_run_is_recorded_without_records(capsys, cacm):
    main(["reconstruct", str(cacm), "--publish", "age,sex,race;age,marital", "--record"])
    capsys.readouterr()
    (row,) = history.list_runs()
    recorded = history.get_run(row["id"])
    assert recorded["kind"] == "reconstruction"
    assert recorded["params"]["publish"] == [["age", "sex", "race"], ["age", "marital"]]
    assert recorded["results"]["exact_share"] == 1.0
    # figures only: no rebuilt record, no block's value
    assert "records" not in recorded["results"] and "solutions" not in recorded["results"]
    assert '"age": 84' not in history.to_json(recorded)


@pytest.mark.parametrize(
    ("argv", "words"),
    [
        (["--publish", "age,zip"], "no column zip"),
        (["--publish", "age,sex", "--values", "100"], "(--values) read no table"),
        ([], "needs --publish"),
        (["--publish", "age,,sex"], "--publish must name the column sets"),
        (["--publish", "age,sex;sex,age"], "each table once"),
        (["--publish", "age,sex", "--block", "sex"], "cannot also be published"),
        (["--publish", "age", "--tolerance", "sex=1"], "not a numeric published column"),
        (["--publish", "age", "--tolerance", "1,2"], "or one WIDTH for every numeric"),
        (["--publish", "age", "--tolerance", "-1"], "--tolerance must be"),
        (["--publish", "age", "--epsilon", "0"], "--epsilon must be a number above 0"),
    ],
)
def test_bad_input_is_refused_in_words(capsys, cacm, argv, words):
    code, _, err = _cli(capsys, "reconstruct", cacm, *argv)
    assert code == 2 and err.startswith("error: ")
    assert words in err


def test_new_options_without_input_are_refused_in_words(capsys):
    code, _, err = _cli(capsys, "reconstruct", "--publish", "sex,age", "--seeds", "2")
    assert code == 2
    assert "(--publish, --seeds) need a table: give INPUT" in err


def test_too_many_record_types_are_refused_before_solving(capsys, tmp_path):
    # ages 0..999 × incomes 0..199 = 200,000 record types, above the 100,000 attacked
    path = tmp_path / "wide.csv"
    pd.DataFrame({"age": [0, 999], "income": [0, 199]}).to_csv(path, index=False)
    code, _, err = _cli(capsys, "reconstruct", path, "--publish", "age;income")
    assert code == 2
    assert "age (1,000 values), income (200 values)" in err
    assert "200,000 record types" in err and "100,000" in err


def test_the_attack_reports_its_progress_and_can_be_cancelled():
    from privcore.attacks.reconstruction.published import attack_table
    from privcore.errors import CancelledError

    steps = []
    tables = [("sex", "race"), ("age", "marital")]
    attack_table(
        CACM_TABLE, tables, epsilons=(1.0,), seeds=2, progress=lambda f, m: steps.append(f)
    )
    assert steps == sorted(steps) and steps[-1] == 1.0

    def cancel(fraction, message):
        if message.startswith("ε ="):
            raise CancelledError("Cancelled.")

    with pytest.raises(CancelledError):
        attack_table(CACM_TABLE, tables, epsilons=(1.0,), progress=cancel)
