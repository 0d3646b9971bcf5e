"""Shared fixtures: bundled asset paths and an isolated history database per test."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"
_PYTEST_MAIN = sys.modules["__main__"]


@pytest.fixture
def adult_path() -> Path:
    return ASSETS / "adult" / "adult.csv"


@pytest.fixture(autouse=True)
def isolated_history(tmp_path, monkeypatch) -> Path:
    """Every test writes its runs to its own database, never to data/history.db."""
    path = tmp_path / "history.db"
    monkeypatch.setenv("PRIVCORE_HISTORY", str(path))
    return path


@pytest.fixture(autouse=True)
def work_in_place(monkeypatch):
    """Runs compute in the test's own process unless a test asks for worker processes
    (``PRIVCORE_WORKERS``, set for the demo, would otherwise follow the environment)."""
    monkeypatch.delenv("PRIVCORE_WORKERS", raising=False)


@pytest.fixture(autouse=True)
def restore_main_module():
    """AppTest leaves app.py registered as ``__main__``; put pytest's back, or a process
    started with ``spawn`` would re-run app.py on start-up."""
    yield
    sys.modules["__main__"] = _PYTEST_MAIN
