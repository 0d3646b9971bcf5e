"""The engines' base knows none of the engines: every concrete engine imports the base,
so an import of an engine from the base — even inside a function — would close a
circle. The factory that names them lives in privcore.engines.factory."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
ENGINES = ROOT / "privcore" / "engines"
CONCRETE = {"privcore.engines.pandas_engine", "privcore.engines.duckdb_engine"}
CONCRETE |= {"privcore.engines.spark_engine", "privcore.engines.factory"}


def imported(path: Path) -> set[str]:
    """Every module ``path`` imports, at any depth of its code."""
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            names.add(node.module)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def test_the_base_imports_no_engine():
    assert not imported(ENGINES / "base.py") & CONCRETE


@pytest.mark.parametrize("name", ["pandas", "duckdb"])
def test_the_factory_names_each_engine(name):
    from privcore.engines import ENGINES as NAMES
    from privcore.engines import engine

    assert name in NAMES and type(engine(name)).__module__ == f"privcore.engines.{name}_engine"


def test_an_unknown_engine_is_refused_in_words():
    from privcore.engines import engine
    from privcore.errors import ParameterError

    with pytest.raises(ParameterError) as error:
        engine("excel")
    assert error.value.code == "engines.unknown" and "pandas, duckdb, spark" in str(error.value)
