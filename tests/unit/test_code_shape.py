"""The product's code stays small enough to read: no module over 800 lines and no
function over 120 lines in privcore, ui, pages and app.py (a function's length is from
its ``def`` line to its last line, decorators left out)."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
MOST_LINES_IN_A_MODULE = 800
MOST_LINES_IN_A_FUNCTION = 120


def product_files(root: Path = ROOT) -> list[Path]:
    files = [
        path for package in ("privcore", "ui", "pages") for path in (root / package).rglob("*.py")
    ]
    return sorted([*files, root / "app.py"])


def long_functions(path: Path, most: int, root: Path = ROOT) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [
        f"{path.relative_to(root)}:{node.lineno} {node.name} ({node.end_lineno - node.lineno + 1})"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > most
    ]


def test_the_length_of_a_function_is_counted_from_def_to_its_last_line(tmp_path):
    source = tmp_path / "m.py"
    source.write_text("@decorated\ndef f():\n    x = 1\n\n    return x\n\n\ndef g():\n    pass\n")
    assert long_functions(source, 3, tmp_path) == ["m.py:2 f (4)"]
    assert long_functions(source, 4, tmp_path) == []


def test_no_module_over_800_lines():
    files = product_files()
    assert len(files) > 150
    too_long = {
        str(path.relative_to(ROOT)): lines
        for path in files
        if (lines := len(path.read_text(encoding="utf-8").splitlines())) > MOST_LINES_IN_A_MODULE
    }
    assert too_long == {}


def test_no_function_over_120_lines():
    found = [
        line for path in product_files() for line in long_functions(path, MOST_LINES_IN_A_FUNCTION)
    ]
    assert found == []
