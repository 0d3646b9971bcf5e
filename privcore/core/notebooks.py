"""Jupyter notebooks written as text: :func:`notebook_json` turns a list of
``(kind, source)`` cells — ``kind`` "markdown" or "code" — into an nbformat 4.5
notebook (JSON), each cell with a stable id, code cells without outputs. The
reproductions of the pages' results and of a release, and the Learn lessons, are
written with it."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

__all__ = ["notebook_json"]


def _cell(kind: str, cell_id: str, source: str) -> dict[str, Any]:
    cell: dict[str, Any] = {
        "cell_type": kind,
        "id": cell_id,
        "metadata": {},
        "source": source.rstrip("\n").splitlines(keepends=True),
    }
    if kind == "code":
        cell["execution_count"] = None
        cell["outputs"] = []
    return cell


def notebook_json(cells: Sequence[tuple[str, str]], *, prefix: str = "cell") -> str:
    """The nbformat 4.5 notebook of ``cells`` as JSON text; cell ids are
    ``<prefix>-NN`` in order."""
    body = {
        "cells": [_cell(kind, f"{prefix}-{n:02d}", text) for n, (kind, text) in enumerate(cells)],
        "metadata": {
            "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
            "language_info": {"name": "python"},
        },
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    return json.dumps(body, indent=1, ensure_ascii=False) + "\n"
