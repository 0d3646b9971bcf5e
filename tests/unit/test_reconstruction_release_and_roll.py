"""A release's cells as published counts, the tables suggested beside a release, and
the rebuilt records linked to a voter roll. Every expected value is worked out by hand
in a comment."""

from __future__ import annotations

import pandas as pd
import pytest

from privcore.attacks.reconstruction import Count, Publication, Schema, reconstruct
from privcore.attacks.reconstruction.linkage import default_link_columns, reidentify
from privcore.attacks.reconstruction.published import LinkInput, ReleaseInput, attack_table
from privcore.attacks.reconstruction.release_cells import release_statistics, suggest_tables
from privcore.data import Dataset
from privcore.errors import ParameterError
from privcore.runs import DatabaseReconstructionRequest, Inputs, run

SCHEMA = Schema({"age": range(4), "sex": ["F", "M"]})


def _cells(counts: list[Count]) -> dict[str, tuple]:
    return {c.name: (dict(c.where), c.value) for c in counts}


def test_a_generalized_release_is_read_as_counts_of_the_values_its_cells_cover():
    release = pd.DataFrame({"age": ["0-1", "0-1", "2-3", "*"], "sex": ["F", "F", "M", "F"]})
    cells = _cells(release_statistics(release, SCHEMA))
    # "0-1" covers ages 0 and 1, "2-3" ages 2 and 3, "*" every age (no condition)
    assert cells == {
        "release cell [age=0-1, sex=F]": ({"age": (0, 1), "sex": ("F",)}, 2.0),
        "release cell [age=2-3, sex=M]": ({"age": (2, 3), "sex": ("M",)}, 1.0),
        "release cell [age=*, sex=F]": ({"sex": ("F",)}, 1.0),
    }


def test_a_missing_cell_is_a_suppressed_one_and_covers_the_whole_domain():
    release = pd.DataFrame({"age": [None, "2-3"], "sex": ["M", "M"]})
    cells = _cells(release_statistics(release, SCHEMA))
    assert cells["release cell [age=missing, sex=M]"] == ({"sex": ("M",)}, 1.0)


def test_only_a_generalized_release_is_read_and_a_foreign_label_is_named():
    release = pd.DataFrame({"age": ["0-1"], "sex": ["F"]})
    with pytest.raises(ParameterError) as wrong_kind:
        release_statistics(release, SCHEMA, kind="perturbed")
    assert wrong_kind.value.code == "reconstruction.release_kind"
    assert "perturbed" in str(wrong_kind.value)
    with pytest.raises(ParameterError) as foreign:
        release_statistics(pd.DataFrame({"age": ["70-79"], "sex": ["F"]}), SCHEMA)
    assert foreign.value.code == "reconstruction.release_label"
    assert "70-79" in str(foreign.value) and "age" in str(foreign.value)


def test_the_release_cells_cut_three_tables_to_one():
    # Truth: (0, F), (1, F), (3, M). Published: the age counts (one each of 0, 1, 3) and
    # the sex counts (2 F, 1 M) and the total: the man can be any of the three ages — 3 tables. The
    # release's cells (0-1, F) × 2 and (2-3, M) × 1 put the women at 0 and 1: one table.
    truth = pd.DataFrame({"age": [0, 1, 3], "sex": ["F", "F", "M"]})
    tables = [
        Count({}, 3),
        Count({"age": 0}, 1),
        Count({"age": 1}, 1),
        Count({"age": 2}, 0),
        Count({"age": 3}, 1),
        Count({"sex": "F"}, 2),
        Count({"sex": "M"}, 1),
    ]
    without = reconstruct(Publication(SCHEMA, tables), truth=truth)
    assert without.solutions_text == "exactly 3"
    release = pd.DataFrame({"age": ["0-1", "0-1", "2-3"], "sex": ["F", "F", "M"]})
    cells = release_statistics(release, SCHEMA)
    withit = reconstruct(Publication(SCHEMA, [*tables, *cells]), truth=truth)
    assert withit.unique and withit.accuracy.exact_share == 1.0


def test_the_attack_on_a_table_reads_its_release_and_names_a_missing_block_column():
    truth = pd.DataFrame({"age": [0, 1, 3], "sex": ["F", "F", "M"]})
    release = pd.DataFrame({"age": ["0-1", "0-1", "2-3"], "sex": ["F", "F", "M"]})
    plain = attack_table(truth, [("age",), ("sex",)])
    assert plain.results["all"].solutions_text == "exactly 3" and plain.release_cells == 0
    read = attack_table(truth, [("age",), ("sex",)], release=ReleaseInput(release))
    assert read.results["all"].unique and read.summary()["release_cells"] == 2
    with pytest.raises(ParameterError) as missing:
        attack_table(
            truth.assign(block=["a", "a", "b"]),
            [("age",), ("sex",)],
            block="block",
            release=ReleaseInput(release),
        )
    assert missing.value.code == "reconstruction.release_block"


def test_tables_are_suggested_in_order_while_the_record_types_stay_within_the_limit():
    # age 0..9 (10 values), sex 2, race 4, disease 3; limit 100 record types:
    # age×disease 30 ✓; sex×disease → {age, disease, sex} 60 ✓; race×disease → 240 ✗;
    # age×sex ⊂ published ✓ (60); age×race 240 ✗; sex×race 240 ✗. Race is left out.
    frame = pd.DataFrame(
        {
            "age": [0, 9, 5, 3],
            "sex": ["F", "M", "F", "M"],
            "race": ["A", "B", "C", "D"],
            "disease": ["flu", "cold", "none", "flu"],
        }
    )
    suggestion = suggest_tables(frame, ["age", "sex", "race"], ["disease"], limit=100)
    assert suggestion.tables == (("age", "disease"), ("sex", "disease"), ("age", "sex"))
    assert suggestion.publish == "age,disease;sex,disease;age,sex"
    assert list(suggestion.left_out) == ["race"] and "100" in suggestion.left_out["race"]
    # one QI and no sensitive attribute: the QI alone
    assert suggest_tables(frame, ["sex"]).tables == (("sex",),)
    with pytest.raises(ParameterError) as none:
        suggest_tables(frame, [])
    assert none.value.code == "reconstruction.suggest_no_qi"


def test_rebuilt_records_are_linked_to_the_roll_and_confirmed_on_every_published_value():
    # Four people; a roll of exactly them, linked on block and age. Rebuilt: Ann's and
    # Bob's records right; Cy's race wrong (a putative match, not confirmed); Di and Ed
    # share block b and age 40, so neither is a one-to-one match.
    truth = pd.DataFrame(
        {
            "block": ["a", "a", "b", "b", "b"],
            "age": [30, 31, 50, 40, 40],
            "race": ["W", "B", "W", "A", "B"],
        }
    )
    rebuilt = truth.copy()
    rebuilt.loc[2, "race"] = "B"
    found = reidentify(truth, rebuilt, ["age", "race"], ["block", "age"])
    assert found.putative == 3 and found.confirmed == 2 and found.people == 5
    assert found.confirmed_share == pytest.approx(2 / 5)
    assert sorted(found.named["age"]) == [30, 31] and found.named["name"].notna().all()
    assert found.summary()["reidentified"] == 2
    with pytest.raises(ParameterError) as none:
        reidentify(truth, rebuilt, ["age", "race"], [])
    assert none.value.code == "reconstruction.no_link_columns"


def test_the_link_columns_are_what_a_roll_lists_and_their_absence_is_said():
    assert default_link_columns(["age", "race", "sex", "zip"], "tract") == (
        "tract",
        "age",
        "sex",
        "zip",
    )
    frame = pd.DataFrame({"race": ["A", "B", "B"], "ethnicity": ["H", "N", "N"]})
    attack = attack_table(frame, [("race", "ethnicity")])
    summary = attack.summary()
    assert summary["reidentified"] is None and "voter roll" in summary["reidentified_why"]
    linked = attack_table(frame, [("race", "ethnicity")], link=LinkInput(("race",)))
    # race A is one person: the rebuilt (A, H) matches them alone, and is right
    assert linked.summary()["reidentified"] == 1


def test_the_request_suggests_the_tables_and_refuses_suggest_without_quasi_identifiers():
    frame = pd.DataFrame({"age": [0, 1, 3], "sex": ["F", "F", "M"], "flu": ["y", "n", "y"]})
    with pytest.raises(ParameterError) as missing:
        DatabaseReconstructionRequest(publish="suggest")
    assert missing.value.code == "reconstruction.suggest_no_qi"
    asked = DatabaseReconstructionRequest(publish="suggest", qi=("age", "sex"), sa=("flu",))
    outcome = run(
        asked,
        Inputs(original=Dataset(frame=frame, name="t.csv", source_format="csv")),
        record=False,
    )
    assert outcome.summary["tables"] == [["age", "flu"], ["sex", "flu"], ["age", "sex"]]
    assert outcome.summary["exact_share"] == 1.0
    assert asked.to_dict()["publish"] == "suggest"


def test_the_pairing_on_record_types_is_the_record_by_record_assignment():
    # compare() pairs records through their types (a maximum flow); the same pairing
    # found record by record (an assignment on the agreement matrix) gives the same counts
    import numpy as np
    from scipy.optimize import linear_sum_assignment

    from privcore.attacks.reconstruction import compare

    schema = Schema({"age": range(12), "sex": ["F", "M"], "x": [0, 2, 3, 7]})
    rng = np.random.default_rng(0)

    def table(n: int) -> pd.DataFrame:
        return pd.DataFrame(
            {
                "age": rng.integers(0, 12, n),
                "sex": rng.choice(["F", "M"], n),
                "x": rng.choice([0, 2, 3, 7], n),
            }
        )

    def most(agree: np.ndarray) -> int:
        if agree.size == 0:
            return 0
        rows, cols = linear_sum_assignment(agree.astype(float), maximize=True)
        return int(agree[rows, cols].sum())

    for trial in range(120):
        truth, rebuilt = table(int(rng.integers(0, 14))), table(int(rng.integers(0, 14)))
        tolerance = {"age": 1.0, "x": 1.0} if trial % 2 else {"age": 2.0}
        found = compare(truth, rebuilt, schema, tolerance)
        t_codes = schema.codes()[schema.type_of(truth)]
        r_codes = schema.codes()[schema.type_of(rebuilt)]
        same = t_codes[:, None, :] == r_codes[None, :, :]
        close = same.copy()
        for j, column in enumerate(schema.columns):
            if column in tolerance:
                v = schema.numbers(column)
                gap = np.abs(v[t_codes[:, j]][:, None] - v[r_codes[:, j]][None, :])
                close[:, :, j] = gap <= tolerance[column] + 1e-9
        assert found.exact == most(same.all(axis=2))
        assert found.within_tolerance == most(close.all(axis=2))


def test_rounded_cells_are_kept_within_half_the_base_and_leave_more_tables():
    # Three people aged 0, 1 and 3 (the domain 0..3); published: the total and the age
    # counts, rounded half up to multiples of 3: each age count (1, 1, 0, 1) becomes 0 and
    # the total 3 stays 3. The truth lies within ± 1.5 of each: every age 0 or 1 time,
    # 2 to 4 people — C(4, 2) + C(4, 3) + C(4, 4) = 6 + 4 + 1 = 11 tables.
    truth = pd.DataFrame({"age": [0, 1, 3]})
    exact = attack_table(truth, [("age",)])
    assert exact.results["all"].unique
    rounded = attack_table(truth, [("age",)], round_to=3, max_solutions=20)
    assert rounded.results["all"].solutions_text == "exactly 11"


def test_the_gaussian_curve_fits_within_its_stated_error():
    import numpy as np

    rng = np.random.default_rng(5)
    frame = pd.DataFrame({"sex": rng.choice(["F", "M"], 40), "age": rng.integers(0, 10, 40)})
    attack = attack_table(
        frame, [("sex", "age")], epsilons=[1.0, 8.0], seeds=2, noise_law="gaussian"
    )
    (low, high) = attack.curve
    assert 0.0 <= low["exact"]["mean"] <= 1.0 and high["seeds"] == 2
    with pytest.raises(ParameterError) as unknown:
        attack_table(frame, [("sex",)], epsilons=[1.0], noise_law="cauchy")
    assert unknown.value.code == "reconstruction.noise_law"
