"""How a recorded run reads to people: its times (:func:`display_time`) and the
release it assessed (:func:`assessed_release`)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

import pandas as pd


def display_time(value: Any) -> str:
    """A recorded time (ISO 8601, as :func:`record_run` writes it) as people read it, in
    UTC to the second: ``2026-11-29T04:31:05.194796+00:00`` → ``2026-11-29 04:31:05``.
    The fraction of a second is dropped (a clock shows the second it is in); a time with
    another offset is converted to UTC, one without an offset is taken as UTC (the
    history's own zone). ``None`` or an empty value is ``—``; text that is no such time
    is returned as it is."""
    if value is None or (isinstance(value, float) and value != value) or value is pd.NA:
        return "—"
    text = str(value).strip()
    if not text:
        return "—"
    try:
        moment = dt.datetime.fromisoformat(text)
    except ValueError:
        return text
    if moment.tzinfo is not None:
        moment = moment.astimezone(dt.UTC)
    return moment.strftime("%Y-%m-%d %H:%M:%S")


def assessed_release(run: Mapping[str, Any]) -> dict[str, Any] | None:
    """What a run recorded of the release it assessed, or None for a run of no release.

    ``name``: the release's name (on the page's shelf, or its file name); ``sha256``,
    ``rows``, ``columns``: its rows' fingerprint (:func:`privcore.data.fingerprint`),
    when the run kept it (a readiness report's ``release_fingerprint``, the command
    line's ``release_sha256``); ``algorithm`` and ``parameters``: how it was made, when
    the report knew it (a release made on the Anonymize page) — the algorithm's name and
    what it was made with (its ``constraints``, ``max_suppression``, ``seed`` and the
    algorithm's options, as :class:`privcore.anonymize.Release` ``params`` holds them).
    Absent facts are None.
    """
    params = run.get("params")
    results = run.get("results")
    params = params if isinstance(params, Mapping) else {}
    results = results if isinstance(results, Mapping) else {}
    kept = results.get("release_fingerprint")
    kept = kept if isinstance(kept, Mapping) else {}
    made = results.get("algorithm")
    made = made if isinstance(made, Mapping) else {}
    name = params.get("release") if isinstance(params.get("release"), str) else None
    name = name or (kept.get("name") if isinstance(kept.get("name"), str) else None)
    sha = kept.get("sha256") or params.get("release_sha256")
    if name is None and sha is None:
        return None
    algorithm = made.get("algorithm")
    return {
        "name": name,
        "sha256": str(sha) if sha else None,
        "rows": kept.get("rows"),
        "columns": kept.get("columns"),
        "algorithm": str(algorithm) if algorithm else None,
        "parameters": {k: v for k, v in made.items() if k != "algorithm"} if algorithm else {},
    }
