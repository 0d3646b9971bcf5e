"""The records an attacker rebuilds from the tables published beside a release.

An agency that publishes microdata publishes tables with it. The report asks the
question of the census reconstruction (Garfinkel, Abowd & Martindale, CACM 2019): from
the tables an agency would publish of the original — each quasi-identifier by each
sensitive attribute, then pairs of quasi-identifiers, as many as the attack can hold
(:func:`~privcore.attacks.reconstruction.release_cells.suggest_tables`) — and from the
release's own cells when it is a generalization, how many records does an integer
program rebuild exactly? The attack is
:func:`~privcore.attacks.reconstruction.published.attack_table` on the whole table as
one block: one best table, its certain records not verified, at most
:data:`TIME_LIMIT` seconds of solving. Its figures are kept in the report's findings
(``reconstruction``) — shares and counts, never a record — and the check
``reconstructed_share`` compares the share rebuilt exactly with its limit.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pandas as pd

from privcore.core.jsonsafe import plain
from privcore.data.hierarchy import Hierarchy
from privcore.errors import PrivcoreError

__all__ = ["TIME_LIMIT", "reconstruction_figures"]

#: Seconds of solving the report gives the reconstruction (one block: the whole table).
TIME_LIMIT = 60.0


def reconstruction_figures(
    original: pd.DataFrame,
    release: pd.DataFrame,
    qi: Sequence[str],
    sa: Sequence[str],
    *,
    hierarchies: Mapping[str, Hierarchy],
    release_kind: str | None,
    seed: int,
    time_limit: float = TIME_LIMIT,
    tables: Sequence[Sequence[str]] | None = None,
) -> dict[str, Any]:
    """The reconstruction's figures as the report keeps them (see the module's
    docstring): ``measured``; the ``tables`` published and the columns ``left_out``;
    ``release_cells`` (0 when the release is not a generalization: its values do not
    cover the truth, ``release_read`` False); ``exact_share``, ``within_tolerance_share``
    and ``tolerance``; ``reidentified`` and ``reidentified_share`` (the voter-roll
    linkage of the rebuilt records, None when no published column is one a roll lists);
    ``timed_out`` (the figures are those of the table found in time). When the attack
    cannot run (no table fits, too many record types), ``measured`` is False and
    ``note`` holds the error's code and parameters. ``tables``: the tables actually
    published with the release (each a list of the original's columns), read instead of
    the suggested ones (``tables_given`` True)."""
    from privcore.attacks.reconstruction.published import ReleaseInput, attack_table
    from privcore.attacks.reconstruction.release_cells import suggest_tables
    from privcore.report.risk import not_measured

    kind = release_kind or "generalized"
    given = [list(t) for t in tables or ()]
    try:
        if given:
            published, left_out = given, []
        else:
            suggestion = suggest_tables(original, qi, sa)
            published, left_out = [list(t) for t in suggestion.tables], suggestion.left_out
        read = kind == "generalized"
        attack = attack_table(
            original,
            published,
            max_solutions=1,
            certain=False,
            explain=False,
            time_limit=time_limit,
            seed=seed,
            release=ReleaseInput(release, dict(hierarchies), kind) if read else None,
        )
    except PrivcoreError as exc:
        return {"measured": False, "note": not_measured(exc)}
    summary = attack.summary()
    return plain(
        {
            "measured": True,
            "tables": published,
            "tables_given": bool(given),
            "left_out": sorted(left_out),
            "release_read": read,
            "release_kind": kind,
            "release_cells": summary["release_cells"],
            "people": summary["people"],
            "record_types": summary["record_types"],
            "exact_share": summary["exact_share"],
            "within_tolerance_share": summary["within_tolerance_share"],
            "tolerance": summary["tolerance"],
            "reidentified": summary["reidentified"],
            "reidentified_share": summary.get("reidentified_share"),
            "timed_out": bool(summary["timed_out_blocks"]),
            "time_limit": time_limit,
        }
    )
