"""The release dossier: evidence per criterion, the intruder record, the sign-off, the
fingerprints, its document in both languages and ``privcore report --context``."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from privcore.cli import main
from privcore.errors import ParameterError
from privcore.report.context import ReleaseContext, context_thresholds
from privcore.report.dossier import (
    SignOff,
    build_dossier,
    dossier_fingerprint,
    evidence,
    intruder_record,
    verify_dossier,
)
from privcore.words.dossier_html import SECTIONS, render_dossier_html

HOSPITAL = Path(__file__).resolve().parents[2] / "assets" / "hospital"


def _report(**over):
    """A readiness report's dictionary, built by hand: k = 3, one SA, Article 29 figures."""
    report = {
        "verdict": "ready",
        "reasons": [],
        "conditions": [],
        "notes": [],
        "created": "2026-11-30T10:00:00+00:00",
        "roles": {"qi": ["age", "zip"], "sa": ["disease"], "key": None},
        "fingerprint": {"sha256": "a" * 64, "rows": 9, "columns": 3},
        "release_fingerprint": {"sha256": "b" * 64, "rows": 9, "columns": 3},
        "thresholds": {"min_k": 5, "max_prosecutor": 0.2},
        "measurement": {"k": 3},
        "attacks": {
            "linkage": {"targets": 9, "reidentified": 1, "unique_matches": 2},
            "linkage_strongest": {"method": "exact", "share": 1 / 9, "interval": [0.003, 0.48]},
            "homogeneity": {"records_exposed": 3, "records_exposed_share": 1 / 3},
            "risk": {"prosecutor_max": 1 / 3},
            "roll": {"size": 90, "seed": 0, "qi": ["age", "zip"]},
        },
        "checks": [
            {"check": "singling_out", "attribute": None, "status": "pass", "value": 0.05},
            {"check": "linkability", "attribute": None, "status": "fail", "value": 0.3},
            {"check": "inference", "attribute": "disease", "status": "warn", "value": 0.1},
        ],
        "gdpr_risks": {
            "singling_out": {
                "risk": 0.05,
                "ci": [0.01, 0.09],
                "baseline": 0.02,
                "n_attacks": 500,
                "warnings": [],
            },
            "linkability": {"risk": 0.3, "ci": [0.2, 0.4], "baseline": 0.1, "warnings": []},
            "inference": {"disease": {"risk": 0.1, "ci": [0.0, 0.3], "warnings": []}},
        },
        "findings": {"other_columns": ["salary"]},
    }
    for check in report["checks"]:
        check.update(threshold=0.2, comparison="<=")
    report.update(over)
    return report


CONTEXT = {
    "recipient": "Research group A",
    "access": "licensed",
    "attacker_knowledge": ["age", "salary", "electoral roll"],
    "reviewers": ["A. Lee"],
}


def test_evidence_reads_each_criterion_with_its_interval_baseline_and_status():
    found = evidence(_report(), None)
    single = found["singling_out"]
    assert (single["risk"], single["ci"], single["baseline"]) == (0.05, [0.01, 0.09], 0.02)
    assert (single["status"], single["threshold"], single["attacks_run"]) == ("pass", 0.2, 500)
    assert {"figure": "k", "value": 3} in single["supporting"]
    assert found["linkability"]["status"] == "fail"
    assert found["linkability"]["supporting"][0]["interval"] == [0.003, 0.48]
    assert found["inference"]["disease"]["status"] == "warn"
    # no population figures, no reconstruction: said, not left blank
    assert found["population"]["status"] == "not_measured"
    assert found["reconstruction"] == {
        "status": "not_measured",
        "note": {"note": "no_tables_published"},
    }


def test_evidence_not_measured_says_why():
    note = {"note": "gdpr_not_measured", "params": {"error": "risk.too_small"}}
    found = evidence(_report(gdpr_risks=None, notes=[note]), None)
    assert found["singling_out"]["status"] == "not_measured"
    assert found["singling_out"]["note"] == note
    assert found["inference"]["disease"]["status"] == "not_measured"


def test_intruder_record_names_knowledge_the_attacks_did_not_use():
    context = ReleaseContext.from_mapping(CONTEXT)
    record = intruder_record(_report(), context, background={"achieved": 2, "share": 0.2})
    assert record["knowledge_not_qi"] == ["salary"]  # in the table, not tagged QI
    assert record["registers"] == ["electoral roll"]
    attacks = [run["attack"] for run in record["attacks"]]
    assert attacks == ["linkage_roll", "homogeneity", "background_knowledge"]
    assert record["attacks"][0]["interval"] == [0.003, 0.48]
    assert record["attacks"][1]["achieved"] == 3


def test_dossier_fingerprint_catches_any_change():
    context = ReleaseContext.from_mapping(CONTEXT)
    dossier = build_dossier(_report(), context, context_thresholds(context))
    assert verify_dossier(dossier)
    assert dossier["dossier_sha256"] == dossier_fingerprint(dossier)
    changed = json.loads(json.dumps(dossier))
    changed["report"]["measurement"]["k"] = 30
    assert not verify_dossier(changed)


def test_dossier_refuses_a_report_checked_against_other_thresholds():
    context = ReleaseContext.from_mapping({**CONTEXT, "access": "public"})  # 0.09
    with pytest.raises(ParameterError) as err:
        build_dossier(_report(), context, context_thresholds(context))
    assert err.value.code == "report.context_thresholds_differ"


@pytest.mark.parametrize(
    ("given", "code"),
    [
        ({"decision": "maybe", "reviewers": ("A",)}, "report.decision_choice"),
        (
            {"decision": "approve_with_conditions", "reviewers": ("A",)},
            "report.decision_conditions",
        ),
        ({"decision": "approve"}, "report.decision_reviewers"),
    ],
)
def test_sign_off_refuses_incomplete_decisions(given, code):
    with pytest.raises(ParameterError) as err:
        SignOff(**given)
    assert err.value.code == code


def test_decision_against_the_verdict_is_flagged():
    context = ReleaseContext.from_mapping(CONTEXT)
    chosen = context_thresholds(context)
    sign = SignOff(("A. Lee",), "approve")
    assert not build_dossier(_report(), context, chosen, sign_off=sign)["decision_against_verdict"]
    dossier = build_dossier(_report(verdict="not_ready"), context, chosen, sign_off=sign)
    assert dossier["decision_against_verdict"]


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_document_has_every_section_and_no_raw_key(lang):
    context = ReleaseContext.from_mapping({**CONTEXT, "jurisdiction": "pipl"})
    dossier = build_dossier(_report(), context, context_thresholds(context))
    page = render_dossier_html(dossier, lang)
    for section in SECTIONS:
        assert f'id="{section}"' in page, section
    words = re.sub(r"<[^>]+>", " ", page)
    assert "dossier." not in words and "report.html." not in words
    assert "&lt;" not in page  # nothing double-escaped
    if lang == "zh":
        assert "发布档案" in page and "《个人信息保护法》（中国）" in page


def test_document_escapes_what_the_user_wrote():
    context = ReleaseContext.from_mapping({**CONTEXT, "recipient": "<b>x</b>"})
    page = render_dossier_html(build_dossier(_report(), context, context_thresholds(context)), "en")
    assert "<b>x</b>" not in page and "&lt;b&gt;x&lt;/b&gt;" in page


def _hospital_args(tmp_path, *extra):
    release = tmp_path / "release.csv"
    spec = tmp_path / "spec.json"
    hier = [f"--hierarchy={c}={HOSPITAL / f'hospital_hierarchy_{c}.csv'}" for c in ("ZIP", "Age")]
    code = main(
        [
            "anonymize",
            str(HOSPITAL / "hospital.csv"),
            "--algorithm=samarati",
            "--qi=ZIP,Age",
            "--sa=Disease",
            "--k=3",
            *hier,
            "--keep-order",
            f"--out={release}",
            f"--spec-out={spec}",
            "--quiet",
        ]
    )
    assert code == 0
    return [
        "report",
        f"--original={HOSPITAL / 'hospital.csv'}",
        f"--release={release}",
        "--qi=ZIP,Age",
        "--sa=Disease",
        *hier,
        f"--out={tmp_path / 'dossier.html'}",
        "--quiet",
        *extra,
    ]


def test_cli_writes_the_dossier(tmp_path, capsys):
    context = tmp_path / "context.json"
    context.write_text(json.dumps({**CONTEXT, "attacker_knowledge": ["ZIP", "voter roll"]}))
    args = _hospital_args(
        tmp_path,
        f"--context={context}",
        "--min-k=3",
        "--threshold-reason=min-k=classes of 3 suffice under the licence",
        "--decision=approve_with_conditions",
        "--sharing-condition=no linking with other data",
        f"--spec={tmp_path / 'spec.json'}",
        f"--dossier-json={tmp_path / 'dossier.json'}",
        "--lang=zh",
        "--json",
    )
    capsys.readouterr()
    code = main(args)
    out = json.loads(capsys.readouterr().out)
    dossier = json.loads((tmp_path / "dossier.json").read_text(encoding="utf-8"))
    assert code == (0 if out["verdict"] != "not_ready" else 1)
    assert verify_dossier(dossier)
    assert out["dossier"]["dossier_sha256"] == dossier["dossier_sha256"]
    chosen = dossier["thresholds_chosen"]
    assert chosen == [
        {
            "name": "min_k",
            "value": 3.0,
            "source": "",
            "reason": "classes of 3 suffice under the licence",
        }
    ]
    assert dossier["sign_off"]["decision"] == "approve_with_conditions"
    assert dossier["evidence"]["population"]["status"] == "measured"
    assert set(dossier["fingerprints"]) == {
        "input",
        "release",
        "spec",
        "hierarchy ZIP",
        "hierarchy Age",
    }
    page = (tmp_path / "dossier.html").read_text(encoding="utf-8")
    assert "有条件批准" in page and "classes of 3 suffice under the licence" in page


def test_cli_context_sets_the_prosecutor_limit(tmp_path, capsys):
    context = tmp_path / "context.json"
    context.write_text(json.dumps({"recipient": "everyone", "access": "public"}))
    args = _hospital_args(tmp_path, f"--context={context}", "--json")
    capsys.readouterr()
    main(args)
    out = json.loads(capsys.readouterr().out)
    assert out["thresholds"]["max_prosecutor"] == 0.09
    assert out["dossier"]["thresholds_chosen"][0]["source"].startswith("El Emam & Malin")


@pytest.mark.parametrize(
    ("extra", "words"),
    [
        (["--decision=approve"], "belong to a release dossier"),
        (["--register"], "belong to a release dossier"),
        (["--context={ctx}", "--script={tmp}/redo.py"], "give --spec FILE"),
        (["--context={ctx}", "--max-prosecutor=0.5"], "needs a reason"),
        (["--context={ctx}", "--threshold-reason=oops"], "NAME=REASON"),
    ],
)
def test_cli_refuses_dossier_options_in_words(tmp_path, capsys, extra, words):
    context = tmp_path / "context.json"
    context.write_text(json.dumps(CONTEXT))
    extra = [e.format(ctx=context, tmp=tmp_path) for e in extra]
    args = _hospital_args(tmp_path, *extra, "--json")
    capsys.readouterr()
    assert main(args) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and words in err
    assert not (tmp_path / "dossier.html").exists()


def test_cli_refuses_an_unknown_context_key(tmp_path, capsys):
    context = tmp_path / "context.json"
    context.write_text(json.dumps({**CONTEXT, "recipent": "typo"}))
    assert main(_hospital_args(tmp_path, f"--context={context}")) == 2
    assert "recipent" in capsys.readouterr().err


def test_register_catches_a_second_release_that_breaks_k(tmp_path, capsys):
    """Two releases of one table to the same recipient, each 2-anonymous; together
    rows 0-3 are alone in their intersection (the tables of
    tests/unit/test_report_register.py: effective k 1 for 4 records)."""
    import pandas as pd

    original = pd.DataFrame(
        {
            "age": [25, 25, 27, 27, 35, 35, 35, 35],
            "zip": [10001, 10002, 10001, 10002, 10003, 10003, 10004, 10004],
            "disease": ["flu", "cold", "flu", "cold", "hiv", "flu", "cold", "flu"],
        }
    )
    original.to_csv(tmp_path / "original.csv", index=False)
    original.assign(age=["20-29"] * 4 + ["30-39"] * 4).to_csv(tmp_path / "a.csv", index=False)
    original.assign(zip=["1000*"] * 8).to_csv(tmp_path / "b.csv", index=False)
    context = tmp_path / "context.json"
    context.write_text(json.dumps({"recipient": "Lab X", "access": "licensed"}))

    def report(name):
        args = [
            "report",
            f"--original={tmp_path / 'original.csv'}",
            f"--release={tmp_path / name}",
            "--qi=age,zip",
            "--sa=disease",
            f"--out={tmp_path / (name + '.html')}",
            f"--context={context}",
            "--min-k=2",
            "--threshold-reason=min-k=a small teaching table",
            "--register",
            "--quiet",
            "--json",
        ]
        capsys.readouterr()
        code = main(args)
        return code, json.loads(capsys.readouterr().out)["dossier"]

    _, first = report("a.csv")
    assert first["register"]["status"] == "none"
    code, second = report("b.csv")
    assert code == 1  # whatever the figures of b alone say, the combination breaks k
    assert second["register"]["status"] == "breaks_k"
    (finding,) = second["register"]["checked"]
    assert (finding["min_effective_k"], finding["records_below_k"]) == (1, 4)
    attacks = {run["attack"]: run for run in second["intruder"]["attacks"]}
    assert attacks["earlier_releases"]["status"] == "breaks_k"
    page = (tmp_path / "b.csv.html").read_text(encoding="utf-8")
    assert "combined with an earlier release, k breaks" in page


def _fresh_venv(folder: Path) -> Path:
    """A new virtual environment with privcore installed from a wheel built of this
    tree, its dependencies read (not copied) from the environment running the tests —
    nothing is downloaded: the interpreter of a reader who ran ``pip install``."""
    import shutil
    import subprocess
    import sys
    import sysconfig

    root = Path(__file__).resolve().parents[2]
    source = folder / "source"
    source.mkdir(parents=True)
    for name in ("pyproject.toml", "README.md"):
        shutil.copy(root / name, source / name)
    skip = shutil.ignore_patterns("__pycache__", "*.pyc")
    for package in ("privcore", "ui"):
        shutil.copytree(root / package, source / package, ignore=skip)
    pip = [sys.executable, "-m", "pip", "-q", "--disable-pip-version-check"]
    wheels = folder / "wheels"
    quiet = {"capture_output": True, "text": True, "timeout": 300}
    built = subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", wheels, source],
        **quiet,
    )
    assert built.returncode == 0, built.stderr
    venv = folder / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", venv], check=True)
    python = venv / "bin" / "python"
    wheel = next(wheels.glob("*.whl"))
    installed = subprocess.run(
        [*pip, "--python", python, "install", "--no-deps", "--no-index", wheel], **quiet
    )
    assert installed.returncode == 0, installed.stderr
    where = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"], **quiet
    )
    deps = sysconfig.get_paths()["purelib"]
    Path(where.stdout.strip(), "dependencies.pth").write_text(deps + "\n", encoding="utf-8")
    return python


def test_cli_script_redoes_the_release_byte_for_byte(tmp_path, capsys):
    """``report --context --pdf --script --notebook``; then ``python redo.py`` with a
    fresh virtual environment, in a folder holding only the input and its hierarchies,
    rebuilds the release file byte for byte and finds the same verdicts."""
    import shutil
    import subprocess

    context = tmp_path / "context.json"
    # the tables published with the release: the records are rebuilt from them, and
    # the script rebuilds them again from the same tables
    published = [["Age", "Disease"], ["ZIP", "Age"]]
    context.write_text(json.dumps({**CONTEXT, "published_tables": published}))
    args = _hospital_args(
        tmp_path,
        f"--context={context}",
        f"--spec={tmp_path / 'spec.json'}",
        f"--pdf={tmp_path / 'dossier.pdf'}",
        f"--script={tmp_path / 'redo.py'}",
        f"--notebook={tmp_path / 'redo.ipynb'}",
        f"--dossier-json={tmp_path / 'dossier.json'}",
    )
    main(args)
    dossier = json.loads((tmp_path / "dossier.json").read_text(encoding="utf-8"))
    assert dossier["reproduction"] == {"script": "redo.py", "notebook": "redo.ipynb"}
    assert (tmp_path / "dossier.pdf").read_bytes().startswith(b"%PDF")
    rebuilt = dossier["evidence"]["reconstruction"]
    assert rebuilt["tables"] == published and rebuilt["status"] == "not_checked"
    assert 0.0 <= rebuilt["exact_share"] <= 1.0
    assert "Age × Disease; ZIP × Age" in (tmp_path / "dossier.html").read_text(encoding="utf-8")
    spec = json.loads((tmp_path / "spec.json").read_text(encoding="utf-8"))
    assert spec["written"] == {"shuffled": False, "seed": 0, "formula_guard": True}
    fresh = tmp_path / "fresh"
    fresh.mkdir()
    for name in ("hospital.csv", "hospital_hierarchy_ZIP.csv", "hospital_hierarchy_Age.csv"):
        shutil.copy(HOSPITAL / name, fresh / name)
    shutil.copy(tmp_path / "redo.py", fresh / "redo.py")
    python = _fresh_venv(tmp_path / "reader")
    clean = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    done = subprocess.run(
        [python, "redo.py"], cwd=fresh, capture_output=True, text=True, env=clean, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    whose = subprocess.run(
        [python, "-c", "import privcore; print(privcore.__file__)"],
        cwd=fresh,
        capture_output=True,
        text=True,
        env=clean,
    )
    assert whose.stdout.startswith(str(tmp_path / "reader" / "venv")), whose.stdout
    redone = fresh / "redo-release.csv"
    assert redone.read_bytes() == (tmp_path / "release.csv").read_bytes()
    assert "DIFFERENT" not in done.stdout and "comparisons are the same" in done.stdout


def test_the_context_entered_with_the_release_is_kept_in_its_spec(tmp_path, capsys):
    """``anonymize --context --spec-out`` keeps the context in the spec; ``report
    --spec`` then makes the dossier from it without --context; --context without
    --spec-out is refused in words."""
    context = tmp_path / "context.json"
    context.write_text(json.dumps({**CONTEXT, "purpose": "teaching"}))
    hier = [f"--hierarchy={c}={HOSPITAL / f'hospital_hierarchy_{c}.csv'}" for c in ("ZIP", "Age")]
    made = ["anonymize", str(HOSPITAL / "hospital.csv"), "--algorithm=samarati", "--k=3"]
    made += ["--qi=ZIP,Age", "--sa=Disease", *hier, "--keep-order"]
    made += [f"--out={tmp_path / 'release.csv'}"]
    capsys.readouterr()
    assert main([*made, f"--context={context}", "--quiet"]) == 2
    assert "--spec-out" in capsys.readouterr().err
    spec = tmp_path / "spec.json"
    assert main([*made, f"--context={context}", f"--spec-out={spec}", "--quiet"]) == 0
    kept = json.loads(spec.read_text(encoding="utf-8"))["context"]
    assert kept == ReleaseContext.from_mapping({**CONTEXT, "purpose": "teaching"}).to_dict()
    main(
        [
            "report",
            f"--original={HOSPITAL / 'hospital.csv'}",
            f"--release={tmp_path / 'release.csv'}",
            "--qi=ZIP,Age",
            "--sa=Disease",
            *hier,
            f"--spec={spec}",
            f"--out={tmp_path / 'dossier.html'}",
            f"--dossier-json={tmp_path / 'dossier.json'}",
            "--quiet",
        ]
    )
    dossier = json.loads((tmp_path / "dossier.json").read_text(encoding="utf-8"))
    assert dossier["context"]["purpose"] == "teaching"
    assert dossier["fingerprints"]["spec"]
