"""The reproduction script and notebook of a release dossier (privcore.report.redo):
made from a release written by ``privcore anonymize`` and its ``privcore report``, they
redo both and say what is the same."""

from __future__ import annotations

import ast
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from privcore.cli.toolkit import load_table
from privcore.data import Hierarchy
from privcore.errors import ParameterError
from privcore.report import readiness
from privcore.report.redo import PLAN_FORMAT, redo_notebook, redo_plan, redo_script

ROOT = Path(__file__).resolve().parents[2]
QI, SA = "age,sex,zip", "disease"
#: The options of 'privcore anonymize' besides the columns: the identifier column kept
#: (the report's key), a k of 5, the release shuffled with seed 7.
ANONYMIZE = ["--identifiers=", "--auto-hierarchies", "--k", "5", "--seed", "7"]
ANONYMIZE += ["--out", "release.csv", "--spec-out", "spec.json", "--quiet"]
#: The options of 'privcore report' besides the columns: a small voter roll.
REPORT = ["--release", "release.csv", "--key", "id", "--roll-size", "400", "--seed", "3"]
REPORT += ["--out", "report.html", "--json"]


def _env(work: Path) -> dict[str, str]:
    path = os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p)
    return {**os.environ, "PYTHONPATH": path, "PRIVCORE_HISTORY": str(work / "history.db")}


def _run(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )


def _table(rows: int = 200) -> pd.DataFrame:
    rng = np.random.default_rng(1)
    return pd.DataFrame(
        {
            "id": [f"r{i:04d}" for i in rng.permutation(rows)],
            "age": rng.integers(20, 80, rows),
            "sex": rng.choice(["F", "M"], rows),
            "zip": rng.choice([f"1000{i}" for i in range(1, 7)], rows),
            "disease": rng.choice(["flu", "cold", "asthma", "diabetes", "ulcer"], rows),
        }
    )


@pytest.fixture(scope="module")
def made(tmp_path_factory) -> dict:
    """A release written by the command line (shuffled with its seed), its spec, and its
    readiness report (with a hierarchy file and a small voter roll)."""
    work = tmp_path_factory.mktemp("made")
    env = _env(work)
    _table().to_csv(work / "table.csv", index=False)
    (work / "sex_hierarchy.csv").write_text("F;*\nM;*\n", encoding="utf-8")
    common = ["--qi", QI, "--sa", SA, "--hierarchy", "sex=sex_hierarchy.csv"]
    anonymized = _run(
        ["-m", "privcore", "anonymize", "table.csv", *common, *ANONYMIZE],
        work,
        env,
    )
    assert anonymized.returncode == 0, anonymized.stderr
    reported = _run(
        ["-m", "privcore", "report", "--original", "table.csv", *common, *REPORT],
        work,
        env,
    )
    assert reported.returncode in (0, 1), reported.stderr
    report = json.loads(reported.stdout)
    spec = json.loads((work / "spec.json").read_text(encoding="utf-8"))
    plan = redo_plan(
        input_path=work / "table.csv",
        release_path=work / "release.csv",
        spec=spec,
        report=report,
        context={"recipient": "the public", "access": "public"},
        hierarchies=[f"sex={work / 'sex_hierarchy.csv'}"],
    )
    return {"work": work, "env": env, "spec": spec, "report": report, "plan": plan}


def _dossier(made: dict, folder: Path, *, hierarchy: bool = True) -> Path:
    """A fresh folder with the input table (and the hierarchy file), the script and the
    notebook: what a regulator would receive."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(made["work"] / "table.csv", folder / "table.csv")
    if hierarchy:
        shutil.copy(made["work"] / "sex_hierarchy.csv", folder / "sex_hierarchy.csv")
    (folder / "redo.py").write_text(redo_script(made["plan"]), encoding="utf-8")
    (folder / "redo.ipynb").write_text(redo_notebook(made["plan"]), encoding="utf-8")
    return folder


def test_the_plan_records_files_spec_writing_parameters_and_results(made):
    plan, report = made["plan"], made["report"]
    assert json.loads(json.dumps(plan)) == plan
    assert plan["format"] == PLAN_FORMAT
    assert plan["input"]["name"] == "table.csv" and len(plan["input"]["sha256"]) == 64
    assert plan["input"]["fingerprint"] == made["spec"]["input"]["sha256"]
    assert plan["release"]["name"] == "release.csv"
    assert plan["release"]["fingerprint"] == made["spec"]["release"]["sha256"]
    assert plan["spec"] == made["spec"]
    written = plan["written"]
    assert (written["writer"], written["format"], written["shuffled"]) == (
        "privcore.data.save",
        "csv",
        True,
    )
    assert written["seed"] == 7 and written["formula_guard"] and written["bytes_comparable"]
    params = plan["readiness"]
    assert (params["qi"], params["sa"], params["key"]) == (QI.split(","), [SA], "id")
    assert (params["roll_size"], params["seed"]) == (400, 3)
    assert params["thresholds"] == report["thresholds"]
    assert params["hierarchy_files"]["sex"]["file"] == "sex_hierarchy.csv"
    assert plan["context"] == {"recipient": "the public", "access": "public"}
    assert plan["expected"]["verdict"] == report["verdict"]
    assert [c["status"] for c in plan["expected"]["checks"]] == [
        c["status"] for c in report["checks"]
    ]


def test_the_plan_takes_the_report_object_as_well_as_its_dict(made):
    work = made["work"]
    params = made["plan"]["readiness"]
    report = readiness(
        load_table(str(work / "table.csv")).frame,
        load_table(str(work / "release.csv")).frame,
        qi=params["qi"],
        sa=params["sa"],
        key="id",
        thresholds=params["thresholds"],
        hierarchies={"sex": Hierarchy.read_arx(work / "sex_hierarchy.csv", name="sex")},
        roll_size=400,
        seed=3,
    )
    plan = redo_plan(
        input_path=work / "table.csv",
        release_path=work / "release.csv",
        spec=made["spec"],
        report=report,
        hierarchies={"sex": work / "sex_hierarchy.csv"},
    )
    assert plan["readiness"] == made["plan"]["readiness"]
    assert plan["expected"] == made["plan"]["expected"]


def test_the_script_redoes_the_release_byte_for_byte_and_the_assessment(made, tmp_path):
    dossier = _dossier(made, tmp_path / "dossier")
    shutil.copy(made["work"] / "release.csv", dossier / "release.csv")
    done = _run(["redo.py"], dossier, made["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert (dossier / "redo-release.csv").read_bytes() == (
        made["work"] / "release.csv"
    ).read_bytes()
    verdict = made["plan"]["expected"]["verdict"]
    assert f"verdict {verdict}: same" in done.stdout
    assert "input table (privcore fingerprint): same" in done.stdout
    assert "received release file release.csv (SHA-256 of its bytes): same" in done.stdout
    assert "redone file redo-release.csv vs release.csv (SHA-256 of its bytes): same" in (
        done.stdout
    )
    assert "check k: same" in done.stdout and "DIFFERENT" not in done.stdout
    assert done.stdout.strip().splitlines()[-1].startswith("All ")


def test_an_input_known_only_by_its_table_is_compared_by_its_fingerprint(made, tmp_path):
    """A page keeps the table, not the uploaded file: the plan records the input by name
    with no SHA-256, and the script says so and compares privcore's fingerprint."""
    work = made["work"]
    plan = redo_plan(
        input_path={"name": "table.csv", "sha256": None},
        release_path=work / "release.csv",
        spec=made["spec"],
        report=made["report"],
        hierarchies=[f"sex={work / 'sex_hierarchy.csv'}"],
    )
    assert plan["input"] == {**made["plan"]["input"], "sha256": None, "path": "table.csv"}
    dossier = _dossier({**made, "plan": plan}, tmp_path / "dossier")
    done = _run(["redo.py"], dossier, made["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert "input file table.csv (SHA-256 of its bytes): not recorded" in done.stdout
    assert "input table (privcore fingerprint): same" in done.stdout


def test_the_notebook_is_nbformat_4_5_and_its_code_redoes_the_same(made, tmp_path):
    dossier = _dossier(made, tmp_path / "dossier")
    notebook = json.loads((dossier / "redo.ipynb").read_text(encoding="utf-8"))
    assert (notebook["nbformat"], notebook["nbformat_minor"]) == (4, 5)
    cells = notebook["cells"]
    ids = [c["id"] for c in cells]
    assert len(set(ids)) == len(ids) and all(re.fullmatch(r"[A-Za-z0-9_-]{1,64}", i) for i in ids)
    assert {c["cell_type"] for c in cells} == {"markdown", "code"}
    for cell in cells:
        assert cell["metadata"] == {} and isinstance(cell["source"], list)
        if cell["cell_type"] == "code":
            assert cell["outputs"] == [] and cell["execution_count"] is None
    code = "\n\n".join("".join(c["source"]) for c in cells if c["cell_type"] == "code")
    (dossier / "notebook_code.py").write_text(code + "\n", encoding="utf-8")
    done = _run(["notebook_code.py"], dossier, made["env"])
    assert done.returncode == 0, done.stdout + done.stderr
    assert (dossier / "redo-release.csv").read_bytes() == (
        made["work"] / "release.csv"
    ).read_bytes()
    assert "DIFFERENT" not in done.stdout and "All " in done.stdout


def test_another_input_is_named_by_its_fingerprint_and_exits_1(made, tmp_path):
    dossier = _dossier(made, tmp_path / "dossier")
    table = pd.read_csv(dossier / "table.csv", dtype=str)
    table.loc[5, "disease"] = "flu" if table.loc[5, "disease"] != "flu" else "cold"
    table.to_csv(dossier / "table.csv", index=False)
    done = _run(["redo.py"], dossier, made["env"])
    assert done.returncode == 1, done.stdout + done.stderr
    assert "input file table.csv (SHA-256 of its bytes): DIFFERENT" in done.stdout
    assert "input table (privcore fingerprint): DIFFERENT" in done.stdout
    assert not (dossier / "redo-release.csv").exists()


def test_a_missing_input_exits_2_and_input_points_elsewhere(made, tmp_path):
    dossier = _dossier(made, tmp_path / "dossier")
    script, env = str(dossier / "redo.py"), made["env"]
    overwrite = _run([script, "--out", "release.csv"], dossier, env)
    assert overwrite.returncode == 2 and "overwrite" in overwrite.stderr
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (dossier / "table.csv").rename(elsewhere / "table.csv")
    missing = _run([script], dossier, env)
    assert missing.returncode == 2
    assert "input file" in missing.stderr and "--input PATH" in missing.stderr
    # the hierarchy files are read beside the input
    no_hierarchy = _run([script, "--input", str(elsewhere / "table.csv")], dossier, env)
    assert no_hierarchy.returncode == 2 and "sex_hierarchy.csv" in no_hierarchy.stderr
    shutil.copy(dossier / "sex_hierarchy.csv", elsewhere / "sex_hierarchy.csv")
    out = tmp_path / "out.csv"
    done = _run([script, "--input", str(elsewhere / "table.csv"), "--out", str(out)], tmp_path, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert out.read_bytes() == (made["work"] / "release.csv").read_bytes()


def test_the_script_passes_ruff_and_embeds_no_value_of_the_data(made, tmp_path):
    context = {"recipient": "O'Brien's '''lab''' \\ " + "word " * 30, "access": "licensed"}
    long_name = "a table with a long name, " * 5 + ".csv"  # a line of its own over 100
    plan = {**made["plan"], "context": context}
    plan["input"] = {**plan["input"], "name": long_name}
    script = redo_script(plan)
    tree = ast.parse(script)
    assert ast.get_docstring(tree).startswith("Redo the release release.csv")
    embedded = next(
        node.value.args[0].value
        for node in tree.body
        if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", None) == "PLAN"
    )
    assert json.loads(embedded) == plan
    assert re.search(r"r0\d{3}", script) is None  # the identifiers' values
    assert "asthma" not in script and "diabetes" not in script  # the sensitive values
    ruff = shutil.which("ruff") or str(Path(sys.executable).parent / "ruff")
    if not Path(ruff).exists():
        pytest.skip("ruff is not installed")
    path = tmp_path / "redo.py"
    path.write_text(script, encoding="utf-8")
    config = ROOT / "pyproject.toml"
    checked = subprocess.run(
        [ruff, "check", "--no-cache", "--config", str(config), str(path)],
        capture_output=True,
        text=True,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_what_the_plan_cannot_do_without_is_a_clear_error(made, tmp_path):
    work, spec, report = made["work"], made["spec"], made["report"]
    files = {"input_path": work / "table.csv", "release_path": work / "release.csv"}

    def code(**kwargs) -> str:
        with pytest.raises(ParameterError) as caught:
            redo_plan(**{**files, "spec": spec, "report": report, **kwargs})
        return caught.value.code

    assert (
        code(spec={**spec, "release": None}) == "anonymize.bad_spec"
    )  # the spec check the anonymize command uses
    assert code(spec={**spec, "input": {}}) == "report.redo_spec"
    assert code(spec="spec.json") == "anonymize.bad_spec"
    assert code(spec={**spec, "weighted": True}) == "report.redo_weighted"
    assert code(report={**report, "attacks": {}}) == "report.redo_roll"
    assert code(report={**report, "verdict": None}) == "report.redo_report"
    other = {**report, "fingerprint": {"sha256": "0" * 64}}
    assert code(report=other) == "report.redo_other_input"
    assert code(input_path=tmp_path / "nope.csv") == "report.redo_unreadable"
    assert code(hierarchies=["sex"]) == "report.redo_hierarchy"
    assert code(context=["public"]) == "report.redo_context"
    unrecorded = {k: v for k, v in spec.items() if k != "written"}
    # a page's release: records instead of files, and how the page assessed it
    assert code(release_path={"name": "r.csv", "sha256": None}) == "report.redo_unreadable"
    assert code(input_path={"name": "../t.csv", "sha256": None}) == "report.redo_unreadable"
    assert code(input_path={"name": "t.csv", "sha256": "xyz"}) == "report.redo_unreadable"
    assert code(assessed={"shuffled": True}) == "report.redo_assessed"
    assert code(spec=unrecorded, shuffle_seed=-1) == "report.redo_seed"
    assert code(spec={**spec, "written": {"shuffled": "yes"}}) == "anonymize.bad_written"
    bad_seed = {**spec, "written": {**spec["written"], "seed": -1}}
    assert code(spec=bad_seed) == "anonymize.bad_written"
    for make in (redo_script, redo_notebook):
        with pytest.raises(ParameterError) as caught:
            make({"format": "something else"})
        assert caught.value.code == "report.redo_plan"


def test_the_spec_says_how_its_file_was_written(made):
    """``anonymize --spec-out`` records how it wrote the release (shuffled with seed 7,
    formula-guarded); the plan follows that record over what it is told, and follows
    what it is told only for a spec without one."""
    work, spec, report = made["work"], made["spec"], made["report"]
    assert spec["written"] == {"shuffled": True, "seed": 7, "formula_guard": True}
    files = {"input_path": work / "table.csv", "release_path": work / "release.csv"}
    told = {"keep_order": True, "formula_guard": False, "shuffle_seed": 1}
    plan = redo_plan(**files, spec=spec, report=report, **told)
    written = plan["written"]
    assert (written["shuffled"], written["seed"], written["formula_guard"]) == (True, 7, True)
    assert written["source"] == "spec"
    unrecorded = {k: v for k, v in spec.items() if k != "written"}
    plan = redo_plan(**files, spec=unrecorded, report=report, **told)
    written = plan["written"]
    assert (written["shuffled"], written["seed"], written["formula_guard"]) == (False, 1, False)
    assert written["source"] == "given"
