"""MkDocs hook: the docstrings' cross-reference roles read as code.

privcore's docstrings name other objects with reStructuredText roles
(``:func:`~privcore.report.readiness```), which the API reference renders with
mkdocstrings as plain text around a code span. This hook drops the role and, for a
name written with ``~``, keeps its last part, as Sphinx shows it."""

from __future__ import annotations

import re

ROLE = re.compile(r":(?:func|class|meth|mod|data|attr|exc|obj|const):\s*(<code>)")
SHORT = re.compile(r"<code>~([\w.]+)</code>")


def on_page_content(html: str, **_: object) -> str:
    html = ROLE.sub(r"\1", html)
    return SHORT.sub(lambda m: f"<code>{m.group(1).rsplit('.', 1)[-1]}</code>", html)
