"""What a release dossier costs beside the readiness report it wraps, and what redoing a
release costs beside making it.

On Adult (``assets/adult``, 30,162 rows; quasi-identifiers age, sex, race,
marital-status, education with their hierarchies; sensitive occupation), a release is
made from the command line (``privcore anonymize`` with Samarati, k = 10, at most 5 %
suppressed, ``--spec-out``); then, in one process each, side by side and ``--repeats``
times (3) interleaved:

- ``report``: ``privcore report`` writing the readiness report's HTML;
- ``dossier``: the same with ``--context`` (licensed access), ``--pdf``,
  ``--dossier-json``, ``--script`` and ``--notebook`` — the dossier adds the population
  risk, the background-knowledge attack, the document's sections, the PDF (WeasyPrint)
  and the reproduction files;
- ``dossier + register``: the dossier with ``--intruder-register`` — a register the
  intruder holds (the 30,162 people's quasi-identifiers, shuffled, with the row key
  ``person``) linked with the release, every match checked by the key;
- ``redo``: ``python redo.py`` in a fresh folder holding the input and its hierarchies —
  makes the release again, compares its bytes and fingerprints, assesses it again;
- ``anonymize + report``: what the redo replaces, run as two commands.

Figures: seconds (median), the ratios dossier ÷ report, (dossier + register) ÷ dossier
and redo ÷ (anonymize + report), the register's unique matches and re-identifications,
the PDF's pages and size, and whether the redo found everything the same.

Usage: python bench/bench_dossier.py [--repeats N] [--json]
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
ADULT = ROOT / "assets" / "adult"
QI = ["age", "sex", "race", "marital-status", "education"]
CONTEXT = {
    "recipient": "University research group",
    "access": "licensed",
    "attacker_knowledge": ["age", "sex", "race", "electoral roll"],
    "reviewers": ["Data protection officer"],
}


def _run(args: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    done = subprocess.run(args, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - start
    if done.returncode not in (0, 1):
        raise RuntimeError(done.stderr[-2000:])
    return seconds


def _privcore(*args: str) -> list[str]:
    return [sys.executable, "-m", "privcore", *args]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--json", action="store_true")
    opts = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="bench_dossier_"))
    for name in [*(f"adult_hierarchy_{q}.csv" for q in QI)]:
        shutil.copy(ADULT / name, work / name)
    _with_key_and_register(work)
    hierarchies = [f"--hierarchy={q}=adult_hierarchy_{q}.csv" for q in QI]
    roles = ["--qi=" + ",".join(QI), "--sa=occupation"]
    anonymize = _privcore(
        "anonymize",
        "adult.csv",
        "--algorithm=samarati",
        "--k=10",
        "--max-suppression=0.05",
        *roles,
        *hierarchies,
        "--identifiers=",  # the row key stays: the report pairs and checks by it
        "--keep-order",
        "--out=release.csv",
        "--spec-out=spec.json",
        "--quiet",
    )
    report = _privcore(
        "report",
        "--original=adult.csv",
        "--release=release.csv",
        *roles,
        *hierarchies,
        "--min-k=10",
        "--key=person",
        "--out=report.html",
        "--quiet",
    )
    (work / "context.json").write_text(json.dumps(CONTEXT), encoding="utf-8")
    dossier = [
        *report[:-2],
        "--threshold-reason=min-k=the agreement asks for classes of 10",
        "--out=dossier.html",
        "--context=context.json",
        "--spec=spec.json",
        "--pdf=dossier.pdf",
        "--dossier-json=dossier.json",
        "--script=redo.py",
        "--notebook=redo.ipynb",
        "--quiet",
    ]
    registered = [*dossier[:-1], "--intruder-register=register.csv", "--quiet"]
    registered[registered.index("--dossier-json=dossier.json")] = "--dossier-json=linked.json"
    _run(anonymize, work)
    _run(dossier, work)  # the script the redo runs
    fresh = work / "fresh"
    fresh.mkdir()
    for name in ["adult.csv", *(f"adult_hierarchy_{q}.csv" for q in QI), "redo.py"]:
        shutil.copy(work / name, fresh / name)
    times: dict[str, list[float]] = {
        "report": [],
        "dossier": [],
        "registered": [],
        "redo": [],
        "made": [],
    }
    same = True
    for _ in range(opts.repeats):
        times["report"].append(_run(report, work))
        times["dossier"].append(_run(dossier, work))
        times["registered"].append(_run(registered, work))
        start = time.perf_counter()
        redo = subprocess.run(
            [sys.executable, "redo.py", "--out=redo-release.csv"],
            cwd=fresh,
            capture_output=True,
            text=True,
            check=False,
        )
        times["redo"].append(time.perf_counter() - start)
        same = same and redo.returncode == 0 and "DIFFERENT" not in redo.stdout
        (fresh / "redo-release.csv").unlink(missing_ok=True)
        times["made"].append(_run(anonymize, work) + _run(report, work))
    median = {k: statistics.median(v) for k, v in times.items()}
    pages = subprocess.run(
        ["pdfinfo", str(work / "dossier.pdf")], capture_output=True, text=True, check=False
    ).stdout
    result = {
        "rows": 30162,
        "seconds": median,
        "dossier_over_report": median["dossier"] / median["report"],
        "redo_over_made": median["redo"] / median["made"],
        "registered_over_dossier": median["registered"] / median["dossier"],
        "register_linkage": _linked(work / "linked.json"),
        "pdf_pages": next(
            (int(line.split()[-1]) for line in pages.splitlines() if line.startswith("Pages")),
            None,
        ),
        "pdf_kb": (work / "dossier.pdf").stat().st_size / 1024,
        "redo_same": same,
    }
    shutil.rmtree(work, ignore_errors=True)
    if opts.json:
        print(json.dumps(result, indent=1))
        return
    print("| run | seconds (median) |\n|---|---|")
    for name, label in (
        ("report", "report (HTML)"),
        ("dossier", "dossier (HTML, PDF, JSON, script, notebook)"),
        ("registered", "dossier + intruder register (30,162 people)"),
        ("made", "anonymize + report"),
        ("redo", "python redo.py"),
    ):
        print(f"| {label} | {median[name]:.2f} |")
    print(
        f"\ndossier ÷ report {result['dossier_over_report']:.2f}×; redo ÷ (anonymize + report) "
        f"{result['redo_over_made']:.2f}×; PDF {result['pdf_pages']} pages, "
        f"{result['pdf_kb']:.0f} KB; redo same: {same}; (dossier + register) ÷ dossier "
        f"{result['registered_over_dossier']:.2f}×; register: {result['register_linkage']}"
    )


def _with_key_and_register(work: Path) -> None:
    """Adult with a row key ``person`` (the input), and the intruder's register: every
    person's key and quasi-identifiers, rows shuffled."""
    import pandas as pd

    frame = pd.read_csv(ADULT / "adult.csv", sep=";")
    frame.insert(0, "person", [f"P{i:05d}" for i in range(len(frame))])
    frame.to_csv(work / "adult.csv", index=False)
    register = frame[["person", *QI]].sample(frac=1.0, random_state=1)
    register.to_csv(work / "register.csv", index=False)


def _linked(path: Path) -> dict:
    runs = json.loads(path.read_text(encoding="utf-8"))["intruder"]["attacks"]
    run = next(r for r in runs if r["attack"] == "linkage_register")
    keys = ("register_size", "unique_matches", "reidentified", "precision", "interval")
    return {k: run.get(k) for k in keys}


if __name__ == "__main__":
    main()
