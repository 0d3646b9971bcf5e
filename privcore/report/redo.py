"""A release and its readiness assessment, made again by someone else: the reproduction
script and notebook of a release dossier.

A de-identification is only as credible as it is checkable. The HHS guidance on the
expert determination method (45 CFR §164.514(b)(1)) asks the expert to document the
methods and results so that they can be reviewed, and EMA Policy 0070 asks a sponsor's
anonymisation report to describe the methods in enough detail for an assessor to
follow them. The most direct way to show that is to hand over a program that does the
work again: :func:`redo_plan` records everything a release and its readiness report
were made from — the names and SHA-256 fingerprints of the input and release files,
the generalization spec (``privcore anonymize --spec-out``), how the release file was
written, the readiness parameters and the verdict and checks found — and
:func:`redo_script` and :func:`redo_notebook` turn that record into a standalone Python
file and a Jupyter notebook that, given the same input file, redo each step with
privcore and say, line by line, whether each result is the same:

1. the input file's bytes (SHA-256) and privcore's fingerprint of the table read from
   it (:func:`privcore.data.fingerprint`: names, kinds and per-row hashes);
2. the release made again from the spec (:func:`privcore.anonymize.spec.reproduce`,
   which checks the input's and the release's fingerprints itself);
3. the release written as ``privcore anonymize`` wrote it (:func:`privcore.data.save`,
   the rows shuffled by :meth:`~privcore.anonymize.release.Release.export` with the
   recorded seed unless the order was kept, the formula guard as recorded) to a new
   file — never over the original release — whose bytes must be the release file's;
4. the readiness assessment made again as ``privcore report`` made it (the redone file
   read back, the same columns, key, thresholds, hierarchy files, voter roll size and
   seed): the same verdict and the same status for every check.

No value of the data is written into the script or the notebook: only fingerprints,
names and figures, and the spec (whose hierarchies and schema hold the generalization's
values, as the spec file itself does). The script exits 0 when everything is the same,
1 when something differs, and 2 when a file it needs is missing.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from privcore import __version__
from privcore.core.jsonsafe import plain
from privcore.errors import ParameterError, PrivcoreError
from privcore.report.redo_code import PLAN_FORMAT, redo_notebook, redo_script

__all__ = ["PLAN_FORMAT", "file_record", "redo_notebook", "redo_plan", "redo_script"]

#: Report keys the plan reads.
_REPORT_KEYS = ("verdict", "checks", "roles", "thresholds")
#: Formats whose files are not the same bytes when written twice (.xlsx keeps the time).
_TIMESTAMPED = (".xlsx",)


# --------------------------------------------------------------------------- the plan


def redo_plan(
    *,
    input_path: str | os.PathLike[str] | Mapping[str, Any],
    release_path: str | os.PathLike[str] | Mapping[str, Any],
    spec: Mapping[str, Any],
    report: Any,
    context: Any = None,
    hierarchies: Mapping[str, str | os.PathLike[str]] | Sequence[str] | None = None,
    keep_order: bool | None = None,
    formula_guard: bool | None = None,
    shuffle_seed: int | None = None,
    roll_size: int | None = None,
    seed: int | None = None,
    assessed: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Everything the reproduction script and notebook need, JSON-safe.

    ``input_path`` and ``release_path``: the input table ``privcore anonymize`` read and
    the release file it wrote (read here for their SHA-256; the script finds the input
    by its name). ``spec``: the generalization spec of the release (the dict of
    ``--spec-out``). ``report``: the release's :class:`~privcore.report.ReadinessReport`
    or its ``to_dict()``, made by ``privcore report`` on these two files. ``context``:
    the release's context (a mapping, a :class:`~privcore.report.context.ReleaseContext`
    or None), kept as documentation. ``hierarchies``: the hierarchy files the report
    read, as ``{column: path}`` or ``["COLUMN=FILE", …]`` (``--hierarchy``); the script
    reads them beside the input file.

    How the release file was written: the spec's own record (``written``: ``shuffled``,
    ``seed``, ``formula_guard``, kept by ``privcore anonymize --spec-out`` and the
    Anonymize page) when it has one — it wins, the plan's ``written.source`` is then
    ``"spec"``. For a spec without it (``source`` ``"given"``): ``keep_order``
    (``--keep-order``: not shuffled; default False), ``formula_guard`` (False with
    ``--no-formula-guard``; default True) and ``shuffle_seed`` (the seed of the shuffle:
    by default the spec's seed, which is ``--seed`` for a new release and the spec's for
    ``--from-spec``).
    ``roll_size`` and ``seed``: the report's voter roll, by default the size and seed
    the report's attacks record.

    A release made on the pages has no files here: ``input_path`` and ``release_path``
    are then records ``{"name", "sha256"}`` (the input's SHA-256 None when the page
    keeps only the table: the script then compares privcore's fingerprint alone), and
    ``assessed`` says how the page assessed it — the release made here, in the table's
    order rather than read back from its file: ``{"shuffled", "blanked", "release_kind",
    "schema"}`` (the file is shuffled; the release's own suppressed rows counted; its
    kind; the page's :class:`~privcore.data.Schema` as ``to_dict()``, whose hierarchies
    the assessment used). The plan's ``readiness.release_read`` is ``"in_order"`` then,
    ``"file"`` otherwise.

    The plan holds ``format``, ``privcore_version``, ``input`` (``name``, ``path`` as
    given, ``sha256`` of the bytes, ``fingerprint``: privcore's), ``release`` (the same
    for the release file; ``fingerprint`` of the release table), ``spec``, ``written``
    (``writer``, ``reader``, ``format``, ``shuffled``, ``seed``, ``formula_guard``,
    ``bytes_comparable``), ``readiness`` (``qi``, ``sa``, ``key``, ``thresholds``,
    ``roll_size``, ``seed``, ``algorithm``, ``hierarchy_files``), ``context`` and
    ``expected`` (``verdict``, ``checks`` as ``check``/``attribute``/``status``,
    ``release_table``: the fingerprint of the release file as read back). Missing
    pieces are :class:`~privcore.errors.ParameterError` ``report.redo_*``.
    """
    spec = _checked_spec(spec)
    found = _report_dict(report)
    if found.get("fingerprint", {}).get("sha256") not in (None, spec["input"]["sha256"]):
        raise ParameterError(
            "The readiness report was made on another original table than the one the "
            "spec's release was made from (their fingerprints differ).",
            code="report.redo_other_input",
        )
    input_file = _file_or_record(input_path, "input")
    release_file = _file_or_record(release_path, "release")
    release_name = release_file["name"]
    return plain(
        {
            "format": PLAN_FORMAT,
            "privcore_version": __version__,
            "input": {
                **input_file,
                "fingerprint": spec["input"]["sha256"],
            },
            "release": {
                **release_file,
                "fingerprint": spec["release"]["sha256"],
            },
            "spec": spec,
            "written": _written(release_name, spec, keep_order, formula_guard, shuffle_seed),
            "readiness": {
                **_readiness_params(found, roll_size, seed),
                "hierarchy_files": _hierarchy_records(hierarchies),
                **_assessed(assessed),
            },
            "context": _context(context),
            "expected": {
                "verdict": found["verdict"],
                "checks": [
                    {
                        "check": c.get("check"),
                        "attribute": c.get("attribute"),
                        "status": c.get("status"),
                    }
                    for c in found["checks"]
                ],
                "release_table": (found.get("release_fingerprint") or {}).get("sha256"),
            },
        }
    )


def _file_or_record(given: Any, what: str) -> dict[str, Any]:
    """A file's record (:func:`file_record`), or a record given as such: a ``name`` and a
    ``sha256`` (64 hex digits, or None for the input when its bytes are not known)."""
    if not isinstance(given, Mapping):
        return file_record(given, what)
    name, digest = given.get("name"), given.get("sha256")
    ok_digest = digest is None and what == "input"
    if isinstance(digest, str) and len(digest) == 64:
        ok_digest = all(ch in "0123456789abcdef" for ch in digest)
    if not isinstance(name, str) or not name.strip() or Path(name).name != name or not ok_digest:
        raise ParameterError(
            f"The {what} file is given as a name and the SHA-256 of its bytes, not {given!r}.",
            code="report.redo_unreadable",
            path=str(name),
        )
    return {"name": name, "path": name, "sha256": digest}


def _assessed(assessed: Mapping[str, Any] | None) -> dict[str, Any]:
    """How the release was assessed (see :func:`redo_plan`), checked."""
    if assessed is None:
        return {"release_read": "file"}
    from privcore.data.schema import Schema

    try:
        schema = Schema.from_dict(assessed["schema"]).to_dict()
        out = {
            "release_read": "in_order",
            "shuffled": bool(assessed["shuffled"]),
            "blanked": bool(assessed["blanked"]),
            "release_kind": assessed.get("release_kind"),
            "schema": schema,
        }
    except (KeyError, TypeError, ValueError, PrivcoreError) as exc:
        raise ParameterError(
            "How the release was assessed needs shuffled, blanked and the schema.",
            code="report.redo_assessed",
        ) from exc
    return out


def _checked_spec(spec: Any) -> dict[str, Any]:
    """The spec, with what a reproduction needs (:func:`privcore.anonymize.spec.check_spec`,
    then the fingerprints the script compares: ``report.redo_spec`` names what is
    missing); a frequency set's release (written by its engine) is ``report.redo_weighted``."""
    from privcore.anonymize.spec import check_spec

    spec = check_spec(spec)
    missing = [f"{key} fingerprint" for key in ("input", "release") if not _sha(spec, key)]
    if missing:
        raise ParameterError(
            f"The release spec lacks {', '.join(missing)}: it cannot be redone and checked "
            "(write it with 'privcore anonymize --spec-out').",
            code="report.redo_spec",
            missing=missing,
        )
    if spec.get("weighted"):
        raise ParameterError(
            "This release was made from a frequency set and written by its engine: a "
            "script cannot write the same file again from the table alone.",
            code="report.redo_weighted",
        )
    return plain(dict(spec))


def _sha(spec: Mapping[str, Any], key: str) -> Any:
    found = spec.get(key)
    return found.get("sha256") if isinstance(found, Mapping) else None


def _report_dict(report: Any) -> dict[str, Any]:
    """The report as a dict (``to_dict()`` of a :class:`ReadinessReport`), with what the
    plan reads (``report.redo_report``)."""
    found = report.to_dict() if hasattr(report, "to_dict") else report
    if not isinstance(found, Mapping):
        raise ParameterError(
            "The redo script needs the readiness report (a ReadinessReport or its to_dict()).",
            code="report.redo_report",
        )
    missing = [key for key in _REPORT_KEYS if found.get(key) is None]
    if missing:
        raise ParameterError(
            f"The readiness report lacks {', '.join(missing)}.",
            code="report.redo_report",
            missing=missing,
        )
    return dict(found)


def file_record(path: str | os.PathLike[str], what: str) -> dict[str, Any]:
    """A file's name, its path as given and the SHA-256 of its bytes."""
    digest = hashlib.sha256()
    with (
        ParameterError.on_os_error(
            f"Cannot read the {what} file {{path}}: {{reason}}.",
            code="report.redo_unreadable",
            path=str(path),
        ),
        Path(path).open("rb") as handle,
    ):
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return {"name": Path(path).name, "path": str(path), "sha256": digest.hexdigest()}


def _written(
    release_name: str,
    spec: Mapping[str, Any],
    keep_order: bool | None,
    formula_guard: bool | None,
    shuffle_seed: int | None,
) -> dict[str, Any]:
    """How ``privcore anonymize`` wrote the release file (``_write_release`` of the
    command line): ``save(release.export(shuffle=not keep_order, seed=seed), out,
    formula_guard=...)``, the format from the file's extension."""
    suffix = Path(release_name).suffix.lower()
    recorded = spec.get("written")
    source = "spec" if isinstance(recorded, Mapping) else "given"
    if source == "spec":
        from privcore.anonymize.release import checked_written

        recorded = checked_written(recorded)
        keep_order = not recorded["shuffled"]
        formula_guard = recorded["formula_guard"]
        shuffle_seed = recorded["seed"]
    keep_order = bool(keep_order) if keep_order is not None else False
    formula_guard = True if formula_guard is None else formula_guard
    seed = spec.get("seed", 0) if shuffle_seed is None else shuffle_seed
    if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
        raise ParameterError(
            f"The seed of the release's shuffle must be a whole number ≥ 0, not {seed!r}.",
            code="report.redo_seed",
        )
    return {
        "reader": "privcore.cli.toolkit.load_table",
        "writer": "privcore.data.save",
        "export": "Release.export",
        "format": suffix.lstrip(".") or "csv",
        "shuffled": not keep_order,
        "seed": seed,
        "formula_guard": bool(formula_guard),
        "bytes_comparable": suffix not in _TIMESTAMPED,
        "source": source,
    }


def _readiness_params(
    found: Mapping[str, Any], roll_size: int | None, seed: int | None
) -> dict[str, Any]:
    """The arguments ``privcore report`` gave :func:`~privcore.report.readiness`: the
    roles, the thresholds, the algorithm and the voter roll's size and seed."""
    roll = (found.get("attacks") or {}).get("roll") or {}
    size = roll.get("size") if roll_size is None else roll_size
    drawn = roll.get("seed") if seed is None else seed
    if size is None or drawn is None:
        raise ParameterError(
            "The readiness report does not record its voter roll: give the roll size and "
            "seed the report was made with.",
            code="report.redo_roll",
        )
    roles = found["roles"]
    thresholds = found["thresholds"]
    if hasattr(thresholds, "to_dict"):
        thresholds = thresholds.to_dict()
    return {
        "qi": list(roles.get("qi") or []),
        "sa": list(roles.get("sa") or []),
        "key": roles.get("key"),
        "thresholds": dict(thresholds),
        "roll_size": int(size),
        "seed": int(drawn),
        "algorithm": found.get("algorithm"),
        "published_tables": _published_tables(found),
    }


def _published_tables(found: Mapping[str, Any]) -> list[list[str]] | None:
    """The tables the report rebuilt the records from when they were given (the
    context's ``published_tables``), not suggested by the report."""
    rebuilt = (found.get("findings") or {}).get("reconstruction") or {}
    if not rebuilt.get("tables_given"):
        return None
    return [list(t) for t in rebuilt.get("tables") or []]


def _hierarchy_records(
    hierarchies: Mapping[str, str | os.PathLike[str]] | Sequence[str] | None,
) -> dict[str, dict[str, str]]:
    """The hierarchy files by column: name and SHA-256 (``{column: path}`` or the
    ``--hierarchy COLUMN=FILE`` options)."""
    if not hierarchies:
        return {}
    if isinstance(hierarchies, Mapping):
        pairs = [(str(c), p) for c, p in hierarchies.items()]
    else:
        pairs = []
        for option in hierarchies:
            column, sep, path = str(option).partition("=")
            if not sep or not column.strip() or not path:
                raise ParameterError(
                    f"A hierarchy file is given as COLUMN=FILE, not '{option}'.",
                    code="report.redo_hierarchy",
                )
            pairs.append((column.strip(), path))
    out = {}
    for column, path in pairs:
        record = file_record(path, f"'{column}' hierarchy")
        out[column] = {"file": record["name"], "sha256": record["sha256"]}
    return out


def _context(context: Any) -> dict[str, Any] | None:
    if context is None:
        return None
    if hasattr(context, "to_dict"):
        context = context.to_dict()
    if not isinstance(context, Mapping):
        raise ParameterError(
            "The release's context must be a mapping (or a ReleaseContext).",
            code="report.redo_context",
        )
    return dict(context)
