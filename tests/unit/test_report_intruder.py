"""The linkage of a release with a register the intruder holds: hand-computed figures,
the row key that verifies them, what cannot be measured, and the dossier's words."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from privcore.cli import main
from privcore.errors import ParameterError
from privcore.report.context import ReleaseContext
from privcore.report.dossier import intruder_record
from privcore.report.intruder import register_linkage
from privcore.words.dossier_html import _achieved

HOSPITAL = Path(__file__).resolve().parents[2] / "assets" / "hospital"

#: A generalized release: ages 20–29 in one class of two, 31 and 40 alone.
RELEASE = pd.DataFrame(
    {
        "id": ["a", "b", "c", "d"],
        "age": ["[20-30)", "[20-30)", "31", "40"],
        "sex": ["F", "F", "M", "F"],
        "disease": ["flu", "cold", "flu", "gout"],
    }
)
#: The intruder's register: a (2 candidates), c (own record, alone), x (not in the data
#: set, alone on d's record), y (matches nothing), d (in the data set, another age).
REGISTER = pd.DataFrame(
    {
        "id": ["a", "c", "x", "y", "d"],
        "age": [25, 31, 40, 50, 41],
        "sex": ["F", "M", "F", "M", "F"],
    }
)


def test_register_linkage_by_hand():
    """5 people: 3 match a class (a, c, x), 2 match exactly one record (c, x): unique
    share 2/5 with the Clopper–Pearson interval [0.0527, 0.8534]; expected right guesses
    1/2 + 1 + 1 = 2.5. With the key: 3 of them are in the release (a, c, d), 1 is found
    on their own record (c), 1 match is wrong (x): share 1/3, precision 1/2."""
    run = register_linkage(RELEASE, REGISTER, ["age", "sex"], key="id", name="roll.csv")
    assert run["attack"] == "linkage_register" and run["register"] == "roll.csv"
    assert (run["register_size"], run["matched"], run["unique_matches"]) == (5, 3, 2)
    assert run["unique_share"] == pytest.approx(0.4)
    assert run["unique_interval"] == pytest.approx([0.05274, 0.85337], abs=1e-5)
    assert run["expected_correct"] == pytest.approx(2.5)
    assert run["truth"] == "key"
    assert (run["targets"], run["reidentified"], run["false_matches"]) == (3, 1, 1)
    assert run["reidentified_share"] == pytest.approx(1 / 3)
    assert run["reidentified_interval"] == pytest.approx([0.00840, 0.90570], abs=1e-5)
    assert run["precision"] == pytest.approx(0.5)
    assert (run["achieved"], run["share"]) == (1, pytest.approx(1 / 3))


def test_without_the_key_the_matches_are_claims():
    renamed = REGISTER.drop(columns="id").rename(columns={"age": "Age"})
    run = register_linkage(RELEASE, renamed, ["age", "sex"], columns={"age": "Age"})
    assert run["truth"] == "unknown" and run["columns"] == {"age": "Age", "sex": "sex"}
    assert run["reidentified"] is None and run["precision"] is None
    assert (run["achieved"], run["share"]) == (2, pytest.approx(0.4))
    words = _achieved(run, "en")
    assert "2 of 5 people" in words and "not verified" in words
    assert "40.0%" in words and "[5.3%, 85.3%]" in words
    assert "不是" in _achieved(run, "zh") or "而非" in _achieved(run, "zh")


def test_a_perturbed_release_is_not_measured_and_says_why():
    run = register_linkage(RELEASE, REGISTER, ["age", "sex"], release_kind="perturbed")
    assert run["note"] == "register_release_kind" and "unique_matches" not in run
    assert "do not cover the truth" in _achieved(run, "en")


@pytest.mark.parametrize(
    ("register", "columns", "code"),
    [
        (REGISTER.drop(columns="sex"), None, "report.register_columns"),
        (REGISTER, {"disease": "sex"}, "report.register_not_qi"),
        (REGISTER.iloc[:0], None, "report.register_empty"),
    ],
)
def test_bad_registers_are_refused_in_words(register, columns, code):
    with pytest.raises(ParameterError) as caught:
        register_linkage(RELEASE, register, ["age", "sex"], columns=columns)
    assert caught.value.code == code


def test_a_key_that_repeats_cannot_say_who_is_whom():
    twice = RELEASE.assign(id=["a", "a", "c", "d"])
    with pytest.raises(ParameterError) as caught:
        register_linkage(twice, REGISTER, ["age", "sex"], key="id")
    assert caught.value.code == "report.register_key"


def test_the_intruder_record_lists_the_register_after_the_roll():
    run = register_linkage(RELEASE, REGISTER, ["age", "sex"], key="id", name="roll.csv")
    report = {"roles": {"qi": ["age", "sex"], "sa": ["disease"]}, "attacks": {}}
    context = ReleaseContext.from_mapping({"recipient": "x", "access": "public"})
    record = intruder_record(report, context, intruder_register=run)
    names = [r["attack"] for r in record["attacks"]]
    assert names[:3] == ["linkage_roll", "linkage_register", "homogeneity"]


def test_cli_links_the_release_with_the_intruders_register(tmp_path, capsys):
    """``report --context --intruder-register --intruder-column``: the register's run is
    in the dossier's intruder record and its document; without --context it is refused."""
    hier = [f"--hierarchy={c}={HOSPITAL / f'hospital_hierarchy_{c}.csv'}" for c in ("ZIP", "Age")]
    release = tmp_path / "release.csv"
    made = ["anonymize", str(HOSPITAL / "hospital.csv"), "--algorithm=samarati", "--k=3"]
    made += ["--qi=ZIP,Age", "--sa=Disease", *hier, "--keep-order", f"--out={release}"]
    assert main([*made, "--quiet"]) == 0
    table = pd.read_csv(HOSPITAL / "hospital.csv")
    register = tmp_path / "roll.csv"
    table[["ZIP", "Age"]].rename(columns={"Age": "age_years"}).to_csv(register, index=False)
    context = tmp_path / "context.json"
    context.write_text(json.dumps({"recipient": "a journal", "access": "public"}))
    args = [
        "report",
        f"--original={HOSPITAL / 'hospital.csv'}",
        f"--release={release}",
        "--qi=ZIP,Age",
        "--sa=Disease",
        *hier,
        f"--out={tmp_path / 'dossier.html'}",
        f"--intruder-register={register}",
        "--intruder-column=Age=age_years",
        "--quiet",
    ]
    capsys.readouterr()
    assert main(args) == 2
    assert "--intruder-register" in capsys.readouterr().err
    main([*args, f"--context={context}", f"--dossier-json={tmp_path / 'dossier.json'}"])
    dossier = json.loads((tmp_path / "dossier.json").read_text(encoding="utf-8"))
    runs = {r["attack"]: r for r in dossier["intruder"]["attacks"]}
    run = runs["linkage_register"]
    # every class of the 3-anonymous release holds 3 records: nobody is alone
    assert (run["register_size"], run["matched"], run["unique_matches"]) == (9, 9, 0)
    assert run["expected_correct"] == pytest.approx(3.0)
    assert run["columns"] == {"ZIP": "ZIP", "Age": "age_years"} and run["truth"] == "unknown"
    page = (tmp_path / "dossier.html").read_text(encoding="utf-8")
    assert "linkage with the intruder&#x27;s register (roll.csv)" in page
    assert "0 of 9 people in the register" in page
    bad = [*args, f"--context={context}", "--intruder-column=Age"]
    capsys.readouterr()
    assert main(bad) == 2
    assert "QI=COLUMN" in capsys.readouterr().err
