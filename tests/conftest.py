"""Shared fixtures: bundled asset paths and an isolated history database per test."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
ASSETS = ROOT / "assets"


@pytest.fixture
def adult_path() -> Path:
    return ASSETS / "adult" / "adult.csv"


@pytest.fixture(autouse=True)
def isolated_history(tmp_path, monkeypatch) -> Path:
    """Every test writes its runs to its own database, never to data/history.db."""
    path = tmp_path / "history.db"
    monkeypatch.setenv("PRIVCORE_HISTORY", str(path))
    return path
