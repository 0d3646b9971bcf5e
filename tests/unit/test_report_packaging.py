"""`pip install .` ships what the command line needs to word and write a readiness report:
the Streamlit-free privcore.words.catalog and privcore.words.report_html, and the
locale catalogues."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

# Run by the installed copy, with Streamlit made unimportable: a report is worded and
# written in both languages from the bundled worked example.
_SCRIPT = """
import sys
sys.modules["streamlit"] = None  # the command line has no Streamlit
from pathlib import Path
import privcore.words.catalog, privcore.words.report_html
from privcore.data import load
from privcore.report import readiness
catalog_file = Path(privcore.words.catalog.__file__)
assert catalog_file.is_relative_to(Path(sys.argv[1])), catalog_file
hospital = Path(sys.argv[2])
report = readiness(
    load(hospital / "hospital.csv").frame,
    load(hospital / "hospital_release.csv").frame,
    qi=["ZIP", "Age"],
    sa=["Salary", "Disease"],
)
print(privcore.words.catalog.texts_of(report, "en").reasons[0].sentence)
page = privcore.words.report_html.render_html(report, "zh")
print("不可发布" in page and "检察官风险" in page)
"""


def test_pyproject_packages_the_words_with_their_catalogues():
    setuptools = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    assert "privcore*" in setuptools["packages"]["find"]["include"]
    assert setuptools["package-data"]["privcore.words"] == ["locales/*.json"]


@pytest.mark.slow
def test_the_installed_package_words_and_writes_a_report(tmp_path):
    source = tmp_path / "source"
    source.mkdir()
    for name in ("pyproject.toml", "README.md"):
        shutil.copy2(ROOT / name, source / name)
    for package in ("privcore", "ui"):
        shutil.copytree(
            ROOT / package, source / package, ignore=shutil.ignore_patterns("__pycache__")
        )
    target = tmp_path / "site"
    install = subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ],
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    assert install.returncode == 0, install.stderr[-2000:]
    assert (target / "privcore" / "words" / "locales" / "report_zh.json").exists()
    assert (target / "privcore" / "words" / "locales" / "en.json").exists()
    ran = subprocess.run(
        [sys.executable, "-c", _SCRIPT, str(target), str(ROOT / "assets" / "hospital")],
        cwd=tmp_path,
        env={"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert ran.returncode == 0, ran.stderr[-2000:]
    assert ran.stdout.splitlines() == ["k = 3 < 5", "True"]
