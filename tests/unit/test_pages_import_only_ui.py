"""The page scripts (pages/*.py) and app.py import only the pages' interface (``ui``),
Streamlit and the standard library: what a page needs of the library it asks ``ui`` for
(a request built, a table read), so the library's layout can change under ``ui`` alone.

Every import is read from the source with ``ast``, an import inside a function included.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ALLOWED = frozenset({"ui", "streamlit"}) | frozenset(sys.stdlib_module_names)


def page_scripts(root: Path = ROOT) -> list[Path]:
    return sorted([*(root / "pages").glob("*.py"), root / "app.py"])


def foreign_imports(path: Path) -> list[str]:
    """The modules ``path`` imports whose top-level package is not allowed (a relative
    import counts as foreign: a page script is no package)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level:
            names = ["." * node.level + (node.module or alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [node.module or ""]
        else:
            continue
        found += [(node.lineno, name) for name in names if name.split(".")[0] not in ALLOWED]
    return [name for _, name in sorted(found)]


def test_the_check_sees_a_library_import_even_inside_a_function(tmp_path):
    script = tmp_path / "page.py"
    script.write_text(
        "import json\nimport streamlit as st\nfrom ui.common.i18n import t\n"
        "def f():\n    from privcore.runs import MeasureRequest\n    import pandas\n"
        "from . import sibling\n",
        encoding="utf-8",
    )
    assert foreign_imports(script) == ["privcore.runs", "pandas", ".sibling"]


def test_every_page_and_the_app_import_only_ui_streamlit_and_the_standard_library():
    scripts = page_scripts()
    assert len(scripts) == 11  # ten pages and app.py
    found = {str(p.relative_to(ROOT)): foreign_imports(p) for p in scripts}
    assert {name: imports for name, imports in found.items() if imports} == {}
