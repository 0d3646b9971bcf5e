"""The reproduction of a release made on the pages, offered with its dossier: the
release's spec, and the script and notebook that make the release again from the input
file and assess it again as the Report page did (:mod:`privcore.report.redo`)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

from privcore.data import Dataset, Schema
from privcore.errors import PrivcoreError
from privcore.report.redo import redo_notebook, redo_plan, redo_script
from ui.common.i18n import error_text
from ui.common.state import ShelfRelease, bundled_file
from ui.report.runs import release_csv


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _input_record(original: Dataset) -> dict[str, Any]:
    """The input as the script finds it: a bundled sample's shipped file (its bytes'
    SHA-256 known), or an upload by its name (only the table was kept: no SHA-256)."""
    shipped = bundled_file(original)
    if shipped is not None:
        return {"name": shipped.name, "sha256": _sha256(shipped.read_bytes())}
    return {"name": original.name, "sha256": None}


def page_reproduction(
    report: Any,
    entry: ShelfRelease,
    original: Dataset,
    schema: Schema,
    pairing: str,
    context: Any,
    stem: str,
) -> dict[str, Any]:
    """The files that redo ``entry`` and its assessment: ``spec`` (as the Anonymize page
    offers it), ``script`` and ``notebook`` (bytes) with their ``names`` and the
    ``files`` and ``reproduction`` records the dossier keeps; or ``why`` (words) when
    the release was not made here, was paired by matching, or has no spec."""
    made = entry.release
    if made is None or pairing == "matching" or not entry.aligned:
        return {"why": "rp.dossier.no_script"}
    written = made.written(shuffled=entry.shuffled)
    if written is None:
        return {"why": "rp.dossier.no_script"}
    try:
        kept = None if context is None else context.to_dict()  # entered once: in the spec
        spec_text = made.spec_json(written, kept)
        spec = made.spec(written, kept)
        release_bytes = release_csv(entry)
        plan = redo_plan(
            input_path=_input_record(original),
            release_path={"name": f"{stem}.csv", "sha256": _sha256(release_bytes)},
            spec=spec,
            report=report,
            context=context,
            assessed={
                "shuffled": entry.shuffled,
                "blanked": entry.blanked is not None,
                "release_kind": str(made.kind),
                "schema": schema.to_dict(),
            },
        )
    except PrivcoreError as exc:
        return {"why_text": error_text(exc)}
    names = {"script": f"{stem}_redo.py", "notebook": f"{stem}_redo.ipynb"}
    return {
        "spec": spec_text.encode("utf-8"),
        "script": redo_script(plan).encode("utf-8"),
        "notebook": redo_notebook(plan).encode("utf-8"),
        "names": {**names, "spec": f"{stem}_spec.json"},
        "files": {"spec": _sha256(spec_text.encode("utf-8"))},
        "reproduction": names,
    }


def dossier_files(found: Mapping[str, Any]) -> dict[str, Any]:
    """What :func:`page_reproduction` adds to the dossier (nothing when it could not)."""
    if "script" not in found:
        return {}
    return {"files": found["files"], "reproduction": found["reproduction"]}
