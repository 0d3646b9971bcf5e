"""No user string reaches Streamlit's Markdown unescaped through an f-string: every value
interpolated into the text or label of a call that renders Markdown (``st.markdown``,
``st.caption``, ``st.info``, a widget's label, …) in ``ui/``, ``pages/`` and ``app.py`` is
the catalogue's words (:func:`ui.common.i18n.t` escapes its parameters), escaped
(``escape_md``), a number, or one of the constants listed below with the reason it is
safe. A new interpolation of anything else fails here until it is escaped."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Calls whose text (first argument, ``label``, ``body``, ``help``) Streamlit renders as
#: Markdown.
MARKDOWN_CALLS = {
    "markdown", "caption", "write", "info", "warning", "error", "success", "toast",
    "subheader", "header", "title", "expander", "metric", "page_link", "button",
    "checkbox", "radio", "selectbox", "multiselect", "slider", "number_input", "text_input",
    "download_button", "popover", "link_button", "status",
}  # fmt: skip
#: Functions whose result is safe to embed: escaped words, or numbers.
SAFE_CALLS = {"t", "escape_md", "number", "fmt", "len", "int", "float", "round", "chain_words"}
#: Interpolations that are safe without a call, by file and source text, with the reason.
KNOWN_SAFE = {
    ("ui/history/page.py", "str(run.get('dataset_sha256') or '—')[:16]"): "hex digits",
    ("ui/history/view.py", "title"): "t() of a fixed key",
    ("ui/common/ec_table.py", "title"): "t() of a fixed key",
    ("ui/ldp/view.py", "colour"): "a fixed colour name",
    ("ui/ldp/view.py", "icon"): "a fixed icon",
    ("ui/report/view.py", "colour"): "a fixed colour name",
    ("ui/report/view.py", "icon"): "a fixed icon",
    ("ui/common/components.py", "_COLOUR[status]"): "a fixed colour name",
    ("ui/common/components.py", "_ICON[status]"): "a fixed icon",
    ("ui/learn/k_anonymity.py", "name"): "a fixed algorithm title",
}


def _sources() -> list[Path]:
    return [*sorted((ROOT / "ui").rglob("*.py")), *sorted((ROOT / "pages").rglob("*.py")),
            ROOT / "app.py"]  # fmt: skip


def _called_name(node: ast.expr) -> str | None:
    if isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name):
            return node.func.id
        if isinstance(node.func, ast.Attribute):
            return node.func.attr
    return None


def _interpolations(path: Path):
    """(line, source) of every value interpolated into a Markdown call's f-string."""
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)):
            continue
        if node.func.attr not in MARKDOWN_CALLS:  # st.…, a column's, a container's
            continue
        texts = [
            *node.args[:1],
            *(k.value for k in node.keywords if k.arg in ("label", "body", "help")),
        ]
        for text in texts:
            if not isinstance(text, ast.JoinedStr):
                continue
            for part in text.values:
                if isinstance(part, ast.FormattedValue):
                    yield node.lineno, part.value


def test_every_interpolation_into_markdown_is_escaped_or_known_safe():
    unsafe = []
    for path in _sources():
        relative = path.relative_to(ROOT).as_posix()
        for line, value in _interpolations(path):
            if _called_name(value) in SAFE_CALLS:
                continue
            if (relative, ast.unparse(value)) in KNOWN_SAFE:
                continue
            unsafe.append(f"{relative}:{line}: {ast.unparse(value)}")
    assert not unsafe, "interpolated into Markdown without escape_md or t():\n" + "\n".join(unsafe)


def test_the_scan_sees_an_unescaped_value(tmp_path):
    page = tmp_path / "page.py"
    page.write_text(
        'import streamlit as st\nname = "x"\nst.markdown(f"**{name}**")\n'
        'st.container().caption(f"{name}")\n'
    )
    assert [ast.unparse(v) for _, v in _interpolations(page)] == ["name", "name"]
