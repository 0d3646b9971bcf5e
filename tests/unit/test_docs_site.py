"""The documentation site: its command line reference is the parser's, and it builds
with MkDocs in strict mode (a warning — a broken link, an unknown page, a docstring
that cannot be read — fails the build)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def test_the_command_line_reference_is_the_parsers():
    done = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "cli_reference.py"), "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert done.returncode == 0, done.stderr
    page = (ROOT / "docs" / "reference" / "cli.md").read_text(encoding="utf-8")
    for command in ("profile", "measure", "anonymize", "attack", "report", "dp query"):
        assert f"`privcore {command}`" in page
    assert "`--intruder-register` `FILE`" in page  # an option, with its metavar


def test_the_site_builds_without_a_warning(tmp_path):
    mkdocs = Path(sys.executable).parent / "mkdocs"
    if not mkdocs.exists():
        pytest.skip("mkdocs is not installed (make test installs requirements-dev.txt)")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [str(mkdocs), "build", "--strict", "--site-dir", str(tmp_path / "site")],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    built = tmp_path / "site"
    assert (built / "reference" / "cli" / "index.html").is_file()
    api = (built / "reference" / "api" / "report" / "index.html").read_text(encoding="utf-8")
    assert "readiness" in api and ":func:" not in api  # docstrings, their roles read
    guide = (built / "guide" / "report" / "index.html").read_text(encoding="utf-8")
    assert "dossier" in guide
